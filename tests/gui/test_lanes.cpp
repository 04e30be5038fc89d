// The timeline's logic with no window (gui/models/timeline, linked without the widgets): lane
// groups per rank and per device, folding and pinning, where each epoch starts and its marks,
// the instances of one name, and memory lanes (scale, the device's memory).
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <array>
#include <set>
#include <unordered_map>

#include "gui/models/event_search.hpp"
#include "gui/models/packed_steps.hpp"
#include "gui/models/timeline/draw_list.hpp"
#include "gui/models/timeline/lane_layout.hpp"
#include "gui/models/timeline/timeline_data.hpp"
#include "gui/models/trace_meta.hpp"
#include "profiler/store/writer.hpp"

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

// What a draw list is built from: `layout`'s lanes over `area`, from the trace's summary.
DrawContext summary_context(const LaneLayout& layout, const SummaryData& d, const TimeMapping& m,
                            QRectF area) {
  DrawContext ctx;
  ctx.mapping = &m;
  ctx.layout = &layout;
  ctx.area = area;
  ctx.summary = &d;
  return ctx;
}

QStringList titles(const LaneLayout& l) {
  QStringList out;
  for (const Lane& lane : l.lanes()) out << lane.title;
  return out;
}

}  // namespace

class TestLanes : public QObject {
  Q_OBJECT

 private slots:
  // Above four ranks every rank's group opens folded; a rank filter lists ranks and ranges, and
  // its processes left out are not laid out.
  void many_ranks_fold_and_filter() {
    std::vector<ts::store::Process> four, five;
    for (int r = 0; r < 5; ++r) {
      (r < 4 ? four : five).push_back({static_cast<std::uint32_t>(r + 1), "rank", r, kNull, {}});
      if (r < 4) five.push_back(four.back());
    }
    QVERIFY(initial_lane_groups(four).collapsed.empty());
    const LaneGroupState folded = initial_lane_groups(five);
    QCOMPARE(folded.collapsed.size(), std::size_t{5});
    QVERIFY(folded.collapsed.count(LaneLayout::process_group(5)));

    QVERIFY(parse_rank_filter(QStringLiteral("")).has_value());
    QVERIFY(parse_rank_filter(QStringLiteral("")).value().empty());
    QCOMPARE(parse_rank_filter(QStringLiteral(" 0-2, 7 9")).value_or(std::set<std::int64_t>{}),
             (std::set<std::int64_t>{0, 1, 2, 7, 9}));
    QVERIFY(!parse_rank_filter(QStringLiteral("3-1")));
    QVERIFY(!parse_rank_filter(QStringLiteral("r1")));
    QVERIFY(!parse_rank_filter(QStringLiteral("-1")));
    QCOMPARE(processes_left_out(kRanks, {1}), std::set<std::int64_t>{1});  // rank 0's process
    QVERIFY(processes_left_out(kRanks, {}).empty());

    LaneGroupState g;
    g.hidden_processes = processes_left_out(kRanks, {1});
    LaneLayout layout;
    layout.build(kTwoRanks, kRanks, false, one_row, g);
    for (const Lane& l : layout.lanes()) {
      if (l.kind == LaneKind::steps) continue;
      QVERIFY2(l.kind == LaneKind::group ? l.process == 2 : l.track >= 11, qPrintable(l.title));
    }
  }
  // Zoomed out, a merged run is drawn as high as the share of its width its events cover
  // (Perfetto's utilisation rows), exactly from single events, as "at most" from zones that
  // stand for several; the idle lane by the steps' idle time, not their length.
  void merged_runs_show_how_much_of_their_width_is_busy() {
    const std::vector<ts::store::Track> tracks = {
        {1, "GPU 0 stream 7", TrackKind::device_queue, kNull, kNull}};
    LaneLayout layout;
    layout.build(tracks, {}, true, one_row);
    SummaryData d;
    d.has_extent = true;
    d.begin_ns = 0;
    d.end_ns = 100'000;
    TrackRows rows;
    rows.track = 1;
    for (std::int64_t t = 0; t < 100'000; t += 100) rows.row(0).push(Zone{t, t + 10, 1, 1});
    d.tracks.push_back(rows);
    std::vector<ts::analysis::StepSummary> steps(10);
    for (std::size_t i = 0; i < steps.size(); ++i) {
      steps[i].step = static_cast<std::int64_t>(i);
      steps[i].start_ns = static_cast<std::int64_t>(i) * 10'000;
      steps[i].dur_ns = 10'000;
      steps[i].idle_by_cause_ns[0] = 2'500;  // a quarter of each step
    }
    const GapRow idle = make_step_idle_row(PackedSteps(steps));
    LabelCache labels;
    const auto draw = [&](const TimeMapping& m) {
      DrawContext ctx;
      ctx.mapping = &m;
      ctx.layout = &layout;
      ctx.area = QRectF(200, 26, m.width(), 400);
      ctx.summary = &d;
      ctx.gaps = &idle;
      ctx.labels = &labels;
      return build_draw_list(ctx);
    };
    const auto check = [&](const DrawList& list, double busy, double idle_share, bool exact) {
      int merged = 0, gaps = 0;
      for (const DrawBox& b : list.boxes) {
        if (b.hit.kind == Selection::Kind::event && b.style == DrawBox::Style::merged) {
          ++merged;
          // Runs end on whole zones: within one zone's 10 ns of the share.
          QVERIFY2(std::abs(b.coverage - busy) < 0.02, qPrintable(QString::number(b.coverage)));
          QVERIFY2(b.detail.contains(QStringLiteral("busy ")), qPrintable(b.detail));
          QCOMPARE(b.detail.contains(QStringLiteral("at most")), !exact);
        }
        if (b.hit.kind == Selection::Kind::gap) {
          ++gaps;
          QVERIFY2(std::abs(b.coverage - idle_share) < 0.02,
                   qPrintable(QString::number(b.coverage)));
        }
      }
      QVERIFY(merged > 10);
      QVERIFY(gaps > 0);
    };
    const TimeMapping whole(0, 100'000, 1000);  // 100 ns a pixel: zones 0.1 px wide
    check(draw(whole), 0.1, 0.25, true);
    // Each zone stands for 3 events over its span: the share is an upper bound, and says so.
    for (Zone& z : d.tracks[0].rows[0].zones) z.count = 3;
    d.tracks[0].rows[0].cum.clear();
    for (std::size_t i = 0; i <= d.tracks[0].rows[0].zones.size(); ++i)
      d.tracks[0].rows[0].cum.push_back(3 * i);
    check(draw(whole), 0.1, 0.25, false);
    // A whole step wide (one zone): its idle quarter, not the step.
    const TimeMapping close(0, 20'000, 1000);
    for (const DrawBox& b : draw(close).boxes)
      if (b.hit.kind == Selection::Kind::gap) QVERIFY(std::abs(b.coverage - 0.25) < 1e-9);
  }
  // A memory counter is a lane of its own height drawn from zero, its scale labelled in bytes,
  // against the device's memory (meta) as a dashed line once the use reaches a quarter of it.
  void a_memory_lane_shows_its_scale_and_the_devices_memory() {
    const std::vector<ts::store::Track> tracks = {
        {1, "GPU 0 stream 7", TrackKind::device_queue, kNull, kNull},
        {2, "GPU 0 memory allocated", TrackKind::counter, kNull, kNull},
        {3, "prefetch buffer fill", TrackKind::counter, kNull, kNull}};
    LaneLayout layout;
    layout.build(tracks, {}, false, one_row);
    const Lane* memory = nullptr;
    for (const Lane& l : layout.lanes()) {
      if (l.track == 2) memory = &l;
      if (l.track == 3) QCOMPARE(l.height, LaneLayout::kCounterHeight);
    }
    QVERIFY(memory);
    QCOMPARE(memory->height, LaneLayout::kMemoryHeight);

    constexpr double kGiB = 1024.0 * 1024 * 1024;
    SummaryData d;
    d.has_extent = true;
    d.begin_ns = 0;
    d.end_ns = 1000;
    const auto series = [](std::uint32_t track, std::vector<ts::store::CounterSample> samples) {
      return ts::store::make_counter_series(track, samples);
    };
    d.counters.push_back(series(2, {{0, 1 * kGiB}, {400, 6 * kGiB}, {800, 2 * kGiB}}));
    d.counters.push_back(series(3, {{0, 1}, {500, 2}}));
    const TimeMapping m(0, 1000, 1000);
    const auto draw = [&](double capacity) {
      std::unordered_map<std::uint32_t, double> capacities;
      if (capacity > 0) capacities[2] = capacity;
      DrawContext ctx = summary_context(layout, d, m, QRectF(200, 26, 1000, 600));
      ctx.capacities = &capacities;
      return build_draw_list(ctx);
    };
    const auto texts = [](const DrawList& list) {
      QStringList out;
      for (const DrawText& t : list.texts) out << t.text;
      return out;
    };
    const auto dashed = [](const DrawList& list) {
      return std::count_if(list.lines.begin(), list.lines.end(),
                           [](const DrawLine& l) { return l.dashed; });
    };

    // 8 GiB: the line tops the scale; 6 GiB is 75 %.
    const DrawList with = draw(8 * kGiB);
    QVERIFY2(texts(with).contains(QStringLiteral("peak 6.0 GiB · 75.0 % of the device's 8.0 GiB")),
             qPrintable(texts(with).join(QStringLiteral(" | "))));
    QVERIFY(texts(with).contains(QStringLiteral("device memory 8.0 GiB")));
    QVERIFY(texts(with).contains(QStringLiteral("0 B")));
    QCOMPARE(dashed(with), 1);
    const double top = 26 + memory->y + 3 + 14;  // the plot's top, below the headline
    for (const DrawLine& l : with.lines) {
      if (l.dashed) QCOMPARE(l.points[0].y(), top);
      if (!l.dashed && l.fill.isValid()) {
        // The area under the use, down to zero at the lane's plot bottom; 6 of 8 GiB high.
        const double bottom = 26 + memory->y + memory->height - 3;
        QCOMPARE(l.fill_base, bottom);
        double highest = bottom;
        for (const QPointF& p : l.points) highest = std::min(highest, p.y());
        QVERIFY(std::abs((bottom - highest) / (bottom - top) - 0.75) < 1e-9);
      }
    }
    // 100 GiB: a line at the top would flatten 6 GiB; the share is in words, the scale is the use.
    const DrawList far = draw(100 * kGiB);
    QCOMPARE(dashed(far), 0);
    QVERIFY(texts(far).contains(QStringLiteral("peak 6.0 GiB · 6.0 % of the device's 100.0 GiB")));
    QVERIFY(texts(far).contains(QStringLiteral("6.0 GiB")));
    // Unknown: the peak alone. A counter of other things keeps its "max".
    const DrawList unknown = draw(0);
    QVERIFY(texts(unknown).contains(QStringLiteral("peak 6.0 GiB")));
    QVERIFY(texts(unknown).contains(QStringLiteral("max 2")));
    // Above 90 % of the device's memory the headline is red, as the lever warns.
    for (const DrawText& t : draw(6.4 * kGiB).texts)
      if (t.text.startsWith(QStringLiteral("peak"))) QCOMPARE(t.color, QColor(0xc6, 0x28, 0x28));
  }

  // Each memory counter's device memory comes from the trace's meta, by the counter's name.
  void memory_counters_find_their_devices_memory_in_the_meta() {
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("m.db")).toStdString();
    {
      ts::store::Writer w(path);
      w.put_track(1, "GPU 0 memory allocated", TrackKind::counter);
      w.put_track(2, "GPU 1 memory reserved", TrackKind::counter);
      w.put_track(3, "device memory Tesla V100", TrackKind::counter);
      w.put_track(4, "host memory (tensors)", TrackKind::counter);
      w.put_track(5, "prefetch buffer fill", TrackKind::counter);
      w.put_track(6, "device memory other device", TrackKind::counter);
      w.put_meta("device.gpu.0.total_memory_bytes", "16000000000");
      w.put_meta("device.gpu.1.total_memory_bytes", "garbage");
      w.put_meta("device.opencl.name", "Tesla V100");
      w.put_meta("device.opencl.global_memory_bytes", "8000000000");
      w.put_meta("host.memory_bytes", "4000000000");
      w.finish();
    }
    const ts::store::Reader r(path);
    const auto capacities = memory_capacities(r);
    QCOMPARE(capacities.size(), std::size_t{3});
    QCOMPARE(capacities.at(1), 16e9);
    QCOMPARE(capacities.at(3), 8e9);
    QCOMPARE(capacities.at(4), 4e9);
    QCOMPARE(memory_capacity(r, "GPU 1 memory reserved"), 0.0);       // not a number
    QCOMPARE(memory_capacity(r, "device memory other device"), 0.0);  // not the device described
  }
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
    l.build(kTwoRanks, kRanks, true, one_row, {{LaneLayout::process_group(1)}, {}, {}});
    QVERIFY(!l.group_lane(LaneLayout::device_group(1, QStringLiteral("GPU 0"))));
    QVERIFY(l.group_lane(LaneLayout::device_group(2, QStringLiteral("GPU 0"))));
    QVERIFY2(titles(l).contains(QStringLiteral("▸ rank 0 (5 lanes folded)")),
             qPrintable(titles(l).join(" | ")));
  }

  // A folded rank still shows when its devices worked: its header's row draws the top row of
  // its device queues (the events stay selectable), and a rank without device queues its threads.
  void a_folded_rank_draws_its_device_queues_in_its_header() {
    LaneLayout l;
    const QString rank0 = LaneLayout::process_group(1);
    l.build(kTwoRanks, kRanks, true, one_row, {{rank0}, {}, {}});
    const Lane* header = l.group_lane(rank0);
    QVERIFY(header && header->collapsed);
    QCOMPARE(header->folded_tracks, (std::vector<std::uint32_t>{2, 3, 4}));
    QVERIFY(l.group_lane(LaneLayout::process_group(2))->folded_tracks.empty());  // unfolded
    const std::vector<ts::store::Track> cpu_only = {{1, "main", TrackKind::thread, kNull, 1},
                                                    {11, "main", TrackKind::thread, kNull, 2}};
    LaneLayout cpu;
    cpu.build(cpu_only, kRanks, false, one_row, {{rank0}, {}, {}});
    QCOMPARE(cpu.group_lane(rank0)->folded_tracks, std::vector<std::uint32_t>{1});

    SummaryData d;
    d.has_extent = true;
    d.begin_ns = 0;
    d.end_ns = 1000;
    for (const std::uint32_t track : {2u, 4u, 12u}) {
      TrackRows rows;
      rows.track = track;
      rows.row(0).push(Zone{100 * track, 100 * track + 50, 1, 1});
      d.tracks.push_back(rows);
    }
    LabelCache labels;
    const TimeMapping m(0, 2000, 1000);
    DrawContext ctx = summary_context(l, d, m, QRectF(200, 26, 1000, 600));
    ctx.labels = &labels;
    const DrawList list = build_draw_list(ctx);
    const double header_top = ctx.area.top() + l.view_y(*header, header->y, 0);
    std::set<std::uint32_t> in_header;
    for (const DrawBox& b : list.boxes)
      if (b.hit.kind == Selection::Kind::event && b.rect.top() >= header_top &&
          b.rect.bottom() <= header_top + LaneLayout::kRowHeight)
        in_header.insert(b.hit.track);
    QCOMPARE(in_header, (std::set<std::uint32_t>{2, 4}));  // rank 0's queues, not rank 1's
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
    l.build(kOneDevice, {}, true, one_row, {{key}, {}, {}});
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
    l.build(kOneDevice, {}, true, one_row, {{}, {key}, {}});
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
    l.build(kTwoRanks, kRanks, true, one_row, {{}, {LaneLayout::process_group(2)}, {}});
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

  // A job's ranks record each step once each, and a rank's next step can start a few nanoseconds
  // before its last one ends (Kineto's microseconds, rounded): the row holds every step once,
  // the first rank's to start it, its zone ending where the next one starts.
  void the_step_row_of_a_job_holds_each_step_once() {
    std::vector<ts::store::Step> steps;
    for (std::int64_t s = 0; s < 6; ++s)
      for (std::uint32_t rank = 0; rank < 3; ++rank)
        steps.push_back({s, 1'000'000 + s * 25'000 + rank * 7, 25'062, rank + 1});  // 62 ns over
    std::sort(steps.begin(), steps.end(),
              [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
    const StepRow row = make_step_row(steps, nullptr);
    QCOMPARE(row.numbers, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5}));
    for (std::size_t i = 0; i < row.row.zones.size(); ++i) {
      QCOMPARE(row.row.zones[i].start_ns, 1'000'000 + static_cast<std::int64_t>(i) * 25'000);
      const std::int64_t end = i + 1 < row.row.zones.size() ? row.row.zones[i + 1].start_ns
                                                            : row.row.zones[i].start_ns + 25'062;
      QCOMPARE(row.row.zones[i].end_ns, end);
    }
    // An odd file whose steps overlap without ascending keeps a row of those that do not.
    const std::vector<ts::store::Step> odd{{5, 100, 50, 1}, {3, 120, 50, 1}, {6, 150, 10, 1}};
    const StepRow kept = make_step_row(odd, nullptr);
    QCOMPARE(kept.numbers, (std::vector<std::int64_t>{5, 6}));
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
