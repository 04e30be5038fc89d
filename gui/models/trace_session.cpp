#include "gui/models/trace_session.hpp"

#include <QFileInfo>
#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "gui/models/background_pool.hpp"
#include "gui/models/initial_view.hpp"
#include "gui/models/summary_builder.hpp"
#include "profiler/analysis/kept_report.hpp"

namespace ts::gui {

TraceSession::TraceSession(const QString& path, const analysis::AnalysisOptions& options,
                           bool analyse, std::shared_ptr<const store::Snapshot> snapshot,
                           std::shared_ptr<LiveState> live, QObject* parent)
    : QObject(parent),
      path_(path),
      options_(options),
      analyse_(analyse),
      summary_(std::make_shared<TraceSummary>()),
      cancel_(std::make_shared<std::atomic<bool>>(false)) {
  const std::string file = path.toStdString();
  reader_ = std::make_unique<store::Reader>(file, snapshot);
  steps_ = std::make_shared<const std::vector<store::Step>>(reader_->steps());
  if (!steps_->empty()) {
    steps_extent_ = {steps_->front().start_ns, steps_->front().start_ns};
    for (const store::Step& s : *steps_) {
      steps_extent_.first = std::min(steps_extent_.first, s.start_ns);
      steps_extent_.second = std::max(steps_extent_.second, s.start_ns + s.dur_ns);
    }
  } else {
    const store::TimeRange r = reader_->time_range();
    steps_extent_ = {r.start_ns, r.end_ns};
  }
  windows_ = std::make_unique<WindowCache>(file, snapshot);
  const bool whole_gaps = steps_->size() <= whole_gaps_steps();
  if (analyse_ && !whole_gaps)
    gap_windows_ = std::make_unique<GapWindows>(file, snapshot, options, steps_);

  connect(&analysis_, &QFutureWatcher<AnalysisResult>::finished, this,
          &TraceSession::analysis_done);
  if (analyse_)
    analysis_.setFuture(
        QtConcurrent::run(&background_pool(), [file, options, snapshot, whole_gaps, live]() {
          AnalysisResult r;
          try {
            const store::Reader reader(file, snapshot);
            analysis::AnalysisOptions o = options;
            o.keep_gaps = whole_gaps;
            // The viewer holds the per-step figures packed (step_figures()), not as a list: a
            // kept report's go straight from its parts into the packing.
            PackedStepsSink packing(file);
            r.report = std::make_shared<analysis::Report>(
                live ? live->analysis.analyse(reader, o)
                     : analysis::analyse_or_reuse(reader, o, packing));
            packing.take(r.report->per_step);
            r.report->per_step = {};
            r.steps = packing.finish();
            r.gaps = std::make_shared<const GapRow>(
                whole_gaps ? make_gap_row(r.report->device.gaps)
                           : make_step_idle_row(*r.steps, steps_per_zone(r.steps->size())));
            r.report->device.gaps = {};
          } catch (const std::exception& e) {
            r.error = QString::fromStdString(e.what());
          }
          return r;
        }));

  connect(&scan_, &QFutureWatcher<QString>::progressValueChanged, this,
          [this](int v) { emit summaryProgress(v / 1000.0); });
  connect(&scan_, &QFutureWatcher<QString>::finished, this, &TraceSession::summary_done_slot);
  std::shared_ptr<TraceSummary> summary = summary_;
  std::shared_ptr<std::atomic<bool>> cancel = cancel_;
  SummarySources sources;
  sources.snapshot = snapshot;
  sources.live = live ? &live->summary : nullptr;
  scan_.setFuture(QtConcurrent::run(
      &background_pool(), [file, summary, cancel, sources, live](QPromise<QString>& promise) {
        promise.setProgressRange(0, 1000);
        try {
          build_summary(
              file, *summary, *cancel,
              [&](double f) { promise.setProgressValue(static_cast<int>(f * 1000)); }, sources);
          promise.addResult(QString());
        } catch (const std::exception& e) {
          promise.addResult(QString::fromStdString(e.what()));
        }
      }));
}

TraceSession::~TraceSession() {
  // The scan stops at its next chunk. The analysis cannot be interrupted: it finishes on its
  // own thread, holding nothing of this object, and its result is dropped.
  cancel_->store(true);
  scan_.waitForFinished();
}

QString TraceSession::file_name() const {
  return QFileInfo(path_).fileName();
}

std::pair<std::int64_t, std::int64_t> TraceSession::extent() const {
  return summary_->read([&](const SummaryData& d) {
    return d.has_extent ? std::pair{d.begin_ns, d.content_end_ns.value_or(d.end_ns)}
                        : steps_extent_;
  });
}

std::optional<std::int64_t> TraceSession::first_input_bound_step() const {
  if (!first_input_bound_) {
    first_input_bound_.emplace();
    try {
      *first_input_bound_ =
          gui::first_input_bound_step(*reader_, *steps_, kInputBoundSearchEvents, options_);
    } catch (const std::exception&) {
      // Damage past the header: the background tasks find it too and report it.
    }
  }
  return *first_input_bound_;
}

std::optional<std::pair<std::int64_t, std::int64_t>> TraceSession::initial_range() const {
  std::optional<std::int64_t> analysed;
  try {
    analysed = first_analysed_step(*reader_, *steps_, options_);
  } catch (const std::exception&) {
  }
  const auto numbers = typical_steps(*steps_, first_input_bound_step(),
                                     analysed.value_or(std::numeric_limits<std::int64_t>::min()));
  return numbers ? steps_time_range(*steps_, *numbers) : std::nullopt;
}

namespace {
// As many steps as one exact gap window may span: a trace that short shows every gap at any zoom
// for little memory; a longer one keeps a zone per step with idle time and loads the exact gaps
// around the view, and its analysis lists no gap, so the report the trace keeps serves it.
std::atomic<std::size_t> whole_gaps_steps_limit{GapWindows::kMaxSteps};
}  // namespace

std::size_t TraceSession::steps_starting_in(std::int64_t t0, std::int64_t t1) const {
  const auto starting_before = [&](std::int64_t t) {
    return std::partition_point(steps_->begin(), steps_->end(),
                                [&](const store::Step& s) { return s.start_ns < t; });
  };
  return t0 < t1 ? static_cast<std::size_t>(starting_before(t1) - starting_before(t0)) : 0;
}

std::size_t TraceSession::whole_gaps_steps() {
  return whole_gaps_steps_limit.load();
}

void TraceSession::set_whole_gaps_steps(std::size_t steps) {
  whole_gaps_steps_limit.store(steps);
}

bool TraceSession::summary_done() const {
  return summary_->read([](const SummaryData& d) { return d.done || !d.error.empty(); });
}

void TraceSession::analysis_done() {
  if (!analyse_ || analysis_handled_ || !analysis_.isFinished()) return;
  analysis_handled_ = true;
  AnalysisResult r = analysis_.result();
  if (r.report) {
    report_ = std::move(r.report);
    gaps_ = std::move(r.gaps);
    step_figures_ = std::move(r.steps);
    emit reportReady();
  } else {
    analysis_error_ = r.error;
    emit backgroundFailed(r.error);
  }
}

void TraceSession::summary_done_slot() {
  if (scan_handled_ || !scan_.isFinished()) return;
  scan_handled_ = true;
  const QString error = scan_.future().resultCount() > 0 ? scan_.result() : QString();
  if (!error.isEmpty()) emit backgroundFailed(error);
  emit summaryFinished();
}

void TraceSession::wait() {
  analysis_.waitForFinished();
  analysis_done();
  scan_.waitForFinished();
  summary_done_slot();
}

}  // namespace ts::gui
