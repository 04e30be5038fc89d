// The timeline's logic with no window (gui/models/timeline, linked without the widgets): lane
// groups per rank and per device, folding and pinning, where each epoch starts and its marks,
// and the instances of one name.
#include <QtTest>

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
      for (std::size_t i = 0; i < row.numbers.size(); ++i) {
        const ts::analysis::StepSummary* want = nullptr;
        for (const auto& f : *figures)
          if (f.step == row.numbers[i]) want = &f;
        QCOMPARE(row.input_bound[i] != 0, want && want->input_bound);
        QCOMPARE(row.input_pct[i], want ? static_cast<float>(want->input_pct) : -1.f);
        bound += row.input_bound[i];
        QCOMPARE(row.bound_in(0, i + 1), bound);
      }
      QVERIFY(bound > 0);
      mark_step_row(row, nullptr);  // unknown again
      QCOMPARE(row.bound_in(0, row.numbers.size()), 0u);
    }
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
