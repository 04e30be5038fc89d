// The viewer's window: tabs for the overview, timeline, kernels, pipeline, steps and compare
// pages; File → Open, recent files (QSettings), a file given on the command line or dropped on
// the window. The title names the file. A file that is not a readable trace gets a message box
// and leaves the window as it was. A trace still being captured is re-read as it grows.
#pragma once

#include <QMainWindow>
#include <QTabWidget>
#include <memory>

#include "gui/models/live_follower.hpp"
#include "gui/models/trace_opener.hpp"
#include "gui/models/trace_session.hpp"
#include "gui/models/trace_types.hpp"
#include "gui/widgets/compare/compare_page.hpp"
#include "gui/widgets/live_reloader.hpp"
#include "gui/widgets/overview/overview_page.hpp"
#include "gui/widgets/ranks/ranks_page.hpp"
#include "gui/widgets/tables/kernels_page.hpp"
#include "gui/widgets/tables/pipeline_page.hpp"
#include "gui/widgets/tables/steps_page.hpp"
#include "gui/widgets/timeline/timeline_page.hpp"

class QMenu;

namespace ts::gui {

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  enum class View { overview, timeline, kernels, pipeline, steps, compare, ranks };

  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Opens `path`. Returns an empty string on success, else the error, which is also shown in a
  // message box when `interactive` is set.
  QString open(const QString& path, bool interactive = true);
  // Which steps the analyses of the traces opened from now on cover (--steps, --skip-warmup).
  void set_analysis_options(const AnalysisOptions& options);
  // false: traces open without their analysis (the timeline of the events only).
  void set_analysis_enabled(bool enabled) { open_options_.analyse = enabled; }
  // How other tools' traces opened from now on are imported (--step-marker, --run).
  void set_import_options(const ImportOptions& options);
  TraceSession* session() const { return session_.get(); }
  void show_view(View v);
  // Opens step number `step` in the timeline.
  void open_step(std::int64_t step);
  // Opens the timeline on the instances of kernel `name` (from the Kernels table).
  void open_kernel(const QString& name);
  // Opens [start_ns, end_ns) of one rank (process) in the timeline, its lanes unfolded.
  void open_rank_steps(std::int64_t process, std::int64_t start_ns, std::int64_t end_ns);

  OverviewPage* overview() const { return overview_; }
  TimelinePage* timeline() const { return timeline_; }
  KernelsPage* kernels() const { return kernels_; }
  PipelinePage* pipeline() const { return pipeline_; }
  StepsPage* steps() const { return steps_; }
  ComparePage* compare() const { return compare_; }
  RanksPage* ranks() const { return ranks_; }
  LiveReloader* live() const { return live_; }
  // What the live reloads read; null while no reload of a capture still running has been made.
  const LiveFollower* follower() const { return follower_.get(); }
  QTabWidget* tabs() const { return tabs_; }

  static QStringList recent_files();

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void build_menus();
  void rebuild_recent_menu();
  void remember(const QString& path);
  void adopt(std::unique_ptr<TraceSession> session, bool keep_view);
  void report_ready();
  void reload_live();
  void adopt_pending();
  void error_box(const QString& title, const QString& message);
  void open_dialog();
  void compare_dialog();

  std::unique_ptr<TraceSession> session_;
  std::unique_ptr<TraceSession> pending_;   // live: the next reload, until its analysis is done
  std::unique_ptr<LiveFollower> follower_;  // live: what the reloads read
  QTabWidget* tabs_;
  OverviewPage* overview_;
  TimelinePage* timeline_;
  KernelsPage* kernels_;
  PipelinePage* pipeline_;
  StepsPage* steps_;
  ComparePage* compare_;
  RanksPage* ranks_;
  LiveReloader* live_;
  QMenu* recent_menu_ = nullptr;
  bool interactive_ = true;
  TraceOpenOptions open_options_;  // how traces opened from now on are opened
};

}  // namespace ts::gui
