// Data-parallel shards of the input pipeline: in each step the ranks' batches are together the
// batch one process at shard_count·batch_size takes; the last step's may be short or empty.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "engine/data/pipeline/epoch_order.hpp"
#include "engine/data/pipeline/make_source.hpp"
#include "engine/data/pipeline/pipeline.hpp"

namespace ts {
namespace {

TEST(ShardOrder, EachStepIsSplitBetweenTheShardsInRankOrder) {
  std::vector<std::int64_t> order(23);
  std::iota(order.begin(), order.end(), 100);
  // batch 4, 2 shards: steps of 8 = [0,8) [8,16) [16,23); shard 0 takes the first 4 of each.
  EXPECT_EQ(shard_order(order, 4, 0, 2), (std::vector<std::int64_t>{100, 101, 102, 103, 108, 109,
                                                                    110, 111, 116, 117, 118, 119}));
  EXPECT_EQ(shard_order(order, 4, 1, 2),
            (std::vector<std::int64_t>{104, 105, 106, 107, 112, 113, 114, 115, 120, 121, 122}));
  EXPECT_EQ(shard_order(order, 4, 0, 1), order);
  // 3 shards of batch 4 on 23: the last step [12, 23) gives shard 2 only 3.
  EXPECT_EQ(shard_length(23, 4, 2, 3), 4 + 3);
  EXPECT_EQ(shard_length(20, 4, 2, 3), 4) << "a last step too short to reach shard 2";
  for (int shards : {1, 2, 3, 5})
    for (std::int64_t count : {1, 7, 23, 64, 100}) {
      std::int64_t total = 0;
      std::vector<std::int64_t> all;
      std::vector<std::int64_t> o(static_cast<std::size_t>(count));
      std::iota(o.begin(), o.end(), 0);
      for (int s = 0; s < shards; ++s) {
        const auto part = shard_order(o, 4, s, shards);
        EXPECT_EQ(static_cast<std::int64_t>(part.size()), shard_length(count, 4, s, shards));
        total += static_cast<std::int64_t>(part.size());
        all.insert(all.end(), part.begin(), part.end());
      }
      std::sort(all.begin(), all.end());
      EXPECT_EQ(all, o) << "every sample exactly once: " << count << " on " << shards;
    }
}

// Every batch of an epoch: (size, labels).
std::vector<std::vector<std::int32_t>> batches(Pipeline& p) {
  std::vector<std::vector<std::int32_t>> out;
  HostBatch b;
  while (p.next(b)) out.push_back(std::vector<std::int32_t>(b.labels.begin(), b.labels.end()));
  return out;
}

TEST(PipelineShards, TogetherTheShardsTakeTheSingleProcessBatches) {
  const auto source = make_sample_source("synthetic:70", 3);
  for (const int parallel : {0, 2}) {
    PipelineOptions one = naive_pipeline(24);
    one.parallel = parallel;
    one.seed = 5;
    Pipeline single(source, one);
    EXPECT_EQ(single.batches_per_epoch(), 3);
    std::vector<std::vector<std::vector<std::int32_t>>> shard_batches;
    for (int s = 0; s < 3; ++s) {
      PipelineOptions o = naive_pipeline(8);
      o.parallel = parallel;
      o.seed = 5;
      o.shard_index = s;
      o.shard_count = 3;
      Pipeline p(source, o);
      EXPECT_EQ(p.batches_per_epoch(), 3) << "the job's steps";
      EXPECT_EQ(p.step_samples(2), 22);
      p.start_epoch(1);
      shard_batches.push_back(batches(p));
    }
    single.start_epoch(1);
    const auto whole = batches(single);
    ASSERT_EQ(whole.size(), 3u);
    for (std::size_t step = 0; step < 3; ++step) {
      std::vector<std::int32_t> joined;
      for (const auto& s : shard_batches)
        if (step < s.size()) joined.insert(joined.end(), s[step].begin(), s[step].end());
      EXPECT_EQ(joined, whole[step]) << "step " << step << ", parallel " << parallel;
    }
    // 70 = 2 steps of 24, then 22: shards 0 and 1 take 8 each, shard 2 takes 6.
    EXPECT_EQ(shard_batches[2].back().size(), 6u);
  }
}

TEST(PipelineShards, AShardWithNothingLeftEndsItsEpochEarly) {
  const auto source = make_sample_source("synthetic:20", 3);
  PipelineOptions o = naive_pipeline(8);
  o.shard_index = 1;
  o.shard_count = 2;
  Pipeline p(source, o);  // steps [0,16) [16,20): shard 1 has nothing in the last one
  EXPECT_EQ(p.batches_per_epoch(), 2);
  EXPECT_EQ(batches(p).size(), 1u);
  o.shard_index = 2;
  EXPECT_THROW(Pipeline(source, o), std::invalid_argument);
}

}  // namespace
}  // namespace ts
