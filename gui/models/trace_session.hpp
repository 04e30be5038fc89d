// One open trace, no window. Opening reads only what the first frame needs (tracks, and the steps
// in one pass that holds none of them: step_index.hpp; the timeline then asks where to open:
// initial_view.hpp) and throws store::Error naming the file
// when it is not a readable trace; the analysis (analysis::analyse) and the timeline's summary
// scan (summary_builder.hpp) then run on background threads, each with a Reader of its own, and
// signal when they are done. Event windows are loaded on demand (window_cache.hpp), on a thread
// of their own, so the initial view's window never waits for the scan.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "gui/models/gap_windows.hpp"
#include "gui/models/initial_view.hpp"
#include "gui/models/live_state.hpp"
#include "gui/models/packed_steps.hpp"
#include "gui/models/step_bars.hpp"
#include "gui/models/step_index.hpp"
#include "gui/models/timeline/timeline_data.hpp"
#include "gui/models/trace_summary.hpp"
#include "gui/models/window_cache.hpp"
#include "profiler/analysis/kept_report.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/store/reader.hpp"

namespace ts::gui {

class TraceSession : public QObject {
  Q_OBJECT

 public:
  // options: which steps the analysis covers (--steps, --skip-warmup), prices. analyse: false
  // opens the events only (no analysis runs: report() stays null, analysis_finished() is true).
  // snapshot: what every reader of the session reads in place of the file (a live reload's copy
  // of a capture still running, LiveFollower), or null. live: the analysis and summary of the
  // reloads of a capture still running (LiveFollower::state()), which read only what is new
  // since the last reload's; null: the trace's kept report or a whole analysis, the stored
  // overview or a scan.
  explicit TraceSession(const QString& path, const analysis::AnalysisOptions& options = {},
                        bool analyse = true,
                        std::shared_ptr<const store::Snapshot> snapshot = nullptr,
                        std::shared_ptr<LiveState> live = nullptr, QObject* parent = nullptr);
  const analysis::AnalysisOptions& options() const { return options_; }
  ~TraceSession() override;

  const QString& path() const { return path_; }
  // What the user opened when it is not path() itself: another tool's trace imported into
  // path() (a PyTorch trace, a TensorFlow profile). Empty otherwise.
  const QString& source() const { return source_; }
  void set_source(const QString& source) { source_ = source; }
  QString file_name() const;
  // The reader of the GUI thread (details, search, metadata). Not for other threads.
  const store::Reader& reader() const { return *reader_; }
  // The trace's steps, left in the file (step_index.hpp).
  const StepIndex& steps() const { return steps_; }
  // How many steps start in [t0, t1).
  std::size_t steps_starting_in(std::int64_t t0, std::int64_t t1) const;
  // The whole trace's step row (zones of several steps for a long trace: timeline_data.hpp),
  // marked with the report's figures once the analysis is done.
  const StepRow& step_row() const { return step_row_; }
  // The exact steps from the last one starting before t0 (it may reach into [t0, t1)) to t1,
  // read from the file, as a row of one zone per step marked with the report's figures once
  // the analysis is done (a view of a trace whose step_row() merges steps); an empty row when
  // the file no longer reads (the background tasks find that too, and report it).
  StepRow exact_step_row(std::int64_t t0, std::int64_t t1,
                         const std::vector<std::int64_t>& epochs) const;
  // The trace's time extent: the summary's once its scan has read it, the steps' before.
  std::pair<std::int64_t, std::int64_t> extent() const;
  // The first input-bound step, looking at the first kInputBoundSearchEvents events only
  // (initial_view.hpp; read on the first call, on the calling thread: the GUI's).
  std::optional<std::int64_t> first_input_bound_step() const;
  // Where the timeline opens: a few steps around that step, or from the first step the figures
  // cover (past the warm-up they leave out); nullopt (everything) for a trace without steps.
  std::optional<std::pair<std::int64_t, std::int64_t>> initial_range() const;
  // The time range showing the steps numbered numbers.first..numbers.second (read from the
  // file), with steps_time_range()'s margin (initial_view.hpp); nullopt when none is numbered so.
  std::optional<std::pair<std::int64_t, std::int64_t>> time_range_of_steps(
      std::pair<std::int64_t, std::int64_t> numbers) const;

  const TraceSummary& summary() const { return *summary_; }
  bool summary_done() const;
  WindowCache& windows() { return *windows_; }

  // The device's idle gaps as the timeline's idle lane draws them, made from the report's on the
  // analysis thread; the report's own list is then dropped (Report::device.gaps is empty). Empty
  // until the analysis is done. A trace of more than whole_gaps_steps() steps holds no gap: this
  // row has a zone per step with idle time (GapRow::per_step), and gap_windows() loads the gaps
  // of the steps around what the timeline shows (tens of millions of gaps at 100 M events).
  const std::shared_ptr<const GapRow>& gap_row() const { return gaps_; }
  // Null for a trace whose gaps gap_row() holds.
  GapWindows* gap_windows() const { return gap_windows_.get(); }
  // How many steps a trace may have for its sessions to hold every idle gap; tests and
  // benchmarks change it (sessions opened afterwards use the new value).
  static std::size_t whole_gaps_steps();
  static void set_whole_gaps_steps(std::size_t steps);

  // Null until the analysis is done (or when it failed: see analysis_error()). Its per-step list
  // is empty: step_figures() holds the per-step figures.
  const analysis::Report* report() const { return report_.get(); }
  // The report's per-step figures, packed (a 100 M-event trace has 2.2 M steps); empty until
  // the analysis is done. Shared with the models that show them.
  const std::shared_ptr<const PackedSteps>& step_figures() const { return step_figures_; }
  // The overview's step bars (step_bars.hpp) of those figures, made on the analysis thread;
  // empty until the analysis is done.
  const std::vector<StepBar>& step_bars() const { return step_bars_; }
  const QString& analysis_error() const { return analysis_error_; }
  bool analysis_finished() const {
    return !analyse_ || report_ != nullptr || !analysis_error_.isEmpty();
  }
  bool analyses() const { return analyse_; }

  // Blocks until the analysis and the summary scan are done, delivering their signals
  // (screenshots, tests, benchmarks).
  void wait();

 signals:
  void summaryProgress(double fraction);
  void summaryFinished();
  void reportReady();
  // A background task failed to read the file (it was damaged past its header).
  void backgroundFailed(const QString& message);
  // The events were checked against the kept analysis shown: unchanged, or not (a fresh
  // analysis is then under way, and reportReady comes again).
  void keptAnalysisChecked(bool unchanged);

 private:
  struct AnalysisResult {
    // Shared: the future keeps its own copy of the result, which must not be a second report.
    std::shared_ptr<analysis::Report> report;
    std::shared_ptr<const GapRow> gaps;
    std::shared_ptr<const PackedSteps> steps;
    std::vector<StepBar> bars;
    // step_row()'s marks (its input shares and input-bound flags), made on the analysis thread
    // from a copy of its step numbers: a pass over 2.2 M packed figures takes 0.12 s.
    std::shared_ptr<StepRow> marks;
    QString error;
    std::optional<std::uint64_t> check_later;  // a kept report whose events are not checked yet
  };
  QFuture<AnalysisResult> run_analysis(analysis::KeptCheck check);
  void analysis_done();
  void start_check();
  void check_done();
  void summary_done_slot();

  QString path_;
  QString source_;
  analysis::AnalysisOptions options_;
  bool analyse_ = true;
  std::unique_ptr<store::Reader> reader_;
  StepIndex steps_;
  // What the initial view needs of the steps, from the same pass.
  std::unique_ptr<OpeningSteps> opening_;
  StepRow step_row_;
  std::pair<std::int64_t, std::int64_t> steps_extent_{0, 0};
  mutable std::optional<std::optional<std::int64_t>> first_input_bound_;  // outer: looked yet
  std::shared_ptr<TraceSummary> summary_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  std::unique_ptr<WindowCache> windows_;
  std::unique_ptr<GapWindows> gap_windows_;
  std::shared_ptr<const store::Snapshot> snapshot_;
  std::shared_ptr<LiveState> live_;
  bool whole_gaps_ = true;
  QFutureWatcher<AnalysisResult> analysis_;
  QFutureWatcher<bool> check_;
  std::optional<std::uint64_t> pending_check_;  // the kept report's, until the first look is read
  QFutureWatcher<QString> scan_;
  std::shared_ptr<const analysis::Report> report_;
  std::shared_ptr<const PackedSteps> step_figures_ = std::make_shared<const PackedSteps>();
  std::vector<StepBar> step_bars_;
  std::shared_ptr<const GapRow> gaps_ = std::make_shared<const GapRow>();
  QString analysis_error_;
  bool analysis_handled_ = false, scan_handled_ = false, check_handled_ = false;
};

}  // namespace ts::gui
