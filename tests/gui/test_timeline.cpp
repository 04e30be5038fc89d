// The timeline widget: what a frame draws (input-bound steps marked, idle gaps with their cause,
// merged blocks with counts), keyboard and wheel navigation, selection with its details, search.
#include <QLineEdit>
#include <QtTest>
#include <optional>
#include <set>

#include "gui/widgets/timeline/timeline_page.hpp"
#include "gui_test_util.hpp"

using namespace ts::gui;

namespace {

struct Opened {
  std::unique_ptr<TraceSession> session;
  std::unique_ptr<TimelinePage> page;
};

Opened open(const QString& path) {
  Opened o;
  o.session = std::make_unique<TraceSession>(path);
  o.session->wait();
  o.page = std::make_unique<TimelinePage>();
  o.page->resize(1400, 800);
  o.page->set_session(o.session.get());
  o.page->show();
  if (!QTest::qWaitForWindowExposed(o.page.get())) qWarning("the page was never exposed");
  return o;
}

// Builds a frame once the exact window it asks for has arrived.
DrawList frame(Opened& o) {
  o.page->view()->build_frame();
  o.session->windows().wait();
  return o.page->view()->build_frame();
}

}  // namespace

class TestTimeline : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  QString synth_, rare_;

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    synth_ = test::synth_trace(dir_, 40000, 0.5);
    rare_ = test::synth_trace(dir_, 40000, 0.02, QStringLiteral("rare.db"));
  }

  // The first frame is complete without the summary: the view opens on a few steps around the
  // first input-bound step and draws every lane from that window's exact events.
  void opens_on_the_first_input_bound_step_from_the_exact_window() {
    for (const QString& path : {rare_, synth_}) {
      auto session = std::make_unique<TraceSession>(path);  // no wait(): nothing is scanned yet
      TimelinePage page;
      page.resize(1400, 800);
      page.set_session(session.get());
      page.show();  // lays the page out: every lane in sight
      QVERIFY(QTest::qWaitForWindowExposed(&page));
      TimelineView* v = page.view();
      const TimeMapping m = v->mapping();
      QVERIFY(!m.shows_all());
      QVERIFY(session->initial_range());
      session->windows().wait();  // requested at set_session, before any paint
      const DrawList list = v->build_frame();
      QVERIFY(list.used_window);  // not the summary
      const EventWindow* w = session->windows().find(m.view_begin(), m.view_end());
      QVERIFY(w);
      // Exactly the reader's events of the view, on every track lane.
      const ts::store::Reader reader(path.toStdString());
      std::set<std::uint32_t> tracks_with_events;
      std::size_t in_view = 0;
      for (const auto& e : reader.events(m.view_begin(), m.view_end())) {
        if (reader.track(e.track)->kind == ts::trace::TrackKind::counter) continue;
        ++in_view;
        tracks_with_events.insert(e.track);
      }
      QVERIFY(in_view > 0);
      QCOMPARE(list.events_shown, in_view);
      for (const ts::store::Track& t : reader.tracks()) {
        if (t.kind == ts::trace::TrackKind::counter) {
          QVERIFY(w->counter_of(t.id) && !w->counter_of(t.id)->empty());
        } else {
          QVERIFY2(tracks_with_events.count(t.id), t.name.c_str());  // a lane left empty
        }
      }
      QVERIFY(!list.lines.empty());  // the counter lane, from the window's samples

      // Where: the first input-bound step as the analysis finds it, with a little context.
      session->wait();
      const ts::analysis::Report* r = session->report();
      QVERIFY(r);
      std::size_t index = 0;
      while (index < r->per_step.size() && !r->per_step[index].input_bound) ++index;
      QVERIFY(index < r->per_step.size());
      if (path == rare_) QVERIFY(index >= 4);  // not merely the first steps
      const ts::analysis::StepSummary& st = r->per_step[index];
      QCOMPARE(session->first_input_bound_step(), std::optional<std::int64_t>(st.step));
      QVERIFY(m.view_begin() <= st.start_ns);
      QVERIFY(m.view_end() >= st.start_ns + st.dur_ns);
      std::int64_t longest = 0;
      for (const auto& s : r->per_step) longest = std::max(longest, s.dur_ns);
      QVERIFY(m.view_span_ns() <= 4.2 * static_cast<double>(longest));
      QVERIFY(m.view_span_ns() >= static_cast<double>(st.dur_ns));

      // Home: the whole trace, from the summary.
      v->setFocus();
      QTest::keyClick(v, Qt::Key_Home);
      QVERIFY(v->mapping().shows_all());
      QVERIFY(!v->build_frame().used_window);
      page.set_session(nullptr);
    }
  }

  void cleanup() {
    // Pages outlive nothing: each test detaches before its session goes.
  }

  void input_bound_steps_and_idle_gaps_are_drawn() {
    Opened o = open(synth_);
    TimelineView* v = o.page->view();
    const StepRow& steps = v->step_row();
    std::size_t bound = 0;
    for (auto b : steps.input_bound) bound += b;
    QCOMPARE(static_cast<std::int64_t>(bound), o.session->report()->input_bound_steps);
    QVERIFY(!v->gap_row().row.zones.empty());
    // Zoom onto the first input-bound step.
    std::size_t i = 0;
    while (!steps.input_bound[i]) ++i;
    QVERIFY(v->show_step(steps.numbers[i]));
    const DrawList list = frame(o);
    QVERIFY(list.used_window);
    bool step_marked = false, gap_labelled = false, kernel = false;
    for (const DrawBox& b : list.boxes) {
      step_marked |=
          b.hit.kind == Selection::Kind::step && b.text.contains(QStringLiteral("input-bound"));
      gap_labelled |= b.hit.kind == Selection::Kind::gap &&
                      b.text.contains(QStringLiteral("waiting for input"));
      kernel |= b.hit.kind == Selection::Kind::event && !b.text.isEmpty() &&
                b.style == DrawBox::Style::solid;
    }
    QVERIFY(step_marked);
    QVERIFY(gap_labelled);
    QVERIFY(kernel);
    QVERIFY(!list.strips.empty());  // shading behind the lanes
    o.page->set_session(nullptr);
  }

  void zoomed_out_everything_is_merged_and_counted() {
    Opened o = open(synth_);
    o.page->view()->show_all();
    const DrawList list = o.page->view()->build_frame();
    QVERIFY(!list.used_window);  // the summary, not a window of every event
    QCOMPARE(static_cast<std::int64_t>(list.events_shown), o.session->reader().event_count());
    std::size_t merged = 0;
    for (const DrawBox& b : list.boxes) merged += b.style == DrawBox::Style::merged;
    QVERIFY(merged > 0);
    QVERIFY(list.boxes.size() < 20000);  // bounded by pixels, not events
    o.page->set_session(nullptr);
  }

  void keys_and_wheel_navigate() {
    Opened o = open(synth_);
    TimelineView* v = o.page->view();
    v->setFocus();
    v->show_all();  // it opens on a few steps; navigate from the whole trace
    const double all = v->mapping().view_span_ns();
    QTest::keyClick(v, Qt::Key_W);
    QVERIFY(v->mapping().view_span_ns() < all);
    QTest::keyClick(v, Qt::Key_W);
    QTest::keyClick(v, Qt::Key_W);  // in the middle, away from the edges
    const std::int64_t begin = v->mapping().view_begin();
    QTest::keyClick(v, Qt::Key_D);
    QVERIFY(v->mapping().view_begin() > begin);
    QTest::keyClick(v, Qt::Key_A);
    QVERIFY(std::llabs(v->mapping().view_begin() - begin) <= 1);
    for (int i = 0; i < 3; ++i) QTest::keyClick(v, Qt::Key_S);
    QVERIFY(std::abs(v->mapping().view_span_ns() - all) < 1e-6 * all);
    // The wheel zooms around the cursor: the time under it stays put.
    const QPointF at(TimelineGeometry::kNamesWidth + 300, 100);
    const std::int64_t t = v->mapping().ns_at(300);
    QWheelEvent wheel(at, v->mapToGlobal(at), QPoint(), QPoint(0, 360), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(v, &wheel);
    QVERIFY(v->mapping().view_span_ns() < all / 1.5);
    QVERIFY(std::llabs(v->mapping().ns_at(300) - t) <=
            static_cast<std::int64_t>(v->mapping().ns_per_px()) + 1);
    // Dragging pans.
    const std::int64_t before = v->mapping().view_begin();
    QTest::mousePress(v, Qt::LeftButton, Qt::NoModifier, QPoint(700, 200));
    QMouseEvent move(QEvent::MouseMove, QPointF(600, 200), v->mapToGlobal(QPointF(600, 200)),
                     Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(v, &move);
    QTest::mouseRelease(v, Qt::LeftButton, Qt::NoModifier, QPoint(600, 200));
    QVERIFY(v->mapping().view_begin() > before);
    QTest::keyClick(v, Qt::Key_Home);
    QVERIFY(v->mapping().shows_all());
    o.page->set_session(nullptr);
  }

  void clicking_an_event_shows_its_details() {
    Opened o = open(synth_);
    TimelineView* v = o.page->view();
    const StepRow& steps = v->step_row();
    v->show_step(steps.numbers[steps.numbers.size() / 2]);
    frame(o);
    v->repaint();  // the click hits what the last paint drew
    const DrawList list = v->build_frame();
    const DrawBox* target = nullptr;
    for (const DrawBox& b : list.boxes)
      if (b.hit.kind == Selection::Kind::event && b.style == DrawBox::Style::solid &&
          b.rect.width() > 6 && b.rect.height() > 6)
        target = &b;
    QVERIFY(target);
    QTest::mouseClick(v, Qt::LeftButton, Qt::NoModifier, target->rect.center().toPoint());
    QCOMPARE(v->selection().kind, Selection::Kind::event);
    const Details& d = o.page->details()->details();
    QStringList fields;
    for (const auto& [k, value] : d) fields << k;
    for (const char* f : {"Name", "Category", "Track", "Start", "Duration"})
      QVERIFY2(fields.contains(QLatin1String(f)), f);
    // A step selected from the steps lane shows its breakdown.
    v->show_step(steps.numbers[1]);
    const Details& sd = o.page->details()->details();
    QVERIFY(!sd.empty());
    QCOMPARE(sd.front().first, QStringLiteral("Step"));
    QCOMPARE(sd.front().second, QString::number(steps.numbers[1]));
    o.page->set_session(nullptr);
  }

  void search_finds_the_next_and_previous_match() {
    Opened o = open(synth_);
    o.page->set_search(QStringLiteral("wait for batch"));
    QVERIFY(o.page->search().matches() > 0);
    QVERIFY(o.page->find_next(true));
    const Selection first = o.page->view()->selection();
    QCOMPARE(first.kind, Selection::Kind::event);
    QCOMPARE(QString::fromStdString(std::string(o.session->reader().label(first.label).name)),
             QStringLiteral("wait for batch"));
    QVERIFY(o.page->find_next(true));
    const Selection second = o.page->view()->selection();
    QVERIFY(second.start_ns > first.start_ns);
    QVERIFY(o.page->find_next(false));
    QCOMPARE(o.page->view()->selection().start_ns, first.start_ns);
    // The found event is in view.
    QVERIFY(o.page->view()->mapping().view_begin() <= first.start_ns);
    QVERIFY(o.page->view()->mapping().view_end() >= first.end_ns);
    o.page->set_search(QStringLiteral("no event has this name"));
    QVERIFY(!o.page->find_next(true));
    o.page->set_session(nullptr);
  }

  void merged_block_click_zooms_in() {
    Opened o = open(synth_);
    TimelineView* v = o.page->view();
    v->show_all();
    v->repaint();
    const DrawList list = v->build_frame();
    const DrawBox* merged = nullptr;
    for (const DrawBox& b : list.boxes)
      if (b.style == DrawBox::Style::merged && b.hit.kind == Selection::Kind::event &&
          b.rect.width() >= 3)
        merged = &b;
    QVERIFY(merged);
    const double span = v->mapping().view_span_ns();
    QTest::mouseClick(v, Qt::LeftButton, Qt::NoModifier, merged->rect.center().toPoint());
    QVERIFY(v->mapping().view_span_ns() < span / 10);
    o.page->set_session(nullptr);
  }
};

QTEST_MAIN(TestTimeline)
#include "test_timeline.moc"
