// Interval algebra: edge cases by hand, then every operation against a brute-force bitmap on
// random sets.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "profiler/analysis/intervals.hpp"

namespace {

using ts::analysis::Interval;
using ts::analysis::IntervalSet;
namespace a = ts::analysis;

IntervalSet set_of(std::initializer_list<Interval> l) {
  IntervalSet s(l);
  a::normalise(s);
  return s;
}

TEST(Intervals, NormaliseSortsMergesOverlapsAndTouchesAndDropsEmpty) {
  IntervalSet s{{10, 20}, {0, 5}, {5, 7}, {15, 30}, {40, 40}, {50, 45}, {31, 32}};
  a::normalise(s);
  EXPECT_EQ(s, (IntervalSet{{0, 7}, {10, 30}, {31, 32}}));
  EXPECT_TRUE(a::is_normal(s));
  EXPECT_FALSE(a::is_normal(IntervalSet{{0, 5}, {5, 7}}));  // touching
  EXPECT_FALSE(a::is_normal(IntervalSet{{3, 3}}));          // empty
  EXPECT_FALSE(a::is_normal(IntervalSet{{5, 7}, {0, 2}}));  // unsorted
  EXPECT_EQ(a::total_length(s), 7 + 20 + 1);
}

TEST(Intervals, UniteMergesAcrossBothInputs) {
  IntervalSet out;
  a::unite(set_of({{0, 10}, {20, 30}}), set_of({{10, 12}, {25, 40}, {50, 60}}), out);
  EXPECT_EQ(out, (IntervalSet{{0, 12}, {20, 40}, {50, 60}}));
  a::unite({}, set_of({{1, 2}}), out);
  EXPECT_EQ(out, (IntervalSet{{1, 2}}));
}

TEST(Intervals, IntersectKeepsOnlyCommonTime) {
  IntervalSet out;
  a::intersect(set_of({{0, 10}, {20, 30}}), set_of({{5, 25}}), out);
  EXPECT_EQ(out, (IntervalSet{{5, 10}, {20, 25}}));
  a::intersect(set_of({{0, 10}}), set_of({{10, 20}}), out);  // touching: nothing in common
  EXPECT_TRUE(out.empty());
  a::intersect(set_of({{0, 100}}), set_of({{10, 20}, {30, 40}}), out);
  EXPECT_EQ(out, (IntervalSet{{10, 20}, {30, 40}}));
}

TEST(Intervals, SubtractPunchesHolesAndHandlesSpanningIntervals) {
  IntervalSet out;
  // One b interval spanning two a intervals, one inside, one at the edge.
  a::subtract(set_of({{0, 10}, {20, 30}, {40, 50}}), set_of({{5, 25}, {42, 44}, {50, 60}}), out);
  EXPECT_EQ(out, (IntervalSet{{0, 5}, {25, 30}, {40, 42}, {44, 50}}));
  a::subtract(set_of({{0, 10}}), set_of({{0, 10}}), out);
  EXPECT_TRUE(out.empty());
  a::subtract(set_of({{0, 10}}), {}, out);
  EXPECT_EQ(out, (IntervalSet{{0, 10}}));
  a::subtract(set_of({{10, 20}}), set_of({{0, 5}, {30, 40}}), out);
  EXPECT_EQ(out, (IntervalSet{{10, 20}}));
}

TEST(Intervals, GapsAndClipStayInsideTheWindow) {
  const IntervalSet busy = set_of({{0, 10}, {20, 30}, {45, 100}});
  IntervalSet out;
  a::gaps(busy, {5, 50}, out);
  EXPECT_EQ(out, (IntervalSet{{10, 20}, {30, 45}}));
  a::gaps(busy, {21, 29}, out);  // fully covered
  EXPECT_TRUE(out.empty());
  a::gaps({}, {3, 9}, out);  // nothing busy: the whole window
  EXPECT_EQ(out, (IntervalSet{{3, 9}}));
  a::gaps(busy, {100, 120}, out);  // window after the set; the touching interval leaves all
  EXPECT_EQ(out, (IntervalSet{{100, 120}}));
  a::clip(busy, {5, 50}, out);
  EXPECT_EQ(out, (IntervalSet{{5, 10}, {20, 30}, {45, 50}}));
  EXPECT_EQ(a::overlap_length(busy, {5, 50}), 5 + 10 + 5);
  EXPECT_EQ(a::overlapping(busy, {10, 20}).size(), 0u);  // touching both neighbours only
  EXPECT_EQ(a::overlapping(busy, {9, 21}).size(), 2u);
}

TEST(Intervals, SetBuilderMergesInOrderAndSortsOtherwise) {
  a::SetBuilder b;
  b.add(0, 10);
  b.add(5, 8);    // inside
  b.add(10, 12);  // touching
  b.add(20, 20);  // empty
  b.add(30, 40);
  EXPECT_EQ(b.finish(), (IntervalSet{{0, 12}, {30, 40}}));
  b.add(30, 40);
  b.add(0, 10);  // out of order
  b.add(35, 50);
  EXPECT_EQ(b.finish(), (IntervalSet{{0, 10}, {30, 50}}));
}

TEST(Intervals, StreamingBuilderDropsOnlyWhatLiesBehind) {
  a::SetBuilder b;
  b.add(0, 10);
  b.add(20, 30);
  b.add(25, 40);
  EXPECT_EQ(std::vector<Interval>(b.live().begin(), b.live().end()),
            (IntervalSet{{0, 10}, {20, 40}}));
  b.drop_before(15);
  EXPECT_EQ(std::vector<Interval>(b.live().begin(), b.live().end()), (IntervalSet{{20, 40}}));
  b.drop_before(50);
  EXPECT_TRUE(b.live().empty());
  // An interval starting inside a dropped one must not vanish with it.
  b.add(35, 60);
  EXPECT_EQ(std::vector<Interval>(b.live().begin(), b.live().end()), (IntervalSet{{35, 60}}));
  b.add(10, 12);  // out of order: sorted when read
  b.add(70, 80);
  EXPECT_EQ(b.finish(), (IntervalSet{{10, 12}, {35, 60}, {70, 80}}));
  // Many drops compact the storage without losing the live part.
  for (int i = 0; i < 5000; ++i) {
    b.add(i * 10, i * 10 + 5);
    b.drop_before(i * 10 - 20);
  }
  EXPECT_EQ(std::vector<Interval>(b.live().begin(), b.live().end()),
            (IntervalSet{{49970, 49975}, {49980, 49985}, {49990, 49995}}));
}

TEST(Intervals, EventIntervalClampsHostileTimes) {
  const Interval i = a::event_interval(INT64_MAX - 5, INT64_MAX);
  EXPECT_EQ(i.start, a::kTimeLimit);
  EXPECT_EQ(i.length(), a::kTimeLimit);
  EXPECT_EQ(a::event_interval(10, -3).length(), 0);
  EXPECT_EQ(a::sat_add(INT64_MAX - 1, 5), INT64_MAX);
  EXPECT_EQ(a::sat_add(2, 3), 5);
}

// Every operation against a bitmap of [0, 200) on random sets.
TEST(Intervals, RandomSetsMatchABitmap) {
  constexpr int kN = 200;
  std::mt19937 rng(7);
  auto random_set = [&](std::vector<bool>& bits) {
    IntervalSet s;
    bits.assign(kN, false);
    const int n = static_cast<int>(rng() % 8);
    for (int i = 0; i < n; ++i) {
      const int start = static_cast<int>(rng() % kN);
      const int end = std::min(kN, start + static_cast<int>(rng() % 40));
      s.push_back({start, end});
      for (int t = start; t < end; ++t) bits[static_cast<std::size_t>(t)] = true;
    }
    a::normalise(s);
    return s;
  };
  auto bitmap = [&](const IntervalSet& s) {
    std::vector<bool> bits(kN, false);
    for (const Interval& i : s)
      for (auto t = i.start; t < i.end; ++t) bits[static_cast<std::size_t>(t)] = true;
    return bits;
  };
  for (int round = 0; round < 500; ++round) {
    std::vector<bool> ba, bb;
    const IntervalSet sa = random_set(ba), sb = random_set(bb);
    ASSERT_TRUE(a::is_normal(sa));
    IntervalSet u, x, d, g;
    a::unite(sa, sb, u);
    a::intersect(sa, sb, x);
    a::subtract(sa, sb, d);
    const Interval w{static_cast<std::int64_t>(rng() % kN), static_cast<std::int64_t>(kN)};
    a::gaps(sa, w, g);
    ASSERT_TRUE(a::is_normal(u) && a::is_normal(x) && a::is_normal(d) && a::is_normal(g));
    const auto bu = bitmap(u), bx = bitmap(x), bd = bitmap(d), bg = bitmap(g);
    std::int64_t in_window = 0;
    for (std::size_t t = 0; t < kN; ++t) {
      ASSERT_EQ(bu[t], ba[t] || bb[t]) << round << " t=" << t;
      ASSERT_EQ(bx[t], ba[t] && bb[t]) << round << " t=" << t;
      ASSERT_EQ(bd[t], ba[t] && !bb[t]) << round << " t=" << t;
      const bool inside = static_cast<std::int64_t>(t) >= w.start;
      ASSERT_EQ(bg[t], inside && !ba[t]) << round << " t=" << t;
      in_window += inside && ba[t];
    }
    ASSERT_EQ(a::overlap_length(sa, w), in_window);
  }
}

}  // namespace
