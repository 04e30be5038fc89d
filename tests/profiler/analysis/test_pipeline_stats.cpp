// Pipeline stage statistics: self time of nested stage zones, time per sample, threads,
// utilisation, the bottleneck stage, a split pass merging like a sequential one, and the
// prefetch fill mean.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "profiler/analysis/pipeline_stats.hpp"

namespace {

namespace a = ts::analysis;
using ts::trace::Category;

struct Ev {
  int track;
  Category c;
  std::int64_t start, end;
};

// Worker 0: read [0,100) ⊃ decode [20,70) ⊃ map [30,40); read [100,150). Worker 1: decode [0,40).
// Trainer (track 2): batch [10,15). In start order.
const Ev kEvents[] = {
    {0, Category::input_read, 0, 100},  {1, Category::input_decode, 0, 40},
    {2, Category::input_batch, 10, 15}, {0, Category::input_decode, 20, 70},
    {0, Category::input_map, 30, 40},   {0, Category::input_read, 100, 150},
};

const a::StageStat& stage(const a::PipelineStats& p, const std::string& name) {
  for (const auto& s : p.stages)
    if (s.stage == name) return s;
  throw std::runtime_error("no stage " + name);
}

TEST(PipelineStats, SelfTimePerSampleThreadsAndBottleneck) {
  a::StageAccumulator acc;
  for (const Ev& e : kEvents) acc.add(e.track, e.c, {e.start, e.end});
  acc.add(0, Category::kernel, {0, 1000});  // not a stage: ignored
  const a::PipelineStats p = acc.finish(/*samples=*/10, /*wall_ns=*/200);
  ASSERT_EQ(p.stages.size(), 4u);
  EXPECT_EQ(p.stages[0].stage, "read");  // pipeline order
  EXPECT_EQ(stage(p, "read").total_ns, 100 - 50 + 50);
  EXPECT_EQ(stage(p, "decode").total_ns, 50 - 10 + 40);
  EXPECT_EQ(stage(p, "map").total_ns, 10);
  EXPECT_EQ(stage(p, "batch").total_ns, 5);
  EXPECT_EQ(stage(p, "read").count, 2);
  EXPECT_EQ(stage(p, "decode").threads, 2);
  EXPECT_EQ(stage(p, "read").threads, 1);
  EXPECT_DOUBLE_EQ(stage(p, "decode").ns_per_sample, 8.0);
  EXPECT_DOUBLE_EQ(stage(p, "read").utilisation_pct, 50.0);    // 100 / (1 × 200)
  EXPECT_DOUBLE_EQ(stage(p, "decode").utilisation_pct, 20.0);  // 80 / (2 × 200)
  // read: 10 ns per sample on 1 thread beats decode's 8 on 2.
  EXPECT_EQ(p.bottleneck_stage, "read");
}

TEST(PipelineStats, EachStageNamesTheEventHoldingMostOfItsSelfTime) {
  // Labels: 1 "Map" (a map zone enclosing a 60 ns decode), 2 "ParallelMapV2", 3 "DecodeJpeg".
  a::StageAccumulator acc;
  acc.add(0, Category::input_map, {0, 100}, 1);     // self 100 - 60 = 40
  acc.add(0, Category::input_decode, {20, 80}, 3);  // nested: 60
  acc.add(1, Category::input_map, {0, 50}, 2);      // 50: more self time than "Map"
  const auto names = [](std::uint32_t label) -> std::string_view {
    return label == 1 ? "Map" : label == 2 ? "ParallelMapV2" : "DecodeJpeg";
  };
  const a::PipelineStats p = acc.finish(1, 100, names);
  ASSERT_EQ(p.stages.size(), 2u);
  EXPECT_EQ(p.stages[0].stage, "decode");
  EXPECT_EQ(p.stages[0].main_event, "DecodeJpeg");
  EXPECT_EQ(p.stages[1].stage, "map");
  EXPECT_EQ(p.stages[1].total_ns, 90);
  EXPECT_EQ(p.stages[1].main_event, "ParallelMapV2");
  EXPECT_EQ(acc.finish(1, 100).stages[1].main_event, "");  // no names asked for
}

TEST(PipelineStats, ParallelismDecidesTheBottleneck) {
  a::StageAccumulator acc;
  acc.add(0, Category::input_decode, {0, 90});  // 90 ns on one thread
  acc.add(1, Category::input_read, {0, 50});    // 100 ns over two threads: 50 each
  acc.add(2, Category::input_read, {0, 50});
  EXPECT_EQ(acc.finish(10, 100).bottleneck_stage, "decode");
  a::StageAccumulator none;
  EXPECT_FALSE(none.finish(10, 100).bottleneck_stage.has_value());
  EXPECT_TRUE(none.finish(10, 100).stages.empty());
}

TEST(PipelineStats, UnknownSampleCountReportsPerEvent) {
  a::StageAccumulator acc;
  acc.add(0, Category::input_read, {0, 30});
  acc.add(0, Category::input_read, {40, 50});
  EXPECT_DOUBLE_EQ(acc.finish(0, 100).stages[0].ns_per_sample, 20.0);
}

TEST(PipelineStats, ASplitPassMergesToTheSequentialFigures) {
  a::StageAccumulator whole;
  for (const Ev& e : kEvents) whole.add(e.track, e.c, {e.start, e.end});
  const a::PipelineStats expected = whole.finish(10, 200);
  // Cut at every possible point, including inside the three-level nesting on worker 0.
  for (std::int64_t cut : {1, 12, 25, 35, 100, 120}) {
    a::StageAccumulator first, second(/*later_part=*/true);
    for (const Ev& e : kEvents)
      (e.start < cut ? first : second).add(e.track, e.c, {e.start, e.end});
    first.merge(std::move(second));
    const a::PipelineStats got = first.finish(10, 200);
    ASSERT_EQ(got.stages.size(), expected.stages.size()) << cut;
    for (std::size_t i = 0; i < got.stages.size(); ++i) {
      EXPECT_EQ(got.stages[i].total_ns, expected.stages[i].total_ns) << cut << " " << i;
      EXPECT_EQ(got.stages[i].count, expected.stages[i].count) << cut << " " << i;
      EXPECT_EQ(got.stages[i].threads, expected.stages[i].threads) << cut << " " << i;
    }
    EXPECT_EQ(got.bottleneck_stage, expected.bottleneck_stage);
  }
}

TEST(PipelineStats, PrefetchFillIsATimeWeightedMean) {
  const ts::store::CounterSample s[] = {{0, 1}, {10, 3}};
  EXPECT_DOUBLE_EQ(*a::time_weighted_mean(s, 20), 2.0);  // 1 for 10 ns, 3 for 10 ns
  EXPECT_DOUBLE_EQ(*a::time_weighted_mean(s, 40), 2.5);  // 1 for 10 ns, 3 for 30 ns
  const ts::store::CounterSample one[] = {{50, 4}};
  EXPECT_DOUBLE_EQ(*a::time_weighted_mean(one, 50), 4.0);  // no span: the plain mean
  EXPECT_FALSE(a::time_weighted_mean({}, 0).has_value());
  const ts::store::CounterSample bad[] = {{0, std::numeric_limits<double>::quiet_NaN()}, {10, 2}};
  EXPECT_DOUBLE_EQ(*a::time_weighted_mean(bad, 20), 2.0);
}

}  // namespace
