// The timeline's logic with no window (gui/models/timeline, linked without the widgets): lane
// groups per rank and per device, folding and pinning, where each epoch starts and its marks,
// and the instances of one name.
#include <QtTest>
#include <array>

#include "gui/models/event_search.hpp"
#include "gui/models/timeline/draw_list.hpp"
#include "gui/models/timeline/lane_layout.hpp"
#include "gui/models/timeline/timeline_data.hpp"

using namespace ts::gui;
using ts::store::kNull;
using ts::trace::TrackKind;

namespace {

int one_row(std::uint32_t) {
  return 1;
}

// Two ranks: rank 0 with two GPUs (two streams on GPU 0), rank 1 with one.
const std::vector<ts::store::Track> kTwoRanks = {
    {1, "main", TrackKind::thread, kNull, 1},
    {2, "GPU 0 stream 7", TrackKind::device_queue, kNull, 1},
    {3, "GPU 0 stream 8", TrackKind::device_queue, kNull, 1},
    {4, "GPU 1 stream 7", TrackKind::device_queue, kNull, 1},
    {5, "device memory", TrackKind::counter, kNull, 1},
    {11, "main", TrackKind::thread, kNull, 2},
    {12, "GPU 0 stream 7", TrackKind::device_queue, kNull, 2},
};
const std::vector<ts::store::Process> kRanks = {{1, "rank 0", 0, kNull, {}},
                                                {2, "rank 1", 1, kNull, {}}};

// One process, one device with two queues: the idle lane joins the device's group.
const std::vector<ts::store::Track> kOneDevice = {
    {1, "trainer", TrackKind::thread, kNull, kNull},
    {2, "input worker 1", TrackKind::thread, kNull, kNull},
    {3, "synthetic GPU compute", TrackKind::device_queue, kNull, kNull},
    {4, "synthetic GPU copy", TrackKind::device_queue, kNull, kNull},
    {5, "prefetch buffer fill", TrackKind::counter, kNull, kNull},
};

QStringList titles(const LaneLayout& l) {
  QStringList out;
  for (const Lane& lane : l.lanes()) out << lane.title;
  return out;
}

}  // namespace

class TestLanes : public QObject {
  Q_OBJECT

 private slots:
  void a_queue_names_its_device() {
    QCOMPARE(LaneLayout::device_of("GPU 0 stream 7"), QStringLiteral("GPU 0"));
    QCOMPARE(LaneLayout::device_of("GPU 12 sync"), QStringLiteral("GPU 12"));
    QCOMPARE(LaneLayout::device_of("synthetic GPU compute"), QStringLiteral("synthetic GPU"));
    QCOMPARE(LaneLayout::device_of("pthread-skylake-avx512-AMD EPYC copy"),
             QStringLiteral("pthread-skylake-avx512-AMD EPYC"));
    QCOMPARE(LaneLayout::device_of("CPU"), QStringLiteral("CPU"));
  }

  void lanes_are_grouped_per_rank_then_per_device() {
    LaneLayout l;
    l.build(kTwoRanks, kRanks, true, one_row);
    QStringList groups;
    for (const Lane& lane : l.lanes())
      if (lane.kind == LaneKind::group) groups << lane.name;
    QCOMPARE(groups, (QStringList{"rank 0", "GPU 0", "GPU 1", "rank 1", "GPU 0"}));
    const Lane* gpu0 = l.group_lane(LaneLayout::device_group(1, QStringLiteral("GPU 0")));
    QVERIFY(gpu0);
    QCOMPARE(gpu0->level, 1);
    for (const Lane& lane : l.lanes()) {
      if (lane.kind == LaneKind::device) QCOMPARE(lane.level, 2);  // rank > device > queue
      // Three devices: the idle lane belongs to none of them.
      if (lane.kind == LaneKind::idle) QVERIFY(lane.group.isEmpty());
    }
    // Folding a rank hides its devices' headers too, and says how many lanes it holds.
    l.build(kTwoRanks, kRanks, true, one_row, {{LaneLayout::process_group(1)}, {}});
    QVERIFY(!l.group_lane(LaneLayout::device_group(1, QStringLiteral("GPU 0"))));
    QVERIFY(l.group_lane(LaneLayout::device_group(2, QStringLiteral("GPU 0"))));
    QVERIFY2(titles(l).contains(QStringLiteral("▸ rank 0 (5 lanes folded)")),
             qPrintable(titles(l).join(" | ")));
  }

  void a_single_device_holds_the_idle_lane_and_folds_with_it() {
    LaneLayout l;
    l.build(kOneDevice, {}, true, one_row);
    const QString key = LaneLayout::device_group(kNull, QStringLiteral("synthetic GPU"));
    QVERIFY(l.group_lane(key));
    QCOMPARE(titles(l), (QStringList{"steps", "trainer", "input worker 1", "▾ synthetic GPU",
                                     "synthetic GPU compute", "synthetic GPU copy", "device idle",
                                     "prefetch buffer fill"}));
    for (const Lane& lane : l.lanes())
      if (lane.kind == LaneKind::idle) QCOMPARE(lane.group, key);
    l.build(kOneDevice, {}, true, one_row, {{key}, {}});
    QCOMPARE(titles(l), (QStringList{"steps", "trainer", "input worker 1",
                                     "▸ synthetic GPU (3 lanes folded)", "prefetch buffer fill"}));
    QVERIFY(l.group_lane(key)->collapsed);
  }

  void pinned_groups_lie_in_a_band_that_does_not_scroll() {
    LaneLayout l;
    l.build(kOneDevice, {}, true, one_row);
    QCOMPARE(l.pinned_height(), 0.0);
    const double height = l.height();
    const QString key = LaneLayout::device_group(kNull, QStringLiteral("synthetic GPU"));
    l.build(kOneDevice, {}, true, one_row, {{}, {key}});
    QCOMPARE(l.height(), height);  // the same lanes, in another order
    // The device's header, queues and idle lane first; then the rest in their usual order.
    QCOMPARE(titles(l), (QStringList{"▾ synthetic GPU", "synthetic GPU compute",
                                     "synthetic GPU copy", "device idle", "steps", "trainer",
                                     "input worker 1", "prefetch buffer fill"}));
    const double band = l.pinned_height();
    QVERIFY(band > 0);
    for (const Lane& lane : l.lanes()) {
      if (lane.pinned) {
        QVERIFY(lane.y + lane.height <= band);
        QCOMPARE(l.view_y(lane, lane.y, 500), lane.y);  // scrolling leaves it in place
      } else {
        QVERIFY(lane.y >= band);
        QCOMPARE(l.view_y(lane, lane.y, 500), lane.y - 500);
      }
    }
    // What is shown at a height: the band's content as it is, below it the scrolled content.
    QCOMPARE(l.content_y(band / 2, 40), band / 2);
    QCOMPARE(l.content_y(band + 10, 40), band + 50);
    QCOMPARE(l.lane_at(l.content_y(2 * LaneLayout::kLaneGap, 1000))->kind, LaneKind::group);
    // Pinning a rank pins its devices with it.
    l.build(kTwoRanks, kRanks, true, one_row, {{}, {LaneLayout::process_group(2)}});
    QCOMPARE(l.lanes().front().name, QStringLiteral("rank 1"));
    int pinned = 0;
    for (const Lane& lane : l.lanes()) pinned += lane.pinned;
    QCOMPARE(pinned, 4);  // rank 1's header, main, its GPU 0's header and stream
  }

  // The step lane's marks come from the analysis's figures: of several figures with one number
  // (ranks), the last listed; whether the figures' numbers ascend (one walk) or not (a lookup).
  void the_step_row_is_marked_from_the_figures() {
    std::vector<ts::store::Step> steps;
    for (int s = 0; s < 3000; ++s) steps.push_back({s, 1000 + s * 100, 100, 0});
    const auto figure = [](std::int64_t step, bool bound, double pct) {
      ts::analysis::StepSummary f;
      f.step = step;
      f.input_bound = bound;
      f.input_verdict = !bound      ? ts::analysis::Verdict::none
                        : pct >= 20 ? ts::analysis::Verdict::high
                                    : ts::analysis::Verdict::moderate;
      f.input_pct = pct;
      return f;
    };
    std::vector<ts::analysis::StepSummary> ascending, two_ranks;
    for (std::int64_t s = 0; s < 3000; s += 2) {  // odd steps have no figures
      ascending.push_back(figure(s, false, 1));
      ascending.push_back(figure(s, s % 3 == 0, 40));  // the same number again: it wins
    }
    for (const bool second : {false, true})
      for (std::int64_t s = 0; s < 3000; ++s)
        two_ranks.push_back(figure(s, second && s % 5 == 0, second ? 50 : 2));
    for (const auto* figures : {&ascending, &two_ranks}) {
      const PackedSteps packed(*figures);
      StepRow row = make_step_row(steps, nullptr);
      QCOMPARE(row.bound_in(0, row.numbers.size()), 0u);
      mark_step_row(row, &packed);
      std::uint32_t bound = 0;
      std::vector<std::uint32_t> want_bound(row.numbers.size());
      for (std::size_t i = 0; i < row.numbers.size(); ++i) {
        const ts::analysis::StepSummary* want = nullptr;
        for (const auto& f : *figures)
          if (f.step == row.numbers[i]) want = &f;
        want_bound[i] = want && want->input_bound ? 1 : 0;
        QCOMPARE(row.input_bound[i] != 0, want && want->input_bound);
        QCOMPARE(row.input_pct[i], want ? static_cast<float>(want->input_pct) : -1.f);
        QCOMPARE(row.input_class(i), want ? want->input_verdict : ts::analysis::Verdict::none);
        bound += row.input_bound[i] != 0;
        QCOMPARE(row.bound_in(0, i + 1), bound);
      }
      QVERIFY(bound > 0);
      mark_step_row(row, nullptr);  // unknown again
      QCOMPARE(row.bound_in(0, row.numbers.size()), 0u);

      // A whole-trace row of very many steps gives a zone several: the same input-bound steps,
      // counted per zone, and every step in one zone.
      StepRow coarse = make_step_row(steps, nullptr, {}, 7);
      QCOMPARE(coarse.per_zone, std::size_t{7});
      QCOMPARE(coarse.row.zones.size(), std::size_t{(3000 + 6) / 7});
      QCOMPARE(coarse.steps_in(0, coarse.row.zones.size()), std::size_t{3000});
      QCOMPARE(coarse.steps_in(428, 429), std::size_t{4});  // the last zone: what is left
      QCOMPARE(coarse.numbers[2], std::int64_t{14});
      QCOMPARE(coarse.row.zones[2].start_ns, steps[14].start_ns);
      QCOMPARE(coarse.row.zones[2].end_ns, steps[20].start_ns + steps[20].dur_ns);
      mark_step_row(coarse, &packed);
      QCOMPARE(coarse.bound_in(0, coarse.row.zones.size()), bound);
      for (std::size_t z = 0; z < coarse.row.zones.size(); ++z) {
        std::uint32_t in_zone = 0;
        for (std::size_t k = z * 7; k < std::min<std::size_t>(z * 7 + 7, 3000); ++k)
          in_zone += want_bound[k];
        QCOMPARE(coarse.bound_in(z, z + 1), in_zone);
        QCOMPARE(coarse.input_bound[z] != 0, in_zone > 0);
        QCOMPARE(coarse.high_in(z, z + 1), in_zone);  // every input-bound figure here is >= 40 %
      }
    }
  }

  // A merged run of gaps is coloured by the cause of most of its idle time, exactly: ten long
  // waits for input among 990 short host-bound gaps, which sampling would miss, win.
  void a_merged_run_of_gaps_is_coloured_by_most_idle_time() {
    std::vector<ts::analysis::IdleGap> gaps;
    for (int i = 0; i < 1000; ++i) {
      ts::analysis::IdleGap g;
      g.start_ns = i * 3000;
      const bool input = i % 100 == 37;
      g.end_ns = g.start_ns + (input ? 2000 : 10);
      g.cause = input ? ts::analysis::IdleCause::input : ts::analysis::IdleCause::host;
      g.step = i / 10;
      gaps.push_back(g);
    }
    const GapRow row = make_gap_row(gaps);
    QVERIFY(!row.cause_sums.empty());
    for (const auto& [first, last] :
         {std::pair<std::size_t, std::size_t>{0, 1000}, {5, 999}, {30, 200}, {60, 70}}) {
      std::array<std::int64_t, ts::analysis::kIdleCauseCount> ns{};
      for (std::size_t i = first; i < last; ++i)
        ns[static_cast<std::size_t>(gaps[i].cause)] += gaps[i].end_ns - gaps[i].start_ns;
      const auto want =
          static_cast<ts::analysis::IdleCause>(std::max_element(ns.begin(), ns.end()) - ns.begin());
      QCOMPARE(static_cast<int>(row.dominant(first, last)), static_cast<int>(want));
    }
    QCOMPARE(static_cast<int>(row.dominant(0, 1000)),
             static_cast<int>(ts::analysis::IdleCause::input));
  }

  // The per-step idle lane of a trace of very many steps: a zone per run of steps with idle time,
  // their idle time summed, the commonest cause by time, and how many steps it stands for.
  void the_idle_row_of_very_many_steps_gives_a_zone_several() {
    std::vector<ts::analysis::StepSummary> steps(50);
    for (std::size_t i = 0; i < steps.size(); ++i) {
      auto& s = steps[i];
      s.step = static_cast<std::int64_t>(i);
      s.start_ns = 1000 + static_cast<std::int64_t>(i) * 100;
      s.dur_ns = 90;
      if (i % 5 != 4)  // every fifth step has no idle time
        s.idle_by_cause_ns[i < 25 ? 1 : 2] = static_cast<std::int64_t>(i) + 1;
    }
    const PackedSteps packed(steps);
    const GapRow one = make_step_idle_row(packed);
    QCOMPARE(one.row.zones.size(), std::size_t{40});
    const GapRow runs = make_step_idle_row(packed, 4);
    QCOMPARE(runs.per_zone, std::size_t{4});
    QCOMPARE(runs.row.zones.size(), std::size_t{10});
    std::int64_t idle = 0, idle_runs = 0;
    std::uint32_t counted = 0;
    for (std::size_t z = 0; z < one.row.zones.size(); ++z) idle += one.idle_ns[z];
    for (std::size_t z = 0; z < runs.row.zones.size(); ++z) {
      idle_runs += runs.idle_ns[z];
      counted += runs.row.zones[z].count;
      QVERIFY(runs.row.zones[z].start_ns < runs.row.zones[z].end_ns);
    }
    QCOMPARE(idle_runs, idle);
    QCOMPARE(counted, 40u);
    QCOMPARE(runs.steps[1], std::int64_t{5});  // the second run starts at step 5 (4 has none)
    QCOMPARE(runs.row.zones[0].label, 1u);
    QCOMPARE(runs.row.zones.back().label, 2u);
    // Labelled by the cause of most of its idle time: one long wait for input among three short
    // host-bound idles is a run idle for input; merged with others, weighed by idle time too.
    std::vector<ts::analysis::StepSummary> mixed(4);
    for (std::size_t i = 0; i < mixed.size(); ++i) {
      mixed[i].step = static_cast<std::int64_t>(i);
      mixed[i].start_ns = static_cast<std::int64_t>(i) * 100;
      mixed[i].dur_ns = 90;
      mixed[i].idle_by_cause_ns[i == 0 ? 0 : 1] = i == 0 ? 80 : 5;
    }
    const GapRow voted = make_step_idle_row(PackedSteps(mixed), 4);
    QCOMPARE(voted.row.zones.size(), std::size_t{1});
    QCOMPARE(voted.row.zones[0].label, 0u);
    QCOMPARE(voted.idle_ns[0], std::int64_t{95});
    const GapRow each = make_step_idle_row(PackedSteps(mixed));
    QCOMPARE(each.row.zones.size(), std::size_t{4});
    QCOMPARE(static_cast<int>(each.dominant(0, 4)), 0);  // 80 ns against 15, over equal steps
  }

  void the_step_row_knows_where_each_epoch_starts() {
    std::vector<ts::store::Step> steps;
    for (int s = 0; s < 12; ++s) steps.push_back({s, 1000 + s * 100, 100, 0});
    const StepRow none = make_step_row(steps, nullptr, {0});  // one epoch: nothing to mark
    QVERIFY(none.epochs.empty());
    QCOMPARE(none.epoch_of(5), 0);
    const StepRow row = make_step_row(steps, nullptr, {0, 4, 8});
    QCOMPARE(row.epochs.size(), std::size_t{3});
    QCOMPARE(row.epochs[1].zone, std::size_t{4});
    QCOMPARE(row.epochs[2].epoch, 3);
    QCOMPARE(row.epoch_of(3), 1);
    QCOMPARE(row.epoch_of(4), 2);
    QCOMPARE(row.epoch_of(11), 3);

    // Drawn as a line per epoch, named while the names fit.
    LaneLayout layout;
    layout.build({}, {}, false, one_row);
    for (const double width : {1000.0, 60.0}) {
      const TimeMapping m(1000, 2200, width);
      DrawContext ctx;
      ctx.mapping = &m;
      ctx.layout = &layout;
      ctx.area = QRectF(200, 26, width, 300);
      ctx.steps = &row;
      const DrawList list = build_draw_list(ctx);
      QCOMPARE(list.epochs.size(), std::size_t{3});
      QCOMPARE(list.epochs[1].x, 200 + m.x_of(1400));
      if (width >= 1000) {
        QCOMPARE(list.epochs[2].label, QStringLiteral("epoch 3"));
      } else {
        QVERIFY(list.epochs[1].label.isEmpty());  // 20 px from epoch 1's name
      }
    }
  }

  void instances_are_the_labels_of_exactly_one_name() {
    SummaryData d;
    d.begin_ns = 0;
    d.end_ns = 1000;
    const auto label = [](const char* name, ts::trace::Category c, std::uint64_t n) {
      ts::store::LabelStats s;
      s.name = name;
      s.category = c;
      s.count = n;
      s.bins = {0};
      s.bin_counts = {n};
      return s;
    };
    d.labels[1] = label("sgemm", ts::trace::Category::kernel, 5);
    d.labels[2] = label("sgemm", ts::trace::Category::launch, 7);
    d.labels[3] = label("sgemm_NN", ts::trace::Category::kernel, 2);
    EventSearch s;
    s.set_instances(QStringLiteral("sgemm"), d, true);  // a kernel's, as its table row counts
    QCOMPARE(s.matches(), std::uint64_t{5});
    QVERIFY(s.instances() && s.kernels_only());
    s.set_instances(QStringLiteral("sgemm"), d, false);  // any event of that name
    QCOMPARE(s.matches(), std::uint64_t{12});
    s.set_query(QStringLiteral("sgemm"), d);  // a search by name takes every name holding it
    QCOMPARE(s.matches(), std::uint64_t{14});
    QVERIFY(!s.instances());
  }
};

QTEST_MAIN(TestLanes)
#include "test_lanes.moc"
