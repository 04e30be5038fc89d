// The timeline widget: what a frame draws (input-bound steps marked, idle gaps with their cause,
// merged blocks with counts), keyboard and wheel navigation, selection with its details, search.
#include <QLineEdit>
#include <QtTest>
#include <algorithm>
#include <numeric>
#include <optional>
#include <set>

#include "gui/models/palette.hpp"
#include "gui/models/range_aggregate.hpp"
#include "gui/models/timeline/selection_details.hpp"
#include "gui/widgets/screenshot.hpp"
#include "gui/widgets/timeline/timeline_page.hpp"
#include "gui_test_util.hpp"
#include "profiler/analysis/kept_report.hpp"
#include "profiler/store/writer.hpp"

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

  // A run's first step (first calls, compilation, the first batch) is not what the run is like:
  // the view opens past the warm-up the analysis leaves out, even when that step is input-bound.
  void opens_past_the_warmup() {
    for (const QString& path : test::sample_traces()) {
      auto session = std::make_unique<TraceSession>(path);
      session->wait();
      QVERIFY(session->report());
      const auto range = session->initial_range();
      QVERIFY(range);
      const auto per_step = test::unpacked(*session->step_figures());
      QVERIFY(!per_step.empty());
      for (const ts::analysis::StepSummary& st : per_step)
        if (st.warmup)  // no warm-up step in view (the margin may show its last microseconds)
          QVERIFY2(st.start_ns + st.dur_ns / 2 < range->first, qPrintable(path));
    }
  }

  // A run whose first epoch fills the input cache: the figures leave that epoch out, and the
  // timeline opens on the steps they cover (not on warm-up step 0, input-bound as it is): around
  // the first input-bound step among them, else from the first. A --screenshot of the timeline
  // shows the same range, and draws it.
  void opens_on_the_first_analysed_step_past_a_warmup_epoch() {
    for (const bool bound_later : {false, true}) {
      const QString path = dir_.filePath(QStringLiteral("epochs%1.db").arg(bound_later));
      test::write_input_share_trace(
          path, {40, 40, 40, 40, 40, 40, 1, 1, 1, bound_later ? 10.0 : 1, 1, 1}, "0,6", true);
      auto session = std::make_unique<TraceSession>(path);
      session->wait();
      QVERIFY(session->report());
      QCOMPARE(session->report()->analysed_first_step, std::int64_t{6});
      const auto range = session->initial_range();
      QVERIFY(range);
      // The steps wholly in view (the margin shows a sliver of the neighbours).
      std::vector<std::int64_t> shown;
      for (const ts::store::Step& st : session->reader().steps())
        if (st.start_ns >= range->first && st.start_ns + st.dur_ns <= range->second)
          shown.push_back(st.step);
      const std::vector<std::int64_t> want = bound_later ? std::vector<std::int64_t>{8, 9, 10, 11}
                                                         : std::vector<std::int64_t>{6, 7, 8, 9};
      QCOMPARE(shown, want);

      ScreenshotOptions o;
      o.trace = path;
      o.view = QStringLiteral("timeline");
      QCOMPARE(screenshot_time_range(*session, o), range);
      o.output = dir_.filePath(QStringLiteral("epochs%1.png").arg(bound_later));
      o.size = QSize(800, 400);
      QCOMPARE(take_screenshot(o), QString());
      QVERIFY(!QImage(o.output).isNull());
    }
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
      QVERIFY(session->report());
      const auto per_step = test::unpacked(*session->step_figures());
      std::size_t index = 0;
      while (index < per_step.size() && !(per_step[index].input_bound && !per_step[index].warmup))
        ++index;
      QVERIFY(index < per_step.size());
      if (path == rare_) QVERIFY(index >= 4);  // not merely the first steps
      const ts::analysis::StepSummary& st = per_step[index];
      QCOMPARE(session->first_input_bound_step(), std::optional<std::int64_t>(st.step));
      QVERIFY(m.view_begin() <= st.start_ns);
      QVERIFY(m.view_end() >= st.start_ns + st.dur_ns);
      std::int64_t longest = 0;
      for (const auto& s : per_step) longest = std::max(longest, s.dur_ns);
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
    for (auto b : steps.input_bound) bound += b != 0;  // a class: 1 moderate, 2 high
    QCOMPARE(static_cast<std::int64_t>(bound), o.session->report()->input_bound_steps);
    QVERIFY(!v->gap_row().row.zones.empty());
    // The gaps are held once: in the session's row, not in the report as well.
    QVERIFY(&v->gap_row() == o.session->gap_row().get());
    QVERIFY(o.session->report()->device.gaps.empty());
    QCOMPARE(static_cast<std::int64_t>(v->gap_row().row.zones.size()),
             o.session->report()->device.listed_gaps);
    QCOMPARE(v->gap_row().steps.size(), v->gap_row().row.zones.size());
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
    // A gap's details name the step it lies in.
    for (const DrawBox& b : list.boxes) {
      if (b.hit.kind != Selection::Kind::gap || b.hit.index >= v->gap_row().steps.size()) continue;
      const Details d = selection_details(*o.session, steps, v->gap_row(), b.hit);
      const auto step = std::find_if(d.begin(), d.end(), [](const auto& line) {
        return line.first == QStringLiteral("Step");
      });
      QVERIFY(step != d.end());
      QCOMPARE(step->second, QString::number(v->gap_row().steps[b.hit.index]));
      const std::int64_t start = v->gap_row().row.zones[b.hit.index].start_ns;
      const std::vector<ts::store::Step> steps = o.session->reader().steps();
      const auto in = std::find_if(steps.begin(), steps.end(), [&](const ts::store::Step& s) {
        return s.start_ns <= start && start < s.start_ns + s.dur_ns;
      });
      QVERIFY(in != steps.end());
      QCOMPARE(v->gap_row().steps[b.hit.index], in->step);
      break;
    }
    o.page->set_session(nullptr);
  }

  // A long trace that keeps its analysis: the session reads the kept report's steps from the
  // file (nothing per step in memory but their index), and the step lane's marks and every
  // step's figures are the analysis's.
  void a_long_trace_keeping_its_analysis_reads_its_steps_from_the_file() {
    const QString path = test::synth_trace(dir_, 40000, 0.5, QStringLiteral("keeps.db"));
    ts::analysis::AnalysisOptions o;
    o.keep_gaps = false;  // the session's options for a trace whose gaps it does not hold
    const ts::store::Reader reader(path.toStdString());
    const ts::analysis::Report want = ts::analysis::analyse_or_reuse(reader, o, 0);  // keeps it
    QVERIFY(ts::analysis::kept_report(reader, o));
    const std::size_t whole = TraceSession::whole_gaps_steps();
    TraceSession::set_whole_gaps_steps(10);
    Opened opened = open(path);
    TraceSession::set_whole_gaps_steps(whole);
    const PackedSteps& figures = *opened.session->step_figures();
    QVERIFY(figures.in_file());
    QCOMPARE(figures.size(), want.per_step.size());
    const auto got = test::unpacked(figures);
    for (std::size_t i = 0; i < got.size(); ++i) {
      QCOMPARE(got[i].step, want.per_step[i].step);
      QCOMPARE(got[i].dur_ns, want.per_step[i].dur_ns);
      QCOMPARE(got[i].input_bound, want.per_step[i].input_bound);
      QCOMPARE(got[i].idle_by_cause_ns, want.per_step[i].idle_by_cause_ns);
    }
    const StepRow& row = opened.page->view()->step_row();
    std::uint32_t bound = 0;
    for (const auto& s : want.per_step) bound += s.input_bound;
    QVERIFY(bound > 0);
    QCOMPARE(row.bound_in(0, row.numbers.size()), bound);
    opened.page->set_session(nullptr);
  }

  // A trace of very many steps: seen whole, the step and idle lanes give a zone several steps
  // (the counts still exact); closing in on a step shows the exact steps around the view, marked
  // from the analysis, and the selection names the step.
  void a_trace_of_very_many_steps_draws_runs_of_them_until_the_view_is_close() {
    struct Lowered {  // for this test only: the view reads the budget as it goes
      std::size_t zones = whole_row_zones(), gaps = TraceSession::whole_gaps_steps();
      Lowered() {
        set_whole_row_zones(50);
        TraceSession::set_whole_gaps_steps(10);
      }
      ~Lowered() {
        set_whole_row_zones(zones);
        TraceSession::set_whole_gaps_steps(gaps);
      }
    } lowered;
    Opened o = open(synth_);
    TimelineView* v = o.page->view();
    v->show_all();
    const DrawList list = v->build_frame();
    const StepRow& runs = v->step_row();
    QVERIFY(runs.per_zone > 1);
    QVERIFY(runs.row.zones.size() <= 50);
    const auto figures = test::unpacked(*o.session->step_figures());
    QCOMPARE(runs.steps_in(0, runs.row.zones.size()), figures.size());
    std::uint32_t bound = 0;
    for (const auto& f : figures) bound += f.input_bound;
    QVERIFY(bound > 0);
    QCOMPARE(runs.bound_in(0, runs.row.zones.size()), bound);
    std::uint64_t drawn = 0;
    for (const DrawBox& b : list.boxes)
      if (b.hit.kind == Selection::Kind::step) drawn += b.events;
    QCOMPARE(drawn, static_cast<std::uint64_t>(figures.size()));  // every step, counted once
    const GapRow& idle = *o.session->gap_row();
    QVERIFY(idle.per_step && idle.per_zone > 1);
    std::uint32_t with_idle = 0;
    for (const Zone& z : idle.row.zones) with_idle += z.count;
    std::uint32_t want_idle = 0;
    for (const auto& f : figures)
      want_idle += std::accumulate(f.idle_by_cause_ns.begin(), f.idle_by_cause_ns.end(),
                                   std::int64_t{0}) > 0;
    QCOMPARE(with_idle, want_idle);
    // The session makes the bars, the idle row and the run row's marks in one walk over the
    // figures: each as its own function makes it.
    const PackedSteps& packed = *o.session->step_figures();
    const std::vector<StepBar> bars = step_bars(packed);
    QCOMPARE(o.session->step_bars().size(), bars.size());
    for (std::size_t i = 0; i < bars.size(); ++i) {
      const StepBar &got = o.session->step_bars()[i], &want = bars[i];
      QCOMPARE(got.first_step, want.first_step);
      QCOMPARE(got.count, want.count);
      QCOMPARE(got.input_bound, want.input_bound);
      QCOMPARE(got.worst_step, want.worst_step);
      QCOMPARE(got.part_ms, want.part_ms);
    }
    const GapRow want_idle_row = make_step_idle_row(packed, steps_per_zone(packed.size()));
    QCOMPARE(idle.row.zones.size(), want_idle_row.row.zones.size());
    for (std::size_t i = 0; i < idle.row.zones.size(); ++i) {
      QCOMPARE(idle.row.zones[i].start_ns, want_idle_row.row.zones[i].start_ns);
      QCOMPARE(idle.row.zones[i].label, want_idle_row.row.zones[i].label);
      QCOMPARE(idle.idle_ns[i], want_idle_row.idle_ns[i]);
    }
    StepRow remarked = o.session->step_row();
    mark_step_row(remarked, &packed);
    QCOMPARE(o.session->step_row().input_bound, remarked.input_bound);
    QCOMPARE(o.session->step_row().bound_cum, remarked.bound_cum);

    const std::vector<ts::store::Step> steps = o.session->reader().steps();
    const ts::store::Step& middle = steps[steps.size() / 2];
    QVERIFY(v->show_step(middle.step));
    v->build_frame();
    const StepRow& exact = v->step_row();
    QCOMPARE(exact.per_zone, std::size_t{1});
    QVERIFY(exact.row.zones.size() < figures.size());  // the steps around the view only
    QCOMPARE(exact.numbers[v->selection().index], middle.step);
    for (std::size_t i = 0; i < exact.numbers.size(); ++i) {
      const auto f = std::find_if(figures.begin(), figures.end(),
                                  [&](const auto& s) { return s.step == exact.numbers[i]; });
      QVERIFY(f != figures.end());
      QCOMPARE(exact.input_bound[i] != 0, f->input_bound);
    }
    const Details d = selection_details(*o.session, exact, v->gap_row(), v->selection());
    QVERIFY(std::find(d.begin(), d.end(),
                      std::pair(QStringLiteral("Step"), QString::number(middle.step))) != d.end());
    v->show_all();
    v->build_frame();
    QVERIFY(v->step_row().per_zone > 1);
    o.page->set_session(nullptr);
  }

  // A trace with more steps than a session holds every gap of: the session keeps one idle zone
  // per step, and the view loads the exact gaps of the steps around what it shows.
  void a_long_traces_gaps_are_loaded_around_the_view() {
    const std::size_t whole = TraceSession::whole_gaps_steps();
    TraceSession::set_whole_gaps_steps(10);
    Opened o = open(synth_);
    TraceSession::set_whole_gaps_steps(whole);
    TimelineView* v = o.page->view();
    QVERIFY(o.session->gap_windows() != nullptr);
    const GapRow& per_step = *o.session->gap_row();
    QVERIFY(per_step.per_step);
    QVERIFY(o.session->report()->device.gaps.empty());
    QVERIFY(!per_step.row.zones.empty());
    QCOMPARE(per_step.idle_ns.size(), per_step.row.zones.size());
    for (std::size_t i = 0; i < per_step.row.zones.size(); ++i) QVERIFY(per_step.idle_ns[i] > 0);
    // Every gap the analysis lists inside the view is in the row the view shows once loaded.
    const ts::store::Reader reader(synth_.toStdString());
    const auto all = ts::analysis::analyse(reader, {}).device.gaps;
    const StepRow& steps = v->step_row();
    std::size_t i = 0;
    while (!steps.input_bound[i]) ++i;
    QVERIFY(v->show_step(steps.numbers[i]));
    frame(o);
    o.session->gap_windows()->wait();
    const DrawList list = v->build_frame();
    const GapRow& shown = v->gap_row();
    QVERIFY(!shown.per_step);
    QVERIFY(&shown != o.session->gap_row().get());
    const std::int64_t v0 = v->mapping().view_begin(), v1 = v->mapping().view_end();
    std::set<std::pair<std::int64_t, std::int64_t>> have;
    for (const Zone& z : shown.row.zones) have.emplace(z.start_ns, z.end_ns);
    std::size_t in_view = 0;
    for (const ts::analysis::IdleGap& g : all) {
      if (g.end_ns <= v0 || g.start_ns >= v1) continue;
      ++in_view;
      QVERIFY(have.contains({g.start_ns, g.end_ns}));
    }
    QVERIFY(in_view > 0);
    bool gap_labelled = false;
    for (const DrawBox& b : list.boxes)
      gap_labelled |= b.hit.kind == Selection::Kind::gap &&
                      b.text.contains(QStringLiteral("waiting for input"));
    QVERIFY(gap_labelled);
    // Zoomed out again, the per-step row is shown, and a step's details give its idle time.
    v->show_all();
    QVERIFY(v->build_frame().boxes.size() > 0);
    Selection sel;
    sel.kind = Selection::Kind::gap;
    sel.index = 0;
    const Details d = selection_details(*o.session, steps, per_step, sel);
    QVERIFY(std::any_of(d.begin(), d.end(), [](const auto& line) {
      return line.first == QStringLiteral("Device idle in the step");
    }));
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

  // A run of many short launches beside a few long host computations, zoomed out: the merged
  // block takes the colour of the category holding most of its time, and its tooltip text says
  // what it holds, by time.
  void merged_blocks_take_the_colour_of_their_dominant_category() {
    const QString path = dir_.filePath(QStringLiteral("mix.db"));
    {
      ts::store::Writer w(path.toStdString());
      w.put_string(1, "cudaLaunchKernel");
      w.put_string(2, "aten::addmm");
      w.put_string(3, "step");
      w.put_label(1, 1, ts::trace::Category::launch);
      w.put_label(2, 2, ts::trace::Category::host_compute);
      w.put_label(3, 3, ts::trace::Category::step);
      w.put_track(1, "main", ts::trace::TrackKind::thread);
      std::vector<ts::store::EventRow> rows;
      const std::int64_t t0 = 1'000'000'000;
      rows.push_back({t0, 100'000'000, 1, 3, 0});
      // 20 times: 40 launches of 1 µs 1 µs apart, then 2 ms of host compute; all at depth 1.
      std::int64_t t = t0 + 1000;
      for (int k = 0; k < 20; ++k) {
        for (int i = 0; i < 40; ++i, t += 2000) rows.push_back({t, 1000, 1, 1, 0});
        rows.push_back({t, 2'000'000, 1, 2, 0});
        t += 2'100'000;
      }
      // Ten seconds later, one more step: zoomed out to everything, a cycle is a fraction of a
      // pixel, so launches and host computations merge into the same blocks.
      rows.push_back({t0 + 10'000'000'000, 1'000'000, 1, 3, 1});
      w.append(std::span<const ts::store::EventRow>(rows));
      w.finish();
    }
    Opened o = open(path);
    o.page->view()->show_all();
    const DrawList list = frame(o);
    const DrawBox* merged = nullptr;
    for (const DrawBox& b : list.boxes)
      if (b.style == DrawBox::Style::merged && b.hit.kind == Selection::Kind::event &&
          (!merged || b.events > merged->events))
        merged = &b;
    QVERIFY(merged);
    QCOMPARE(merged->fill, category_color(ts::trace::Category::host_compute));
    QVERIFY2(merged->detail.contains(QStringLiteral("host_compute")), qPrintable(merged->detail));
    QVERIFY2(merged->detail.contains(QStringLiteral("aten::addmm")), qPrintable(merged->detail));
    o.page->set_session(nullptr);
  }

  // Shift+drag selects a time range over the lanes it crosses; the details sum it up by name,
  // each event counting the time it spends inside the range.
  void shift_drag_selects_a_range_summed_up_by_name() {
    const QString path = dir_.filePath(QStringLiteral("range.db"));
    const std::int64_t t0 = 1'000'000'000, ms = 1'000'000;
    {
      ts::store::Writer w(path.toStdString());
      w.put_string(1, "a");
      w.put_string(2, "b");
      w.put_string(3, "step");
      w.put_label(1, 1, ts::trace::Category::host_compute);
      w.put_label(2, 2, ts::trace::Category::kernel);
      w.put_label(3, 3, ts::trace::Category::step);
      w.put_track(1, "main", ts::trace::TrackKind::thread);
      w.put_track(2, "gpu", ts::trace::TrackKind::device_queue);
      const ts::store::EventRow rows[] = {{t0, 20 * ms, 1, 3, 0},
                                          {t0 + ms, 9 * ms, 1, 1, 0},
                                          {t0 + 5 * ms, 10 * ms, 2, 2, 0},
                                          {t0 + 16 * ms, 2 * ms, 2, 2, 0}};
      w.append(std::span<const ts::store::EventRow>(rows));
      w.finish();
    }
    // The model: [5, 10) ms holds 5 ms of "a" and 5 ms of the first "b".
    const RangeAggregate agg =
        aggregate_range(ts::store::Reader(path.toStdString()), t0 + 5 * ms, t0 + 10 * ms, {});
    QCOMPARE(agg.rows.size(), std::size_t{3});  // a, b and the step
    for (const RangeRow& r : agg.rows) {
      if (r.name == "b") {
        QCOMPARE(r.count, std::int64_t{1});
        QCOMPARE(r.total_ns, 5 * ms);
        QCOMPARE(r.max_ns, 10 * ms);
      }
      if (r.name == "a") QCOMPARE(r.total_ns, 5 * ms);
    }
    QCOMPARE(aggregate_range(ts::store::Reader(path.toStdString()), t0, t0 + 20 * ms, {2}).events,
             std::int64_t{2});  // one lane: the device's two kernels

    // The view: Shift+drag across the device lane only, from 4 to 17 ms.
    Opened o = open(path);
    TimelineView* v = o.page->view();
    v->show_range(t0, t0 + 20 * ms);
    v->build_frame();
    const Lane* gpu = nullptr;
    for (const Lane& l : v->layout().lanes())
      if (l.kind == LaneKind::device) gpu = &l;
    QVERIFY(gpu);
    const double y = gpu->y + gpu->height / 2;
    auto at = [&](std::int64_t t) { return v->widget_point(t, y).toPoint(); };
    QSignalSpy changed(v, &TimelineView::selectionChanged);
    QTest::mousePress(v, Qt::LeftButton, Qt::ShiftModifier, at(t0 + 4 * ms));
    QTest::mouseMove(v, at(t0 + 10 * ms));
    QTest::mouseMove(v, at(t0 + 17 * ms));
    QTest::mouseRelease(v, Qt::LeftButton, Qt::ShiftModifier, at(t0 + 17 * ms));
    QCOMPARE(changed.count(), 1);  // once, on release
    const Selection& s = v->selection();
    QCOMPARE(s.kind, Selection::Kind::range);
    QVERIFY(std::abs(s.start_ns - (t0 + 4 * ms)) < ms / 2);
    QVERIFY(std::abs(s.end_ns - (t0 + 17 * ms)) < ms / 2);
    QCOMPARE(s.tracks, std::vector<std::uint32_t>{2});
    QString details;
    for (const auto& [field, value] : o.page->details()->details())
      details += field + "=" + value + ";";
    QVERIFY2(details.contains(QStringLiteral("Events=2")), qPrintable(details));
    QVERIFY2(details.contains(QStringLiteral("b (kernel)=2 ×")), qPrintable(details));
    QVERIFY(!v->build_frame().range.isEmpty());
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
    // Dragging the names column's edge widens it (the lanes give up that width) without panning.
    const double area = v->mapping().width();
    const int edge = static_cast<int>(v->names_width());
    QTest::mousePress(v, Qt::LeftButton, Qt::NoModifier, QPoint(edge, 200));
    QMouseEvent widen(QEvent::MouseMove, QPointF(edge + 120, 200),
                      v->mapToGlobal(QPointF(edge + 120, 200)), Qt::NoButton, Qt::LeftButton,
                      Qt::NoModifier);
    QApplication::sendEvent(v, &widen);
    QTest::mouseRelease(v, Qt::LeftButton, Qt::NoModifier, QPoint(edge + 120, 200));
    QCOMPARE(v->names_width(), static_cast<double>(edge + 120));
    QCOMPARE(v->mapping().width(), area - 120);
    QVERIFY(v->mapping().shows_all());
    v->set_names_width(1);  // clamped
    QCOMPARE(v->names_width(), TimelineGeometry::kMinNamesWidth);
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
    // "i of N": the found event's position among all matches, counted by brute force.
    std::uint64_t earlier = 0;
    const auto range = o.session->reader().time_range();
    for (const auto& e : o.session->reader().events(range.start_ns, range.end_ns + 1))
      if (std::string(o.session->reader().name(e)) == "wait for batch" &&
          (e.start_ns < first.start_ns || (e.start_ns == first.start_ns && e.track < first.track)))
        ++earlier;
    QCOMPARE(o.page->current_match(), earlier + 1);
    QVERIFY2(
        o.page->matches_text().startsWith(QString::number(earlier + 1) + QStringLiteral(" of ")),
        qPrintable(o.page->matches_text()));
    QCOMPARE(QString::fromStdString(std::string(o.session->reader().label(first.label).name)),
             QStringLiteral("wait for batch"));
    QVERIFY(o.page->find_next(true));
    const Selection second = o.page->view()->selection();
    QVERIFY(second.start_ns > first.start_ns);
    QCOMPARE(o.page->current_match(), earlier + 2);
    QVERIFY(o.page->find_next(false));
    QCOMPARE(o.page->view()->selection().start_ns, first.start_ns);
    QCOMPARE(o.page->current_match(), earlier + 1);
    // The found event is in view.
    QVERIFY(o.page->view()->mapping().view_begin() <= first.start_ns);
    QVERIFY(o.page->view()->mapping().view_end() >= first.end_ns);
    o.page->set_search(QStringLiteral("no event has this name"));
    QVERIFY(!o.page->find_next(true));
    o.page->set_session(nullptr);
  }

  // Where each epoch starts: a line down the lanes named in the ruler; a step says its epoch.
  void epochs_are_marked() {
    const QString path = dir_.filePath(QStringLiteral("epochs.db"));
    const std::int64_t t0 = 1'000'000'000, ms = 1'000'000;
    {
      ts::store::Writer w(path.toStdString());
      test::put_step_and_kernel(w, "gemm", "main", "gpu");
      w.put_meta("fit.epoch_first_steps", "0,4,8");
      std::vector<ts::store::EventRow> rows;
      for (int s = 0; s < 12; ++s) {
        rows.push_back({t0 + s * 10 * ms, 10 * ms, 1, 1, s});
        rows.push_back({t0 + s * 10 * ms + ms, 8 * ms, 2, 2, s});
      }
      w.append(std::span<const ts::store::EventRow>(rows));
      w.finish();
    }
    Opened o = open(path);
    TimelineView* v = o.page->view();
    v->show_all();
    const DrawList list = frame(o);
    QCOMPARE(list.epochs.size(), std::size_t{3});
    for (int e = 0; e < 3; ++e) {
      QCOMPARE(list.epochs[static_cast<std::size_t>(e)].label,
               QStringLiteral("epoch %1").arg(e + 1));
      QVERIFY(std::abs(list.epochs[static_cast<std::size_t>(e)].x -
                       v->widget_point(t0 + e * 40 * ms, 0).x()) < 0.5);
    }
    QVERIFY(v->show_step(5));
    QString details;
    for (const auto& [field, value] : o.page->details()->details())
      details += field + "=" + value + ";";
    QVERIFY2(details.contains(QStringLiteral("Epoch=2;")), qPrintable(details));
    // Zoomed into epoch 2 only epoch 2's start (and none before the view) is marked.
    v->show_range(t0 + 35 * ms, t0 + 75 * ms);
    const DrawList in = frame(o);
    QCOMPARE(in.epochs.size(), std::size_t{1});
    QCOMPARE(in.epochs.front().label, QStringLiteral("epoch 2"));
    o.page->set_session(nullptr);
  }

  // A group header folds its lanes on a click and pins them on a click on its pin; pinned lanes
  // stay at the top while the others scroll beneath them, and clicks there hit the pinned ones.
  void lane_groups_fold_and_pin() {
    Opened o = open(synth_);
    o.page->resize(1400, 330);  // fewer lanes than the trace has: the lanes scroll
    QTest::qWait(20);
    TimelineView* v = o.page->view();
    frame(o);
    v->repaint();
    const QString key = LaneLayout::device_group(ts::store::kNull, QStringLiteral("synthetic GPU"));
    const auto header_point = [&](double dx_from_right) {
      const Lane* h = v->layout().group_lane(key);
      const QPointF p = v->widget_point(v->mapping().view_begin(), h->y + h->height / 2);
      return QPoint(static_cast<int>(dx_from_right < 0 ? 40 : v->names_width() - dx_from_right),
                    static_cast<int>(p.y()));
    };
    const auto device_lanes = [&] {
      int n = 0;
      for (const Lane& l : v->layout().lanes()) n += l.kind == LaneKind::device;
      return n;
    };
    QVERIFY(v->layout().group_lane(key));
    QCOMPARE(device_lanes(), 2);
    QTest::mouseClick(v, Qt::LeftButton, Qt::NoModifier, header_point(-1));  // the name: fold
    v->repaint();
    QCOMPARE(device_lanes(), 0);
    QVERIFY(v->groups().collapsed.count(key));
    QTest::mouseClick(v, Qt::LeftButton, Qt::NoModifier, header_point(-1));
    v->repaint();
    QCOMPARE(device_lanes(), 2);

    QTest::mouseClick(v, Qt::LeftButton, Qt::NoModifier, header_point(12));  // the pin
    v->repaint();
    QVERIFY(v->groups().pinned.count(key));
    QVERIFY(v->layout().pinned_height() > 0);
    QCOMPARE(v->layout().lanes().front().group, key);
    QVERIFY(v->layout().height() > v->height());  // there is something to scroll
    const auto gpu_box = [&]() -> std::optional<DrawBox> {
      for (const DrawBox& b : v->last_frame().boxes)
        if (b.hit.kind == Selection::Kind::event && b.pinned && b.rect.width() > 4) return b;
      return std::nullopt;
    };
    const auto steps_top = [&]() -> std::optional<double> {
      for (const DrawBox& b : v->last_frame().boxes)
        if (b.hit.kind == Selection::Kind::step) return b.rect.top();
      return std::nullopt;
    };
    const auto before = gpu_box();
    const auto steps_before = steps_top();
    QVERIFY(before && steps_before);
    v->scroll_to(60);
    v->repaint();
    QCOMPARE(v->scroll_y(), 60);
    const auto after = gpu_box();
    QVERIFY(after);
    QCOMPARE(after->rect.top(), before->rect.top());  // pinned: in place
    const auto steps_after = steps_top();
    QVERIFY(!steps_after || *steps_after < *steps_before);  // scrolled up beneath the band
    // Nothing drawn wholly under the band but its own lanes; a click there selects their event.
    const double band_bottom = v->widget_point(0, v->layout().pinned_height()).y();
    for (const DrawBox& b : v->last_frame().boxes)
      if (!b.pinned) QVERIFY(b.rect.bottom() > band_bottom);
    QTest::mouseClick(v, Qt::LeftButton, Qt::NoModifier, after->rect.center().toPoint());
    QCOMPARE(v->selection().kind, Selection::Kind::event);
    QCOMPARE(v->selection().track, after->hit.track);
    v->toggle_pin(key);
    v->repaint();
    QCOMPARE(v->layout().pinned_height(), 0.0);
    o.page->set_session(nullptr);
  }

  // N / Shift+N step through the instances of the selected event's name, "instance i of N".
  void n_steps_through_the_instances_of_the_selected_name() {
    Opened o = open(synth_);
    TimelineView* v = o.page->view();
    o.page->set_search(QStringLiteral("sgemm_NN"));
    QVERIFY(o.page->find_next(true));
    const Selection first = v->selection();
    const std::uint64_t i = o.page->current_match();
    o.page->set_search(QString());
    v->select(first);
    v->setFocus();
    QTest::keyClick(v, Qt::Key_N);
    QVERIFY2(o.page->matches_text().startsWith(QStringLiteral("instance %1 of ").arg(i + 1)),
             qPrintable(o.page->matches_text()));
    const Selection second = v->selection();
    QVERIFY(second.start_ns > first.start_ns);
    QCOMPARE(second.label, first.label);
    QTest::keyClick(v, Qt::Key_N, Qt::ShiftModifier);
    QCOMPARE(v->selection().start_ns, first.start_ns);
    QCOMPARE(o.page->current_match(), i);
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
