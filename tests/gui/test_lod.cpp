// Level of detail: merging sub-pixel zones (lod.hpp), the streaming merge of the summary
// (RowMerger, profiler/store/overview_builder.hpp), counter thinning and the ruler.
#include <QtTest>
#include <random>

#include "gui/models/counter_series.hpp"
#include "gui/models/lod.hpp"
#include "gui/models/ruler.hpp"
#include "profiler/store/overview_builder.hpp"

using namespace ts::gui;
using ts::store::DepthTracker;
using ts::store::RowMerger;

namespace {

Row row_of(const std::vector<std::pair<std::int64_t, std::int64_t>>& spans) {
  Row r;
  for (const auto& [s, e] : spans) r.push(Zone{s, e, 0, 1});
  return r;
}

// A random row: zones that never overlap, widths from sub-pixel to wide, some gaps.
Row random_row(std::mt19937_64& rng, int n, std::int64_t max_dur, std::int64_t max_gap) {
  Row r;
  std::int64_t t = 0;
  for (int i = 0; i < n; ++i) {
    t += static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(max_gap + 1));
    const std::int64_t d =
        static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(max_dur + 1));
    r.push(Zone{t, t + d, static_cast<std::uint32_t>(i), 1});
    t += d;
  }
  return r;
}

// The items partition the visible zones, in order; each is at least a pixel wide and covers the
// zones it stands for; counts add up.
void check_partition(const Row& row, const TimeMapping& m, const std::vector<DrawItem>& items,
                     double min_px) {
  const auto [first, last] = visible_zones(row, m.view_begin(), m.view_end());
  std::size_t next = first;
  std::uint64_t events = 0;
  for (const DrawItem& it : items) {
    QCOMPARE(static_cast<std::size_t>(it.first), next);
    QVERIFY(it.zones >= 1);
    QVERIFY(it.x1 - it.x0 >= 1 - 1e-9);
    QVERIFY(it.longest >= it.first && it.longest < it.first + it.zones);
    const Zone& a = row.zones[it.first];
    const Zone& b = row.zones[it.first + it.zones - 1];
    const double lo = -min_px - 1, hi = m.width() + min_px + 1;
    QVERIFY(it.x0 <= std::clamp(m.x_of(a.start_ns), lo, hi) + 1e-6);
    QVERIFY(it.x1 >= std::clamp(m.x_of(b.end_ns), lo, hi) - 1e-6);
    QCOMPARE(it.events, row.events(it.first, it.first + it.zones));
    events += it.events;
    next = it.first + it.zones;
  }
  QCOMPARE(next, last);
  QCOMPARE(events, row.events(first, last));
}

}  // namespace

class TestLod : public QObject {
  Q_OBJECT

 private slots:
  void wide_zones_are_drawn_one_by_one() {
    const Row row = row_of({{0, 100}, {200, 300}, {400, 1000}});
    const TimeMapping m(0, 1000, 1000);  // 1 ns per px: every zone is 100+ px
    std::vector<DrawItem> items;
    build_row_items(row, m, 3, items);
    QCOMPARE(items.size(), std::size_t{3});
    for (const DrawItem& it : items) QVERIFY(!it.merged());
    QCOMPARE(items[1].x0, 200.0);
    QCOMPARE(items[1].x1, 300.0);
  }

  // A merged item of up to 64 zones is coloured by the label with the most time among all of
  // them (here every third zone is long and of label 0, the rest short and of label 1, so a
  // sample of every third zone would pick 0), and represented by a zone of that label.
  void a_merged_items_label_is_the_one_with_the_most_time() {
    Row row;
    std::int64_t t = 0;
    for (int i = 0; i < 48; ++i) {
      const bool long_one = i % 3 == 0;
      const std::int64_t d = long_one ? 3 : 2;
      row.push(Zone{t, t + d, long_one ? 0u : 1u, 1});
      t += d;
    }
    const TimeMapping m(0, t, 4);  // the whole row in under 8 px: one merged item
    std::vector<DrawItem> items;
    build_row_items(row, m, 3, items);
    QCOMPARE(items.size(), std::size_t{1});
    QCOMPARE(items[0].zones, 48u);
    QCOMPARE(row.zones[items[0].longest].label, 1u);  // 32 x 2 ns against 16 x 3 ns
    QCOMPARE(row.zones[items[0].longest].end_ns - row.zones[items[0].longest].start_ns,
             std::int64_t{2});
  }

  void sub_pixel_zones_merge_with_their_count() {
    // 1000 zones of 1 ns every 2 ns over 2000 ns, drawn on 100 px (20 ns per px).
    std::vector<std::pair<std::int64_t, std::int64_t>> spans;
    for (int i = 0; i < 1000; ++i) spans.push_back({2 * i, 2 * i + 1});
    const Row row = row_of(spans);
    const TimeMapping m(0, 2000, 100);
    std::vector<DrawItem> items;
    build_row_items(row, m, 3, items, 1e9);  // no cap on a run's width: one block
    QCOMPARE(items.size(), std::size_t{1});
    QVERIFY(items[0].merged());
    QCOMPARE(items[0].events, std::uint64_t{1000});
    items.clear();
    build_row_items(row, m, 3, items, 8);  // runs end at 8 px: a strip of blocks
    QVERIFY(items.size() >= 100 / 9 && items.size() <= 100 / 8 + 2);
    check_partition(row, m, items, 3);
  }

  void a_lone_sub_pixel_zone_stays_visible() {
    const Row row = row_of({{0, 10}, {500'000, 500'001}, {999'990, 1'000'000}});
    const TimeMapping m(0, 1'000'000, 1000);  // 1000 ns per px
    std::vector<DrawItem> items;
    build_row_items(row, m, 3, items);
    QCOMPARE(items.size(), std::size_t{3});
    for (const DrawItem& it : items) {
      QVERIFY(!it.merged());
      QVERIFY(it.x1 - it.x0 >= 1);
    }
  }

  void a_wide_zone_ends_a_run() {
    // Tiny zones, then a wide one right after them: the wide one is drawn on its own.
    const Row row = row_of({{0, 1}, {2, 3}, {4, 5}, {6, 5000}});
    const TimeMapping m(0, 10000, 1000);  // 10 ns per px
    std::vector<DrawItem> items;
    build_row_items(row, m, 3, items);
    QCOMPARE(items.size(), std::size_t{2});
    QCOMPARE(items[0].zones, 3u);
    QCOMPARE(items[1].zones, 1u);
    QVERIFY(!items[1].merged());
  }

  void only_visible_zones_are_drawn() {
    const Row row = row_of({{0, 10}, {100, 110}, {200, 210}, {300, 310}});
    TimeMapping m(0, 400, 400);
    m.show(150, 250);
    std::vector<DrawItem> items;
    build_row_items(row, m, 3, items);
    QCOMPARE(items.size(), std::size_t{1});
    QCOMPARE(items[0].first, 2u);
  }

  void random_rows_are_partitioned_at_every_zoom() {
    std::mt19937_64 rng(7);
    for (int round = 0; round < 30; ++round) {
      const Row row = random_row(rng, 5000, 1 + static_cast<std::int64_t>(rng() % 5000),
                                 static_cast<std::int64_t>(rng() % 3000));
      const std::int64_t end = row.zones.back().end_ns;
      TimeMapping m(0, end, 1200);
      for (int z = 0; z < 6; ++z) {
        std::vector<DrawItem> items;
        const double min_px = 1 + static_cast<double>(rng() % 4);
        build_row_items(row, m, min_px, items);
        check_partition(row, m, items, min_px);
        // Bounded by the pixels, not by the zones: separate items are min_px apart or wide.
        std::size_t narrow = 0;
        for (const DrawItem& it : items) narrow += it.x1 - it.x0 < min_px;
        QVERIFY(narrow <= static_cast<std::size_t>(m.width() / 1) + 2);
        m.zoom_at(static_cast<double>(rng() % 1200), 3.7);
      }
    }
  }

  void summary_rows_count_the_events_they_merged() {
    std::mt19937_64 rng(11);
    const Row raw = random_row(rng, 20000, 50, 40);
    const double res = 500;
    RowMerger merger(res, 4 * res);
    std::vector<Zone> merged;
    for (const Zone& z : raw.zones) merger.add(z, merged);
    merger.flush(merged);
    Row summary;
    for (const Zone& z : merged) summary.push(z);
    QVERIFY(summary.zones.size() < raw.zones.size() / 10);
    QCOMPARE(summary.events(0, summary.zones.size()), std::uint64_t{20000});
    for (std::size_t i = 0; i < summary.zones.size(); ++i) {
      const Zone& z = summary.zones[i];
      QVERIFY(z.end_ns - z.start_ns <= 4 * res + 50);  // runs stay short enough to take apart
      if (i > 0) QVERIFY(summary.zones[i - 1].end_ns <= z.start_ns);
    }
    // Drawn zoomed out, the summary stands for the same events as the raw row.
    const TimeMapping m(0, raw.zones.back().end_ns, 800);
    std::vector<DrawItem> a, b;
    build_row_items(raw, m, 3, a);
    build_row_items(summary, m, 3, b);
    check_partition(summary, m, b, 3);
    std::uint64_t ea = 0, eb = 0;
    for (const DrawItem& it : a) ea += it.events;
    for (const DrawItem& it : b) eb += it.events;
    QCOMPARE(ea, eb);
  }

  void depth_tracks_nesting_per_track() {
    DepthTracker d;
    QCOMPARE(d.push(1, 0, 100), 0);
    QCOMPARE(d.push(1, 10, 50), 1);
    QCOMPARE(d.push(1, 20, 30), 2);
    QCOMPARE(d.push(2, 25, 26), 0);  // another track
    QCOMPARE(d.push(1, 50, 60), 1);  // after its sibling ended
    QCOMPARE(d.push(1, 100, 120), 0);
    QCOMPARE(d.push(1, 110, 130), 1);  // overlaps without nesting: one row deeper
  }

  void counters_are_thinned_keeping_peaks() {
    std::vector<ts::store::CounterSample> s;
    for (int i = 0; i < 100000; ++i) s.push_back({i, i == 54321 ? 1000.0 : (i % 7)});
    const CounterSeries c = make_counter_series(3, s, 1000);
    QVERIFY(c.ts_ns.size() <= 1000);
    QCOMPARE(c.samples, std::uint64_t{100000});
    QCOMPARE(c.max, 1000.0);
    QVERIFY(std::find(c.values.begin(), c.values.end(), 1000.0) != c.values.end());
    QVERIFY(std::is_sorted(c.ts_ns.begin(), c.ts_ns.end()));
    QCOMPARE(c.at(-5), std::ptrdiff_t{-1});
  }

  void ruler_ticks_are_nice_and_labelled() {
    const TimeMapping m(0, 10'000'000, 1000);  // 10 ms on 1000 px
    const auto ticks = ruler_ticks(m, 100);
    QVERIFY(!ticks.empty());
    std::int64_t step = 0;
    for (const Tick& t : ticks)
      if (t.major && t.ns > 0) {
        step = t.ns;
        break;
      }
    QCOMPARE(step, std::int64_t{1'000'000});
    QCOMPARE(ruler_label(1'000'000, 1'000'000), QStringLiteral("1 ms"));
    QCOMPARE(ruler_label(1'200'000, 200'000), QStringLiteral("1.2 ms"));
    QCOMPARE(ruler_label(12'345'678'901, 1000), QStringLiteral("12.345679 s"));
    QCOMPARE(ruler_step(0.001, 100), std::int64_t{1});
  }
};

QTEST_APPLESS_MAIN(TestLod)
#include "test_lod.moc"
