#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "engine/data/batcher.hpp"
#include "engine/data/pipeline/epoch_order.hpp"
#include "engine/data/pipeline/pipeline_options.hpp"

namespace ts {
namespace {

bool is_permutation_of_iota(std::vector<std::int64_t> v) {
  std::sort(v.begin(), v.end());
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i] != static_cast<std::int64_t>(i)) return false;
  return true;
}

TEST(EpochOrder, NoShuffleIsIdentity) {
  const auto order = epoch_order(10, 0, 7, 3);
  std::vector<std::int64_t> expected(10);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(order, expected);
}

TEST(EpochOrder, FullShuffleIsAPermutationThatDependsOnSeedAndEpoch) {
  const auto a = epoch_order(1000, kFullShuffle, 7, 0);
  EXPECT_TRUE(is_permutation_of_iota(a));
  EXPECT_EQ(a, epoch_order(1000, kFullShuffle, 7, 0));
  EXPECT_NE(a, epoch_order(1000, kFullShuffle, 7, 1));
  EXPECT_NE(a, epoch_order(1000, kFullShuffle, 8, 0));
  // A buffer at least as large as the data is a full shuffle.
  EXPECT_EQ(a, epoch_order(1000, 1000, 7, 0));
}

TEST(EpochOrder, FullShuffleMatchesTheInMemoryBatcher) {
  // fit(Dataset) and fit(Pipeline) visit samples in the same order for the same seed.
  Dataset ds;
  ds.count = 50;
  ds.height = ds.width = ds.channels = 1;
  ds.classes = 50;
  ds.images.resize(50);
  ds.labels.resize(50);
  for (int i = 0; i < 50; ++i) ds.labels[static_cast<std::size_t>(i)] = i;
  Batcher batcher(ds, 50, true, 9);
  batcher.start_epoch(2);
  HostBatch b;
  ASSERT_TRUE(batcher.next(b));
  const auto order = epoch_order(50, kFullShuffle, 9, 2);
  for (std::size_t i = 0; i < 50; ++i) EXPECT_EQ(b.labels[i], order[i]);
}

TEST(EpochOrder, BufferedShuffleMovesSamplesEarlierByAtMostTheBuffer) {
  const std::int64_t count = 2000, buffer = 64;
  const auto order = epoch_order(count, buffer, 3, 0);
  ASSERT_TRUE(is_permutation_of_iota(order));
  std::int64_t displaced = 0;
  for (std::int64_t pos = 0; pos < count; ++pos) {
    const std::int64_t index = order[static_cast<std::size_t>(pos)];
    // Index i enters the buffer when output position i - buffer is drawn, never earlier.
    EXPECT_GE(pos, index - buffer) << "index " << index;
    displaced += pos != index;
  }
  EXPECT_GT(displaced, count / 2);  // it does shuffle
  EXPECT_EQ(order, epoch_order(count, buffer, 3, 0));
  EXPECT_NE(order, epoch_order(count, buffer, 3, 1));
}

}  // namespace
}  // namespace ts
