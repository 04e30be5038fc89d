// Files: the window title, recent files, drag and drop; hostile files (garbage, truncated,
// empty, missing, a directory) get an error and never a crash; live mode shows new steps as a
// capture writes them; `trainscope-gui --screenshot` writes a PNG of the requested size, and
// exits 2 with one line on stderr for a bad file or bad usage.
#include <QImage>
#include <QMessageBox>
#include <QMimeData>
#include <QProcess>
#include <QStatusBar>
#include <QtTest>
#include <set>

#include "gui/models/event_search.hpp"
#include "gui/models/format.hpp"
#include "gui/widgets/main_window.hpp"
#include "gui_test_util.hpp"
#include "profiler/store/writer.hpp"
#include "profiler/synth/kineto_job.hpp"

using namespace ts::gui;

namespace {

void write_file(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  f.write(bytes);
}

QMessageBox* message_box(QWidget* parent) {
  for (QMessageBox* box : parent->findChildren<QMessageBox*>())
    if (box->isVisible()) return box;
  return nullptr;
}

struct Run {
  int code = -1;
  QByteArray err;
  QByteArray out;
};

// display false: as on a terminal without any (no platform named, no X or Wayland display).
Run gui(const QStringList& args, bool display = true) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  if (display) {
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  } else {
    for (const char* name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"})
      env.remove(QString::fromLatin1(name));
  }
  p.setProcessEnvironment(env);
  p.start(QStringLiteral(TS_GUI_BINARY), args);
  if (!p.waitForFinished(120000)) return {};
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardError(),
          p.readAllStandardOutput()};
}

// stderr without Qt's own platform chatter.
QStringList error_lines(const QByteArray& err) {
  QStringList out;
  for (const QString& l : QString::fromUtf8(err).split('\n', Qt::SkipEmptyParts))
    if (l.startsWith(QStringLiteral("trainscope-gui:"))) out << l;
  return out;
}

}  // namespace

class TestFiles : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  QString good_;

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QVERIFY(dir_.isValid());
    good_ = test::synth_trace(dir_, 20000);
  }

  void title_names_the_file_and_recent_files_remember_it() {
    MainWindow w;
    QCOMPARE(w.open(good_), QString());
    QVERIFY(w.windowTitle().startsWith(QFileInfo(good_).fileName()));
    QCOMPARE(MainWindow::recent_files().value(0), QFileInfo(good_).absoluteFilePath());
    w.session()->wait();
  }

  void hostile_files_are_refused_without_a_crash_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("words");  // part of the message
    std::mt19937 rng(3);
    QByteArray garbage(64 * 1024, '\0');
    for (char& c : garbage) c = static_cast<char>(rng());
    write_file(dir_.filePath(QStringLiteral("garbage.db")), garbage);
    QFile good(good_);
    QVERIFY(good.open(QIODevice::ReadOnly));
    const QByteArray whole = good.readAll();
    write_file(dir_.filePath(QStringLiteral("truncated.db")), whole.left(whole.size() / 2));
    write_file(dir_.filePath(QStringLiteral("empty.db")), {});
    QByteArray header_only = whole.left(100);
    write_file(dir_.filePath(QStringLiteral("header.db")), header_only);
    QByteArray sqlite_text = "SQLite format 3";
    sqlite_text.append('\0');
    sqlite_text.append(garbage.left(8000));
    write_file(dir_.filePath(QStringLiteral("fake_sqlite.db")), sqlite_text);
    QTest::newRow("garbage") << dir_.filePath(QStringLiteral("garbage.db"))
                             << QStringLiteral("not");
    QTest::newRow("truncated") << dir_.filePath(QStringLiteral("truncated.db"))
                               << QStringLiteral("truncated");
    QTest::newRow("empty") << dir_.filePath(QStringLiteral("empty.db")) << QString();
    QTest::newRow("header only") << dir_.filePath(QStringLiteral("header.db")) << QString();
    QTest::newRow("fake sqlite") << dir_.filePath(QStringLiteral("fake_sqlite.db")) << QString();
    write_file(dir_.filePath(QStringLiteral("page.json")), "<!DOCTYPE html><html></html>\n");
    QTest::newRow("html named .json")
        << dir_.filePath(QStringLiteral("page.json"))
        << QStringLiteral("page.json is not a JSON trace (it starts with '<!DOCTYPE html>");
    QTest::newRow("missing") << dir_.filePath(QStringLiteral("missing.db"))
                             << QStringLiteral("missing.db");
    QTest::newRow("directory") << dir_.path() << QString();
  }

  void hostile_files_are_refused_without_a_crash() {
    QFETCH(QString, path);
    QFETCH(QString, words);
    MainWindow w;
    w.show();
    const QString title = w.windowTitle();
    const QString error = w.open(path);
    QVERIFY2(!error.isEmpty(), qPrintable(path));
    QVERIFY2(error.contains(words, Qt::CaseInsensitive), qPrintable(error));
    QMessageBox* box = message_box(&w);
    QVERIFY(box);
    QCOMPARE(box->text(), error);
    QCOMPARE(w.windowTitle(), title);
    QVERIFY(!w.session());
    box->accept();
    // The window still works: a good file opens after the bad one.
    QCOMPARE(w.open(good_), QString());
    w.session()->wait();
    QVERIFY(w.session()->report());
  }

  void a_trace_damaged_past_its_header_reports_and_survives() {
    // Intact header and schema, damaged event pages: opening may work; reading fails later.
    QFile good(good_);
    QVERIFY(good.open(QIODevice::ReadOnly));
    QByteArray bytes = good.readAll();
    for (qsizetype i = bytes.size() / 3; i < bytes.size(); i += 97)
      bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
    const QString path = dir_.filePath(QStringLiteral("damaged.db"));
    write_file(path, bytes);
    MainWindow w;
    w.show();
    const QString error = w.open(path);
    if (!error.isEmpty()) return;  // refused at once: also fine
    w.session()->wait();
    QApplication::processEvents();
    QVERIFY(w.session()->report() || !w.session()->analysis_error().isEmpty());
    w.timeline()->view()->show_all();
    w.timeline()->view()->build_frame();  // draws what could be read
  }

  void a_failed_window_load_is_said_in_the_status_bar() {
    MainWindow w;
    QCOMPARE(w.open(good_, false), QString());
    emit w.session()->windows().failed(QStringLiteral("database disk image is malformed"));
    QVERIFY(w.statusBar()->currentMessage().contains(QStringLiteral("disk image is malformed")));
  }

  void an_empty_trace_opens() {
    const QString path = dir_.filePath(QStringLiteral("empty_trace.db"));
    {
      ts::store::Writer writer(path.toStdString());
      writer.put_track(1, "trainer", ts::trace::TrackKind::thread);
      writer.finish();
    }
    MainWindow w;
    w.show();
    QCOMPARE(w.open(path), QString());
    w.session()->wait();
    QVERIFY(w.session()->steps().empty());
    QVERIFY(!w.overview()->verdict_text().isEmpty());
    w.show_view(MainWindow::View::timeline);
    w.timeline()->view()->show_all();
    const DrawList list = w.timeline()->view()->build_frame();
    QCOMPARE(list.events_shown, std::size_t{0});
    QVERIFY(w.timeline()->view()->grab().width() > 0);
  }

  void dropping_a_file_opens_it() {
    MainWindow w;
    auto* mime = new QMimeData;
    mime->setUrls({QUrl::fromLocalFile(good_)});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &drop);
    QVERIFY(w.session());
    QCOMPARE(w.session()->path(), good_);
    w.session()->wait();
    delete mime;
  }

  void compare_shows_the_diff() {
    MainWindow w;
    QCOMPARE(w.open(good_), QString());
    w.session()->wait();
    const QString b = test::synth_trace(dir_, 30000, 0.0, QStringLiteral("b.db"));
    QVERIFY(w.compare()->open_b(b));
    w.compare()->wait();
    QVERIFY(w.compare()->has_diff());
    QVERIFY(w.compare()->figures()->rowCount() > 10);
    QVERIFY(w.compare()->kernels()->rowCount() > 0);
    QSignalSpy failed(w.compare(), &ComparePage::failed);
    QVERIFY(!w.compare()->open_b(dir_.filePath(QStringLiteral("missing.db"))));
    QCOMPARE(failed.count(), 1);
  }

  // Another tool's trace opens through the import cache: a PyTorch trace and a directory of
  // per-rank traces, whose lanes are grouped and labelled by rank; compare takes one too.
  void pytorch_traces_open_through_the_import_cache() {
    const QString data = QStringLiteral(TS_SOURCE_DIR "/tests/data/pytorch/");
    const QString bound = dir_.filePath(QStringLiteral("input_bound.pt.trace.json.gz"));
    const QString tuned = dir_.filePath(QStringLiteral("tuned.pt.trace.json.gz"));
    QVERIFY(QFile::copy(data + QStringLiteral("input_bound.pt.trace.json.gz"), bound));
    QVERIFY(QFile::copy(data + QStringLiteral("tuned.pt.trace.json.gz"), tuned));
    MainWindow w;
    QCOMPARE(w.open(bound), QString());
    QVERIFY(QFileInfo::exists(bound + QStringLiteral(".trainscope.db")));
    QVERIFY(w.windowTitle().startsWith(QStringLiteral("input_bound.pt.trace.json.gz")));
    w.session()->wait();
    QVERIFY(w.session()->report());
    QCOMPARE(w.session()->report()->verdict, ts::analysis::Verdict::high);
    QCOMPARE(w.session()->steps().size(), std::size_t{10});
    // The step markers share one label ("ProfilerStep#"): a search finds one by its full name.
    const ts::store::Reader& reader = w.session()->reader();
    const std::int64_t wanted = reader.steps().at(3).step;
    for (const QString& query :
         {QStringLiteral("ProfilerStep#%1").arg(wanted), QStringLiteral("step#%1").arg(wanted)}) {
      EventSearch search;
      w.session()->summary().read(
          [&](const SummaryData& d) { search.set_query(query, d, &reader); });
      QCOMPARE(search.matches(), std::uint64_t{1});
      const auto found = search.step(reader, std::numeric_limits<std::int64_t>::min(), 0, true);
      QVERIFY(found.has_value());
      QCOMPARE(reader.full_name(*found),
               QStringLiteral("ProfilerStep#%1").arg(wanted).toStdString());
      QCOMPARE(search.ordinal(reader, *found), std::uint64_t{1});
      QVERIFY(!search.step(reader, found->start_ns, found->track, true).has_value());
    }
    // "#1" takes the numbers starting with 1, "1" those holding a 1 anywhere: as many matches as
    // the step list has such steps (10 and 11 here).
    const auto count_steps = [&](auto&& take) {
      std::uint64_t n = 0;
      for (const ts::store::Step& st : reader.steps()) n += take(std::to_string(st.step));
      return n;
    };
    QVERIFY(count_steps([](const std::string& n) { return n.starts_with('1'); }) > 0);
    for (const auto& [query, want] :
         {std::pair{QStringLiteral("#1"),
                    count_steps([](const std::string& n) { return n.starts_with('1'); })},
          std::pair{QStringLiteral("1"), count_steps([](const std::string& n) {
                      return n.find('1') != std::string::npos;
                    })},
          std::pair{QStringLiteral("#01"), std::uint64_t{0}}}) {  // no number has a leading 0
      EventSearch search;
      w.session()->summary().read(
          [&](const SummaryData& d) { search.set_query(query, d, &reader); });
      QCOMPARE(search.matches(), want);
    }
    QVERIFY(w.compare()->open_b(tuned));
    w.compare()->wait();
    QVERIFY(w.compare()->has_diff());
    QCOMPARE(w.compare()->diff()->verdict_b, ts::analysis::Verdict::none);

    const QString ranks = dir_.filePath(QStringLiteral("two_ranks"));
    QVERIFY(QDir().mkpath(ranks));
    for (const QString& f :
         {QStringLiteral("rank0.pt.trace.json.gz"), QStringLiteral("rank1.pt.trace.json.gz")})
      QVERIFY(
          QFile::copy(data + QStringLiteral("two_ranks/") + f, ranks + QStringLiteral("/") + f));
    QCOMPARE(w.open(ranks), QString());
    w.session()->wait();
    QCOMPARE(w.session()->report()->ranks.size(), std::size_t{2});
    QCOMPARE(w.session()->reader().processes().size(), std::size_t{2});
    w.show_view(MainWindow::View::timeline);
    w.timeline()->view()->build_frame();
    QStringList titles;
    for (const Lane& l : w.timeline()->view()->layout().lanes()) titles << l.title;
    QVERIFY2(titles.filter(QStringLiteral("r0 · ")).size() >= 1, qPrintable(titles.join(',')));
    QVERIFY2(titles.filter(QStringLiteral("r1 · ")).size() >= 1, qPrintable(titles.join(',')));
    // Rank 0's lanes all come before rank 1's.
    const int last_r0 =
        static_cast<int>(titles.lastIndexOf(QRegularExpression(QStringLiteral("r0 · .*"))));
    const int first_r1 =
        static_cast<int>(titles.indexOf(QRegularExpression(QStringLiteral("r1 · .*"))));
    QVERIFY2(last_r0 < first_r1, qPrintable(titles.join(QStringLiteral(" | "))));
    // Each rank's lanes sit under a group header that folds them.
    const std::int64_t rank0 = w.session()->reader().processes().front().id;
    w.timeline()->view()->toggle_group(LaneLayout::process_group(rank0));
    w.timeline()->view()->build_frame();
    titles.clear();
    for (const Lane& l : w.timeline()->view()->layout().lanes()) titles << l.title;
    QVERIFY2(titles.filter(QStringLiteral("r0 · ")).isEmpty(), qPrintable(titles.join(',')));
    QVERIFY2(titles.filter(QStringLiteral("lanes folded")).size() == 1,
             qPrintable(titles.join(',')));
    QVERIFY(!titles.filter(QStringLiteral("r1 · ")).isEmpty());
    w.timeline()->view()->toggle_group(LaneLayout::process_group(rank0));
    w.timeline()->view()->build_frame();
    titles.clear();
    for (const Lane& l : w.timeline()->view()->layout().lanes()) titles << l.title;
    QVERIFY(!titles.filter(QStringLiteral("r0 · ")).isEmpty());

    const QString notes = dir_.filePath(QStringLiteral("notes.json"));
    write_file(notes, "not a trace");
    QVERIFY(!w.open(notes, false).isEmpty());
  }

  // A Kernels row leads to the kernel's instances: double-clicking it opens the timeline on the
  // first instance from the view's start, "instance i of N" over the whole trace, and the
  // search bar's arrows step through the others.
  // A job of six ranks: its lanes open folded (above four ranks), the Ranks tab's heat map names
  // the slow rank, a click on one of its cells opens its steps in the timeline with its lanes
  // unfolded, and the rank filter lays out only the ranks it names.
  void many_ranks_open_folded_with_a_heat_map_that_leads_to_a_rank() {
    const QString path = dir_.filePath(QStringLiteral("ranks.db"));
    test::write_ranks_trace(path, 6, 12, 2);
    MainWindow w;
    w.resize(1400, 900);
    QCOMPARE(w.open(path, false), QString());
    w.session()->wait();
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    TimelineView* view = w.timeline()->view();
    QCOMPARE(view->groups().collapsed.size(), std::size_t{6});

    w.show_view(MainWindow::View::ranks);
    const RankHeatmap& map = w.ranks()->view()->heatmap();
    QCOMPARE(map.ranks.size(), std::size_t{6});
    QCOMPARE(map.columns, std::size_t{12});
    QVERIFY(slowest_rank_line(map).contains(QStringLiteral("r2")));
    QCOMPARE(map.value(2, 5), 2.0);
    QCOMPARE(map.value(0, 5), 1.0);

    // Rank 2's step 5, clicked.
    const QRectF cells = w.ranks()->view()->cells_rect();
    const QPoint at(static_cast<int>(cells.left() + (5.5 / 12) * cells.width()),
                    static_cast<int>(cells.top() + (2.5 / 6) * cells.height()));
    QCOMPARE(w.ranks()->view()->cell_at(at), std::make_pair(2, 5));
    QTest::mouseClick(w.ranks()->view(), Qt::LeftButton, {}, at);
    QCOMPARE(w.tabs()->currentWidget(), static_cast<QWidget*>(w.timeline()));
    const std::int64_t start = 1'000'000'000 + 5 * 2'000'000;
    QVERIFY(view->mapping().view_begin() <= start);
    QVERIFY(view->mapping().view_end() >= start + 2'000'000);
    QCOMPARE(view->groups().collapsed.size(), std::size_t{5});  // rank 2's unfolded
    QVERIFY(!view->groups().collapsed.count(LaneLayout::process_group(3)));

    QVERIFY(view->set_rank_filter(QStringLiteral("0-1, 4")));
    view->build_frame();
    std::set<std::int64_t> shown;
    for (const Lane& l : view->layout().lanes())
      if (l.kind == LaneKind::group) shown.insert(l.process);
    QCOMPARE(shown, (std::set<std::int64_t>{1, 2, 5}));
    QVERIFY(!view->set_rank_filter(QStringLiteral("two")));  // kept as it was
    QVERIFY(view->set_rank_filter(QString()));
    view->build_frame();
    shown.clear();
    for (const Lane& l : view->layout().lanes())
      if (l.kind == LaneKind::group) shown.insert(l.process);
    QCOMPARE(shown.size(), std::size_t{6});
  }

  // A Kineto job of 16 ranks with a straggler (r1) and a slow-input rank (r2), imported from its
  // directory: the Ranks tab lists both as holding the job back, with their causes; the first is
  // outlined in the heat map, a click on the other's row outlines its row instead, and a
  // double-click opens its slowest step in the timeline.
  void a_job_names_the_ranks_that_hold_it_back() {
    const QString dir = dir_.filePath(QStringLiteral("job16"));
    ts::synth::KinetoJobOptions options;
    options.ranks = 16;
    options.steps = 10;
    options.threads = 1;
    ts::synth::write_kineto_job(dir.toStdString(), options);
    MainWindow w;
    w.resize(1400, 900);
    QCOMPARE(w.open(dir, false), QString());
    w.session()->wait();
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.show_view(MainWindow::View::ranks);
    RanksPage* page = w.ranks();
    const HoldingBackModel& holding = page->holding_back();
    QCOMPARE(holding.rowCount(), 2);
    QCOMPARE(holding.index(0, HoldingBackModel::Rank).data().toString(), QStringLiteral("r1"));
    QCOMPARE(holding.index(0, HoldingBackModel::Cause).data().toString(),
             QStringLiteral("device compute"));
    QCOMPARE(holding.index(1, HoldingBackModel::Rank).data().toString(), QStringLiteral("r2"));
    QCOMPARE(holding.index(1, HoldingBackModel::Cause).data().toString(), QStringLiteral("input"));
    QVERIFY(holding.index(0, HoldingBackModel::Wait).data(SortRole).toDouble() > 0);
    QCOMPARE(page->spread_table()->model()->rowCount(), 3);
    QCOMPARE(page->view()->selected_rank(), 1);

    QTableView* table = page->holding_table();
    const QModelIndex second = table->model()->index(1, HoldingBackModel::Cause);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(second).center());
    QCOMPARE(page->view()->selected_rank(), 2);
    QCOMPARE(w.tabs()->currentWidget(), static_cast<QWidget*>(page));
    QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(second).center());
    QCOMPARE(w.tabs()->currentWidget(), static_cast<QWidget*>(w.timeline()));
    const RankHeatmap& map = page->view()->heatmap();
    const auto slowest = slowest_column(map, 2);
    QVERIFY(slowest.has_value());
    const TimelineView* view = w.timeline()->view();
    QVERIFY(view->mapping().view_begin() <= map.start_ns[map.at(2, *slowest)]);
    QVERIFY(view->mapping().view_end() >= map.end_ns[map.at(2, *slowest)]);
  }

  void a_kernel_row_leads_to_its_instances() {
    MainWindow w;
    w.resize(1400, 900);
    QCOMPARE(w.open(good_, false), QString());
    w.session()->wait();
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.show_view(MainWindow::View::kernels);
    QTableView* table = w.kernels()->table();
    QVERIFY(table->model()->rowCount() > 0);
    const QModelIndex row = table->model()->index(0, KernelModel::Count);
    const QString name = row.data(KernelModel::KernelNameRole).toString();
    table->scrollTo(row);
    const QPoint at = table->visualRect(row).center();
    QTest::mouseClick(table->viewport(), Qt::LeftButton, Qt::NoModifier, at);
    QTest::mouseDClick(table->viewport(), Qt::LeftButton, Qt::NoModifier, at);
    QCOMPARE(w.tabs()->currentIndex(), static_cast<int>(MainWindow::View::timeline));
    TimelinePage* page = w.timeline();
    const Selection first = page->view()->selection();
    QCOMPARE(first.kind, Selection::Kind::event);
    const ts::store::Reader& r = w.session()->reader();
    QCOMPARE(QString::fromStdString(r.label(first.label).name), name);
    // N: every kernel event of that name in the trace, warm-up included; i: those before it.
    std::uint64_t n = 0, before = 0;
    const auto range = r.time_range();
    for (const auto& e : r.events(range.start_ns, range.end_ns + 1)) {
      const ts::store::Label& l = r.label(e.label);
      if (QString::fromStdString(l.name) != name || l.category != ts::trace::Category::kernel)
        continue;
      ++n;
      before +=
          e.start_ns < first.start_ns || (e.start_ns == first.start_ns && e.track < first.track);
    }
    QVERIFY(n >= static_cast<std::uint64_t>(row.data(KernelModel::KernelSortRole).toLongLong()));
    QCOMPARE(page->matches_text(), QStringLiteral("instance %1 of %2")
                                       .arg(before + 1)
                                       .arg(format_count(static_cast<std::int64_t>(n))));
    QVERIFY(page->view()->mapping().view_begin() <= first.start_ns);
    QVERIFY(page->view()->mapping().view_end() >= first.end_ns);
    QVERIFY(page->find_next(true));
    QVERIFY(page->view()->selection().start_ns >= first.start_ns);
    QCOMPARE(page->view()->selection().label, first.label);
    QCOMPARE(page->current_match(), before + 2);
    // An unknown kernel leaves the view as it was.
    const Selection now = page->view()->selection();
    QVERIFY(!page->show_instances(QStringLiteral("no kernel has this name")));
    QCOMPARE(page->view()->selection(), now);
  }

  void live_trace_shows_new_steps_data() {
    QTest::addColumn<bool>("staged");
    QTest::newRow("indexed as written") << false;
    QTest::newRow("staged, as a capture writes") << true;
  }

  void live_trace_shows_new_steps() {
    QFETCH(bool, staged);
    const QString path = dir_.filePath(QStringLiteral("live.db"));
    ts::store::WriterOptions options;
    options.staged = staged;
    ts::store::Writer writer(path.toStdString(), options);
    test::put_step_and_kernel(writer, "kernel", "trainer", "compute");
    std::int64_t t = 1'000'000;
    std::int64_t step = 0;
    int commits = 0;
    const auto add_steps = [&](int n) {
      std::vector<ts::store::EventRow> rows;
      for (int i = 0; i < n; ++i, ++step, t += 1'000'000) {
        rows.push_back({t, 900'000, 1, 1, step});
        rows.push_back({t + 100'000, 500'000, 2, 2, step});
      }
      writer.append(std::span<const ts::store::EventRow>(rows));
      writer.commit();
      ++commits;
    };
    add_steps(5);
    MainWindow w;
    QCOMPARE(w.open(path, false), QString());
    QVERIFY(w.live()->active());  // no capture.end_ns: still being written
    QCOMPARE(w.session()->steps().size(), std::size_t{5});
    w.live()->set_interval_ms(50);
    w.session()->wait();
    TimelineView* view = w.timeline()->view();
    view->show_all();  // looking at the end: the view follows new steps
    add_steps(4);
    QTRY_COMPARE_WITH_TIMEOUT(w.session()->steps().size(), std::size_t{9}, 10000);
    add_steps(3);
    QTRY_COMPARE_WITH_TIMEOUT(w.session()->steps().size(), std::size_t{12}, 10000);
    // A reload is adopted only once analysed: the pages never go blank.
    QVERIFY(w.session()->report() != nullptr);
    QCOMPARE(view->mapping().view_end(), view->mapping().extent_end());
    if (staged) {
      // The reloads read one reader of the file, opened once, that indexed each block once;
      // the sessions read its snapshots.
      QVERIFY(w.follower() != nullptr);
      QCOMPARE(w.follower()->opens(), 1);
      QCOMPARE(w.follower()->blocks_indexed(), static_cast<std::uint64_t>(commits));
      QVERIFY(w.session()->reader().snapshot() != nullptr);
    }
    writer.put_meta("capture.end_ns", std::to_string(t));
    writer.finish();
    QTRY_VERIFY_WITH_TIMEOUT(!w.live()->active(), 10000);
    w.session()->wait();
    QCOMPARE(w.session()->report()->whole_run.steps, 12);
    QVERIFY(w.session()->reader().snapshot() == nullptr);  // the finished file itself
    QVERIFY(w.follower() == nullptr);
  }

  void screenshot_writes_a_png_of_each_view_data() {
    QTest::addColumn<QString>("view");
    for (const char* v : {"overview", "timeline", "kernels", "pipeline"})
      QTest::newRow(v) << QString::fromLatin1(v);
  }

  void screenshot_writes_a_png_of_each_view() {
    QFETCH(QString, view);
    const QString out = dir_.filePath(view + QStringLiteral(".png"));
    const Run r = gui({good_, QStringLiteral("--screenshot"), out, QStringLiteral("--view"), view,
                       QStringLiteral("--size"), QStringLiteral("1200x800")});
    QCOMPARE(r.code, 0);
    const QImage img(out);
    QVERIFY(!img.isNull());
    QCOMPARE(img.size(), QSize(1200, 800));
    QVERIFY(QFileInfo(out).size() > 10000);  // a picture, not a blank page
  }

  // --window picks the timeline's time window: the whole trace, or milliseconds from its start;
  // a good screenshot says nothing on stderr (no Qt platform notes).
  void screenshot_window_all_or_a_range() {
    const QString all = dir_.filePath(QStringLiteral("all.png"));
    const QString part = dir_.filePath(QStringLiteral("part.png"));
    const QStringList common{good_, QStringLiteral("--view"), QStringLiteral("timeline"),
                             QStringLiteral("--size"), QStringLiteral("1200x800")};
    const Run a = gui(common + QStringList{QStringLiteral("--window"), QStringLiteral("all"),
                                           QStringLiteral("--screenshot"), all});
    QCOMPARE(a.code, 0);
    QVERIFY2(a.err.isEmpty(), a.err.constData());
    const Run p = gui(common + QStringList{QStringLiteral("--window"), QStringLiteral("0.5:1.25"),
                                           QStringLiteral("--screenshot"), part});
    QCOMPARE(p.code, 0);
    QVERIFY(QImage(all) != QImage(part));
    for (const char* bad : {"2:1", "later", "1:"}) {
      const Run r = gui(common + QStringList{QStringLiteral("--window"), QString::fromLatin1(bad),
                                             QStringLiteral("--screenshot"), part});
      QCOMPARE(r.code, 2);
      QCOMPARE(error_lines(r.err).size(), 1);
    }
  }

  void screenshot_of_a_bad_file_fails_in_one_line() {
    write_file(dir_.filePath(QStringLiteral("bad.db")), QByteArray("hello, I am not a trace"));
    const QString out = dir_.filePath(QStringLiteral("bad.png"));
    const Run r =
        gui({dir_.filePath(QStringLiteral("bad.db")), QStringLiteral("--screenshot"), out});
    QCOMPARE(r.code, 2);
    QCOMPARE(error_lines(r.err).size(), 1);
    QVERIFY(error_lines(r.err).front().contains(QStringLiteral("bad.db")));
    QVERIFY(!QFile::exists(out));
    const Run usage = gui({good_, QStringLiteral("--screenshot"), out, QStringLiteral("--view"),
                           QStringLiteral("sideways")});
    QCOMPARE(usage.code, 2);
    QCOMPARE(error_lines(usage.err).size(), 1);
  }

  // The command line is answered before the viewer needs a display: help and the version on
  // stdout (exit 0), bad usage in one line on stderr (exit 2), never an abort.
  void help_version_and_bad_usage_need_no_display() {
    for (const QString& help : {QStringLiteral("--help"), QStringLiteral("-h")}) {
      const Run r = gui({help}, false);
      QCOMPARE(r.code, 0);
      QVERIFY2(r.out.startsWith("Usage: trainscope-gui [options] [FILE]"), r.out.constData());
      QVERIFY(r.out.contains("--screenshot <OUT.png>"));
      QVERIFY(r.out.contains("--steps <A-B>"));
    }
    const Run version = gui({QStringLiteral("--version")}, false);
    QCOMPARE(version.code, 0);
    QCOMPARE(version.out.trimmed(), QByteArray("trainscope-gui 0.1.0"));
    for (const QStringList& bad :
         {QStringList{QStringLiteral("--no-such-flag")},
          QStringList{QStringLiteral("a.db"), QStringLiteral("b.db")},
          QStringList{QStringLiteral("a.db"), QStringLiteral("--view"), QStringLiteral("sideways")},
          QStringList{QStringLiteral("a.db"), QStringLiteral("--steps"), QStringLiteral("9-2")}}) {
      const Run r = gui(bad, false);
      QCOMPARE(r.code, 2);
      QCOMPARE(error_lines(r.err).size(), 1);
      QVERIFY(r.out.isEmpty());
    }
  }
};

QTEST_MAIN(TestFiles)
#include "test_files.moc"
