#include "gui/models/trace_comparison.hpp"

#include <QtConcurrent/QtConcurrentRun>
#include <exception>

#include "gui/models/background_pool.hpp"
#include "gui/models/format.hpp"
#include "profiler/analysis/kept_report.hpp"
#include "profiler/import_cache/trace_source.hpp"

namespace ts::gui {

TraceComparison::TraceComparison(QObject* parent) : QObject(parent) {
  connect(&loading_, &QFutureWatcher<Loaded>::finished, this, &TraceComparison::b_done);
}

void TraceComparison::set_a(TraceSession* session) {
  if (a_session_) disconnect(a_session_, nullptr, this, nullptr);
  a_session_ = session;
  if (session) connect(session, &TraceSession::reportReady, this, &TraceComparison::update);
  if (session && !b_path_.isEmpty() && session->path().toStdString() != a_path_) {
    open_b(b_path_);
    return;
  }
  update();
}

bool TraceComparison::open_b(const QString& path) {
  std::string file;
  try {
    // Another tool's trace is imported (or its cached import reused) first.
    file = import::open_trace_source(path.toStdString(), {import_options_, {}}).path;
    const store::Reader check(file);  // refuses non-traces now, not later
  } catch (const std::exception& e) {
    emit failed(QString::fromStdString(e.what()));
    return false;
  }
  loading_.waitForFinished();
  b_path_ = path;
  b_.reset();
  a_.reset();
  common_.reset();
  AnalysisOptions options = options_;
  options.keep_gaps = false;  // the comparison counts idle gaps; it never draws them
  const std::string a_file = a_session_ ? a_session_->path().toStdString() : std::string();
  a_path_ = a_file;
  loading_.setFuture(QtConcurrent::run(&background_pool(), [file, a_file, options] {
    Loaded l;
    try {
      const store::Reader reader(file);
      l.report = analysis::analyse_or_reuse(reader, options);
      if (a_file.empty()) return l;
      const store::Reader a_reader(a_file);
      l.a = analysis::analyse_or_reuse(a_reader, options);
      l.common = analysis::common_warmup(*l.a, *l.report, options);
      if (l.common) {
        AnalysisOptions aligned = options;
        aligned.skip_warmup = l.common->steps;
        if (analysis::takes_common_warmup(*l.a, *l.common))
          l.a = analysis::analyse_or_reuse(a_reader, aligned);
        if (analysis::takes_common_warmup(*l.report, *l.common))
          l.report = analysis::analyse_or_reuse(reader, aligned);
      }
    } catch (const std::exception& e) {
      l.error = QString::fromStdString(e.what());
    }
    return l;
  }));
  update();
  return true;
}

void TraceComparison::wait() {
  loading_.waitForFinished();
  b_done();
}

void TraceComparison::b_done() {
  if (!loading_.isFinished() || loading_.future().resultCount() == 0 || b_) return;
  Loaded l = loading_.result();
  if (!l.error.isEmpty()) {
    b_path_.clear();
    update();
    emit failed(l.error);
    return;
  }
  b_ = std::move(l.report);
  a_ = std::move(l.a);
  common_ = l.common;
  update();
}

bool TraceComparison::own_a() const {
  return a_session_ && a_ && a_session_->path().toStdString() == a_path_;
}

const Report* TraceComparison::a_report() const {
  return own_a() ? &*a_ : a_session_ ? a_session_->report() : nullptr;
}

void TraceComparison::update() {
  const Report* a = a_report();
  if (a && b_)
    diff_ = analysis::diff(*a, *b_, own_a() ? common_ : std::nullopt);
  else
    diff_.reset();
  emit changed();
}

std::string TraceComparison::currency() const {
  const Report* a = a_report();
  return !a || a->currency.empty() ? std::string("$") : a->currency;
}

QString TraceComparison::headline() const {
  return diff_ ? display_text(analysis::headline(*diff_)) : QString();
}

QStringList TraceComparison::notes() const {
  if (!diff_) return {};
  QStringList lines{display_text(analysis::scope_sentence(*diff_))};
  for (const std::string& line :
       {analysis::saving_sentence(*diff_), analysis::whole_run_sentence(*diff_)})
    if (!line.empty()) lines << display_text(line);
  return lines;
}

}  // namespace ts::gui
