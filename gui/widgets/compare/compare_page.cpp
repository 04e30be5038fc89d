#include "gui/widgets/compare/compare_page.hpp"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "gui/models/background_pool.hpp"
#include "gui/widgets/tables/table_view.hpp"
#include "profiler/analysis/kept_report.hpp"
#include "profiler/import_cache/trace_source.hpp"

namespace ts::gui {

ComparePage::ComparePage(QWidget* parent)
    : QWidget(parent),
      header_(new QLabel(this)),
      figures_(new DiffModel(this)),
      kernels_(new KernelDiffModel(this)) {
  header_->setWordWrap(true);
  header_->setTextFormat(Qt::RichText);
  auto* open = new QPushButton(tr("Compare with…"), this);
  auto* top = new QHBoxLayout;
  top->addWidget(header_, 1);
  top->addWidget(open);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(make_table_view(figures_, nullptr, split));
  split->addWidget(make_table_view(kernels_, nullptr, split));
  split->setSizes({560, 300});
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(split, 1);
  connect(open, &QPushButton::clicked, this, &ComparePage::openRequested);
  connect(&loading_, &QFutureWatcher<Loaded>::finished, this, &ComparePage::b_done);
  refresh();
}

void ComparePage::set_session(TraceSession* session) {
  if (session_) disconnect(session_, nullptr, this, nullptr);
  session_ = session;
  if (session) connect(session, &TraceSession::reportReady, this, &ComparePage::refresh);
  // Another A: B is compared with it afresh, so that both leave out the same warm-up.
  if (session && !b_path_.isEmpty() && session->path().toStdString() != a_path_) {
    open_b(b_path_);
    return;
  }
  refresh();
}

bool ComparePage::open_b(const QString& path) {
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
  analysis::AnalysisOptions options = options_;
  options.keep_gaps = false;  // the comparison counts idle gaps; it never draws them
  const std::string a_file = session_ ? session_->path().toStdString() : std::string();
  a_path_ = a_file;
  loading_.setFuture(QtConcurrent::run(&background_pool(), [file, a_file, options] {
    Loaded l;
    l.a_path = a_file;
    try {
      const store::Reader reader(file);
      l.report = analysis::analyse_or_reuse(reader, options);
      if (a_file.empty()) return l;
      const store::Reader a_reader(a_file);
      l.a = analysis::analyse_or_reuse(a_reader, options);
      l.common = analysis::common_warmup(*l.a, *l.report, options);
      if (l.common) {
        analysis::AnalysisOptions aligned = options;
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
  refresh();
  return true;
}

void ComparePage::wait() {
  loading_.waitForFinished();
  b_done();
}

void ComparePage::b_done() {
  if (!loading_.isFinished() || loading_.future().resultCount() == 0 || b_) return;
  Loaded l = loading_.result();
  if (!l.error.isEmpty()) {
    b_path_.clear();
    refresh();
    emit failed(l.error);
    return;
  }
  b_ = std::move(l.report);
  a_ = std::move(l.a);
  common_ = l.common;
  refresh();
}

void ComparePage::refresh() {
  const bool own_a = session_ && a_ && session_->path().toStdString() == a_path_;
  const analysis::Report* a = own_a ? &*a_ : session_ ? session_->report() : nullptr;
  if (a && b_) {
    diff_ = analysis::diff(*a, *b_, own_a ? common_ : std::nullopt);
    figures_->set_diff(*diff_, a->currency.empty() ? std::string("$") : a->currency);
    kernels_->set_kernels(diff_->kernels);
    QString lines = QString::fromStdString(analysis::scope_sentence(*diff_)).toHtmlEscaped();
    for (const std::string& line :
         {analysis::saving_sentence(*diff_), analysis::whole_run_sentence(*diff_)})
      if (!line.empty())
        lines += QStringLiteral("<br>") + QString::fromStdString(line).toHtmlEscaped();
    header_->setText(
        tr("<b>A</b> %1 &nbsp;→&nbsp; <b>B</b> %2<br><b>%3</b><br>%4<br>"
           "<span style='color:#607d8b'>Per-step figures, so runs of different "
           "lengths compare fairly. Red: worse in B, green: better.</span>")
            .arg(QFileInfo(session_->source().isEmpty() ? session_->path() : session_->source())
                     .fileName()
                     .toHtmlEscaped(),
                 QFileInfo(b_path_).fileName().toHtmlEscaped(),
                 QString::fromStdString(analysis::headline(*diff_)).toHtmlEscaped(), lines));
    return;
  }
  diff_.reset();
  figures_->clear();
  kernels_->set_kernels({});
  if (!session_)
    header_->setText(tr("Open a trace first."));
  else if (!b_path_.isEmpty())
    header_->setText(tr("Analysing %1…").arg(QFileInfo(b_path_).fileName().toHtmlEscaped()));
  else
    header_->setText(tr("Compare <b>%1</b> with a second trace: step time, breakdown and kernels "
                        "side by side.")
                         .arg(QFileInfo(session_->path()).fileName().toHtmlEscaped()));
}

}  // namespace ts::gui
