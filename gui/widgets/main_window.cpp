#include "gui/widgets/main_window.hpp"

#include <QApplication>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>

#include "gui/models/gap_windows.hpp"
#include "gui/models/window_cache.hpp"

namespace ts::gui {

namespace {

constexpr int kRecentFiles = 8;
const char* const kRecentKey = "recentFiles";
const char* const kTraceFilter =
    "Traces (*.db *.sqlite *.trace *.json *.json.gz *.xplane.pb);;trainscope traces (*.db "
    "*.sqlite *.trace);;PyTorch / Chrome JSON traces (*.json *.json.gz);;TensorFlow profiles "
    "(*.xplane.pb);;All files (*)";

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      tabs_(new QTabWidget(this)),
      overview_(new OverviewPage(this)),
      timeline_(new TimelinePage(this)),
      kernels_(new KernelsPage(this)),
      pipeline_(new PipelinePage(this)),
      steps_(new StepsPage(this)),
      compare_(new ComparePage(this)),
      ranks_(new RanksPage(this)),
      live_(new LiveReloader(this)) {
  tabs_->setDocumentMode(true);
  tabs_->addTab(overview_, tr("Overview"));
  tabs_->addTab(timeline_, tr("Timeline"));
  tabs_->addTab(kernels_, tr("Kernels"));
  tabs_->addTab(pipeline_, tr("Pipeline"));
  tabs_->addTab(steps_, tr("Steps"));
  tabs_->addTab(compare_, tr("Compare"));
  tabs_->addTab(ranks_, tr("Ranks"));
  setCentralWidget(tabs_);
  setAcceptDrops(true);
  setWindowTitle(QStringLiteral("trainscope"));
  resize(1400, 900);
  build_menus();

  connect(overview_, &OverviewPage::stepActivated, this, &MainWindow::open_step);
  connect(steps_, &StepsPage::stepActivated, this, &MainWindow::open_step);
  connect(kernels_, &KernelsPage::kernelActivated, this, &MainWindow::open_kernel);
  connect(ranks_, &RanksPage::cellActivated, this, &MainWindow::open_rank_steps);
  connect(compare_, &ComparePage::openRequested, this, &MainWindow::compare_dialog);
  connect(compare_, &ComparePage::failed, this,
          [this](const QString& m) { error_box(tr("Cannot compare"), m); });
  connect(live_, &LiveReloader::changed, this, &MainWindow::reload_live);
}

MainWindow::~MainWindow() {
  // Pages hold raw pointers to the session: detach them before it goes.
  overview_->set_session(nullptr);
  timeline_->set_session(nullptr);
  compare_->set_session(nullptr);
  ranks_->set_report(nullptr, nullptr);
}

void MainWindow::build_menus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::open_dialog);
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  file->addAction(tr("&Compare with…"), this, &MainWindow::compare_dialog);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::closeAllWindows);
  QMenu* view = menuBar()->addMenu(tr("&View"));
  const std::pair<const char*, View> views[] = {
      {"&Overview", View::overview}, {"&Timeline", View::timeline}, {"&Kernels", View::kernels},
      {"&Pipeline", View::pipeline}, {"&Steps", View::steps},       {"&Compare", View::compare}};
  int key = Qt::Key_1;
  for (const auto& [name, v] : views) {
    const View target = v;
    view->addAction(tr(name), QKeySequence(Qt::CTRL | static_cast<Qt::Key>(key++)), this,
                    [this, target] { show_view(target); });
  }
  rebuild_recent_menu();
}

QStringList MainWindow::recent_files() {
  return QSettings().value(kRecentKey).toStringList();
}

void MainWindow::remember(const QString& path) {
  QStringList files = recent_files();
  const QString abs = QFileInfo(path).absoluteFilePath();
  files.removeAll(abs);
  files.prepend(abs);
  while (files.size() > kRecentFiles) files.removeLast();
  QSettings().setValue(kRecentKey, files);
  rebuild_recent_menu();
}

void MainWindow::rebuild_recent_menu() {
  recent_menu_->clear();
  const QStringList files = recent_files();
  for (const QString& f : files) recent_menu_->addAction(f, this, [this, f] { open(f); });
  recent_menu_->setEnabled(!files.isEmpty());
}

void MainWindow::error_box(const QString& title, const QString& message) {
  statusBar()->showMessage(message, 10000);
  if (!interactive_) return;
  // Window-modal and not exec()'d: the event loop (and the tests driving it) keep running.
  auto* box = new QMessageBox(QMessageBox::Critical, title, message, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

QString MainWindow::open(const QString& path, bool interactive) {
  interactive_ = interactive;
  OpenedTrace opened;
  try {
    opened = open_trace(path, open_options_);
  } catch (const std::exception& e) {
    const QString message = QString::fromStdString(e.what());
    error_box(tr("Cannot open trace"), message);
    return message;
  }
  adopt(std::move(opened.session), false);
  remember(path);
  setWindowTitle(QStringLiteral("%1 — trainscope").arg(QFileInfo(path).fileName()));
  setWindowFilePath(QFileInfo(path).absoluteFilePath());
  const bool capturing = opened.live();
  follower_ = std::move(opened.follower);
  live_->watch(session_->path(), capturing);
  if (opened.imported)
    statusBar()->showMessage(
        tr("Imported %1 into %2 (reused while %1 is unchanged)").arg(path, session_->path()),
        10000);
  return {};
}

void MainWindow::adopt(std::unique_ptr<TraceSession> session, bool keep_view) {
  std::unique_ptr<TraceSession> old = std::move(session_);
  session_ = std::move(session);
  TraceSession* s = session_.get();
  connect(s, &TraceSession::reportReady, this, &MainWindow::report_ready);
  connect(s, &TraceSession::backgroundFailed, this,
          [this](const QString& m) { error_box(tr("Cannot read the whole trace"), m); });
  connect(s, &TraceSession::keptAnalysisChecked, this, [this](bool unchanged) {
    if (!unchanged)
      statusBar()->showMessage(tr("The events are not those the analysis kept in the trace was "
                                  "made from: analysing them afresh"),
                               10000);
  });
  // A window the timeline asked for could not be read (a file damaged past its header): the
  // view keeps what it had; the status bar says why the detail is missing.
  const auto window_failed = [this](const QString& m) {
    statusBar()->showMessage(tr("Cannot load this part of the trace: %1").arg(m), 10000);
  };
  connect(&s->windows(), &WindowCache::failed, this, window_failed);
  if (GapWindows* gaps = s->gap_windows()) connect(gaps, &GapWindows::failed, this, window_failed);
  overview_->set_session(s);
  timeline_->set_session(s, keep_view);
  compare_->set_session(s);
  report_ready();
  old.reset();  // after the pages let go of it
}

void MainWindow::report_ready() {
  const Report* r = session_ ? session_->report() : nullptr;
  kernels_->set_report(r);
  pipeline_->set_report(r);
  steps_->set_steps(session_ ? session_->step_figures() : nullptr);
  ranks_->set_report(r, session_ ? session_->step_figures() : nullptr);
  // The Ranks tab only for a job of several ranks.
  tabs_->setTabVisible(static_cast<int>(View::ranks), r && r->ranks.size() >= 2);
}

void MainWindow::open_rank_steps(std::int64_t process, std::int64_t start_ns, std::int64_t end_ns) {
  show_view(View::timeline);
  timeline_->view()->show_process_range(process, start_ns, end_ns);
}

void MainWindow::reload_live() {
  if (!session_) return;
  if (!session_->analysis_finished() || !session_->summary_done()) {
    live_->retry();  // one reload at a time: the last one is still being read
    return;
  }
  if (pending_) {
    live_->retry();  // the last reload is still being analysed
    return;
  }
  const QString path = session_->path();
  try {
    pending_ = reload_capture(follower_, path, open_options_);
  } catch (const std::exception& e) {
    follower_.reset();  // the next reload opens the file afresh
    statusBar()->showMessage(tr("Live: %1").arg(QString::fromStdString(e.what())), 5000);
    live_->retry();  // caught mid-write: try again at the next poll
    return;
  }
  // The pages keep showing the last reload's figures until this one's analysis is done: never a
  // blank "Analysing…" page, and the idle lane does not come and go.
  connect(pending_.get(), &TraceSession::reportReady, this, &MainWindow::adopt_pending);
  connect(pending_.get(), &TraceSession::backgroundFailed, this, &MainWindow::adopt_pending);
  if (pending_->analysis_finished()) adopt_pending();
}

void MainWindow::set_analysis_options(const AnalysisOptions& options) {
  open_options_.analysis = options;
  compare_->set_analysis_options(options);
}

void MainWindow::set_import_options(const ImportOptions& options) {
  open_options_.import = options;
  compare_->set_import_options(options);
}

void MainWindow::adopt_pending() {
  if (!pending_ || !pending_->analysis_finished()) return;
  disconnect(pending_.get(), nullptr, this, nullptr);
  const bool still_live = still_capturing(*pending_);
  adopt(std::move(pending_), true);
  statusBar()->showMessage(tr("Live: %1 steps").arg(session_->steps().size()), 3000);
  if (!still_live) {
    live_->stop();
    follower_.reset();
  }
}

void MainWindow::show_view(View v) {
  tabs_->setCurrentIndex(static_cast<int>(v));
}

void MainWindow::open_step(std::int64_t step) {
  show_view(View::timeline);
  timeline_->view()->show_step(step);
}

void MainWindow::open_kernel(const QString& name) {
  show_view(View::timeline);
  if (!timeline_->show_instances(name))
    statusBar()->showMessage(tr("No instance of %1 in the part of the trace read so far").arg(name),
                             5000);
}

void MainWindow::open_dialog() {
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open trace"), QString(), tr(kTraceFilter));
  if (!path.isEmpty()) open(path);
}

void MainWindow::compare_dialog() {
  if (!session_) {
    error_box(tr("Cannot compare"), tr("Open a trace first, then compare it with a second one."));
    return;
  }
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Compare with trace"), QString(), tr(kTraceFilter));
  if (path.isEmpty()) return;
  show_view(View::compare);
  compare_->open_b(path);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasUrls() && e->mimeData()->urls().first().isLocalFile())
    e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
  const QList<QUrl> urls = e->mimeData()->urls();
  if (urls.isEmpty() || !urls.first().isLocalFile()) return;
  e->acceptProposedAction();
  open(urls.first().toLocalFile());
}

}  // namespace ts::gui
