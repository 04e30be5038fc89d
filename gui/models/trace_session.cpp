#include "gui/models/trace_session.hpp"

#include <QFileInfo>
#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <limits>
#include <optional>

#include "gui/models/background_pool.hpp"
#include "gui/models/summary_builder.hpp"
#include "gui/models/trace_meta.hpp"
#include "profiler/analysis/kept_report.hpp"
#include "profiler/analysis/phases.hpp"

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
  {
    // One pass over the steps: the index, the whole step row and what the initial view needs.
    const auto count = static_cast<std::size_t>(std::max<std::int64_t>(0, reader_->step_count()));
    opening_ = std::make_unique<OpeningSteps>(analysis::run_shape(*reader_), options, count);
    struct Pass : StepConsumer {
      OpeningSteps& opening;
      StepRowBuilder row;
      Pass(OpeningSteps& o, std::size_t n) : opening(o), row(steps_per_zone(n), n) {}
      void add(const store::Step& s) override {
        opening.add(s);
        row.add(s);
      }
      void restart(std::size_t n) override {
        opening.restart(n);
        row = StepRowBuilder(steps_per_zone(n), n);
      }
    } pass(*opening_, count);
    steps_ = StepIndex(*reader_, pass);
    step_row_ = pass.row.finish(nullptr, epoch_first_steps(*reader_));
  }
  if (const auto e = steps_.extent()) {
    steps_extent_ = *e;
  } else {
    const store::TimeRange r = reader_->time_range();
    steps_extent_ = {r.start_ns, r.end_ns};
  }
  windows_ = std::make_unique<WindowCache>(file, snapshot);
  // Every idle gap listed at once for a trace of few steps, unless it keeps an analysis: a kept
  // report holds no gaps, and analysing again to list them (seconds for a job of millions of
  // events) would keep the overview and the ranks' heat map waiting; they are loaded per view.
  const bool whole_gaps = steps_.size() <= whole_gaps_steps() &&
                          !(analyse_ && !live && analysis::keeps_report(*reader_, options));
  if (analyse_ && !whole_gaps) gap_windows_ = std::make_unique<GapWindows>(file, snapshot, options);

  snapshot_ = std::move(snapshot);
  live_ = std::move(live);
  whole_gaps_ = whole_gaps;
  connect(&analysis_, &QFutureWatcher<AnalysisResult>::finished, this,
          &TraceSession::analysis_done);
  connect(&check_, &QFutureWatcher<bool>::finished, this, &TraceSession::check_done);
  // A kept analysis is shown before its events are checked: the check reads every page of the
  // trace (seconds for a cold 3.6 GB file) and the first look needs none of them. It runs once
  // the report is in; one that fails puts a fresh analysis in its place.
  if (analyse_) analysis_.setFuture(run_analysis(analysis::KeptCheck::later));

  connect(&scan_, &QFutureWatcher<QString>::progressValueChanged, this,
          [this](int v) { emit summaryProgress(v / 1000.0); });
  connect(&scan_, &QFutureWatcher<QString>::finished, this, &TraceSession::summary_done_slot);
  std::shared_ptr<TraceSummary> summary = summary_;
  std::shared_ptr<std::atomic<bool>> cancel = cancel_;
  SummarySources sources;
  sources.snapshot = snapshot_;
  sources.live = live_ ? &live_->summary : nullptr;
  scan_.setFuture(QtConcurrent::run(&background_pool(), [file, summary, cancel, sources,
                                                         live = live_](QPromise<QString>& promise) {
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

QFuture<TraceSession::AnalysisResult> TraceSession::run_analysis(analysis::KeptCheck check) {
  const std::string file = path_.toStdString();
  const analysis::AnalysisOptions options = options_;
  const bool whole_gaps = whole_gaps_;
  std::shared_ptr<const store::Snapshot> snapshot = snapshot_;
  std::shared_ptr<LiveState> live = live_;
  // What marking the whole step row needs of it: its step numbers, not its zones.
  auto marks = std::make_shared<StepRow>();
  marks->per_zone = step_row_.per_zone;
  marks->steps = step_row_.steps;
  marks->numbers = step_row_.numbers;
  return QtConcurrent::run(
      &background_pool(), [file, options, snapshot, whole_gaps, live, marks, check]() {
        AnalysisResult r;
        try {
          const store::Reader reader(file, snapshot);
          analysis::AnalysisOptions o = options;
          o.keep_gaps = whole_gaps;
          // The viewer holds the per-step figures packed (step_figures()), not as a list: a
          // kept report's go straight from its parts into the packing.
          PackedStepsSink packing(file);
          analysis::KeptUse use;
          r.report = std::make_shared<analysis::Report>(
              live ? live->analysis.analyse(reader, o)
                   : analysis::analyse_or_reuse(reader, o, packing, check, use));
          r.check_later = use.check_later;
          analysis::hand_over(r.report->per_step, packing);
          r.steps = packing.finish();
          // One walk over the packed figures (0.12 s at 2.2 M steps) feeds the overview's
          // bars, the idle row of a long trace and the marks of a row in runs of steps.
          const PackedSteps& figures = *r.steps;
          StepBarBuilder bars(figures.size());
          std::optional<StepIdleRowBuilder> idle;
          if (!whole_gaps) idle.emplace(figures.size(), steps_per_zone(figures.size()));
          std::optional<StepZoneMarker> zones;
          if (marks->per_zone > 1) zones.emplace(*marks);
          figures.for_each([&](std::size_t i, const analysis::StepSummary& s) {
            bars.add(i, s);
            if (idle) idle->add(s);
            if (zones) zones->add(s);
          });
          r.bars = bars.finish();
          r.gaps = std::make_shared<const GapRow>(idle ? idle->finish()
                                                       : make_gap_row(r.report->device.gaps));
          r.report->device.gaps = {};
          if (zones)
            zones->finish();
          else
            mark_step_row(*marks, r.steps.get());
          marks->numbers = {};
          r.marks = marks;
        } catch (const std::exception& e) {
          r.error = QString::fromStdString(e.what());
        }
        return r;
      });
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
      // Steps that need cleaning (several ranks merged, a damaged file) are read again, whole.
      *first_input_bound_ =
          opening_->clean()
              ? gui::first_input_bound_step(*reader_, opening_->prefix(), opening_->analysed(),
                                            opening_->tracks(), kInputBoundSearchEvents, options_)
              : gui::first_input_bound_step(*reader_, reader_->steps(), kInputBoundSearchEvents,
                                            options_);
    } catch (const std::exception&) {
      // Damage past the header: the background tasks find it too and report it.
    }
  }
  return *first_input_bound_;
}

std::optional<std::pair<std::int64_t, std::int64_t>> TraceSession::initial_range() const {
  std::optional<std::int64_t> analysed;
  try {
    analysed = opening_->clean() ? opening_->first_analysed()
                                 : first_analysed_step(*reader_, reader_->steps(), options_);
  } catch (const std::exception&) {
  }
  try {
    // The first input-bound step the figures cover, else the first step they cover: never the
    // warm-up they leave out.
    const std::optional<std::int64_t> bound = first_input_bound_step();
    const StepIndex::Around near = steps_.around(bound ? bound : analysed, 1, 3);
    const auto numbers = typical_steps(near.steps, near.centre,
                                       analysed.value_or(std::numeric_limits<std::int64_t>::min()));
    return numbers ? steps_time_range(near.steps, *numbers) : std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

StepRow TraceSession::exact_step_row(std::int64_t t0, std::int64_t t1,
                                     const std::vector<std::int64_t>& epochs) const {
  std::vector<store::Step> near;
  try {
    near = steps_.from_before(t0, t1);
  } catch (const std::exception&) {
    // Damage past the header: the background tasks find it too and report it.
  }
  return make_step_row(near, report_ ? step_figures_.get() : nullptr, epochs);
}

std::optional<std::pair<std::int64_t, std::int64_t>> TraceSession::time_range_of_steps(
    std::pair<std::int64_t, std::int64_t> numbers) const {
  std::optional<std::pair<std::int64_t, std::int64_t>> range;
  steps_.each_numbered(numbers.first, numbers.second, [&](const store::Step& st) {
    const std::int64_t end = store::sat_add(st.start_ns, st.dur_ns);
    range = range ? std::pair{std::min(range->first, st.start_ns), std::max(range->second, end)}
                  : std::pair{st.start_ns, end};
  });
  return range ? std::optional(with_margin(range->first, range->second)) : std::nullopt;
}

namespace {
// As many steps as one exact gap window may span: a trace that short shows every gap at any zoom
// for little memory; a longer one keeps a zone per step with idle time and loads the exact gaps
// around the view, and its analysis lists no gap, so the report the trace keeps serves it.
std::atomic<std::size_t> whole_gaps_steps_limit{GapWindows::kMaxSteps};
}  // namespace

std::size_t TraceSession::steps_starting_in(std::int64_t t0, std::int64_t t1) const {
  try {
    return steps_.starting_in(t0, t1);
  } catch (const std::exception&) {
    return 0;  // damage past the header: the background tasks find it too and report it
  }
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
  pending_check_ = r.check_later;
  start_check();
  if (r.report) {
    report_ = std::move(r.report);
    gaps_ = std::move(r.gaps);
    step_figures_ = std::move(r.steps);
    step_bars_ = std::move(r.bars);
    step_row_.input_pct = std::move(r.marks->input_pct);
    step_row_.input_bound = std::move(r.marks->input_bound);
    step_row_.bound_cum = std::move(r.marks->bound_cum);
    step_row_.high_cum = std::move(r.marks->high_cum);
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
  start_check();
}

void TraceSession::start_check() {
  // After the first look's reads (the summary and the report), which a cold file's pages would
  // otherwise share the disk with.
  if (!pending_check_ || !scan_handled_) return;
  const std::string file = path_.toStdString();
  const std::uint64_t sealed = *pending_check_;
  pending_check_.reset();
  check_.setFuture(QtConcurrent::run(
      &background_pool(), [file, sealed] { return analysis::events_unchanged(file, sealed); }));
}

void TraceSession::check_done() {
  if (check_handled_ || !check_.isFinished()) return;
  check_handled_ = true;
  const bool unchanged = check_.result();
  if (!unchanged) {
    // The report shown was kept for other events (edited since, or copied in): analysed afresh.
    analysis_handled_ = false;
    analysis_.setFuture(run_analysis(analysis::KeptCheck::afresh));
  }
  emit keptAnalysisChecked(unchanged);
}

void TraceSession::wait() {
  analysis_.waitForFinished();
  analysis_done();
  scan_.waitForFinished();
  summary_done_slot();
  // Whatever is shown or written waits for the kept analysis' check, and for the analysis that
  // replaces a kept one that failed it.
  if (check_.future().isValid()) {
    check_.waitForFinished();
    check_done();
    analysis_.waitForFinished();
    analysis_done();
  }
  scan_.waitForFinished();
  summary_done_slot();
}

}  // namespace ts::gui
