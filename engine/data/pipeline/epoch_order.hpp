// The order in which an epoch visits the samples: tf.data's shuffle(buffer) applied to the
// sample indices.
#pragma once

#include <cstdint>
#include <vector>

namespace ts {

// The sample indices of epoch `epoch`, a function of (count, buffer, seed, epoch) only.
// buffer 0: 0, 1, ..., count-1. buffer >= count (or kFullShuffle): a uniform permutation.
// Otherwise tf.data's buffered shuffle: fill a buffer with the first `buffer` indices, then
// repeatedly emit a uniformly chosen buffered index and put the next input index in its place —
// each index moves at most about `buffer` positions earlier. Shuffling indices rather than
// decoded samples gives the same order without holding `buffer` decoded samples in memory.
std::vector<std::int64_t> epoch_order(std::int64_t count, std::int64_t buffer, std::uint64_t seed,
                                      int epoch);

// Data parallelism: the positions of `order` that shard `index` of `shards` visits, in order. Step
// k covers order[k·G, (k+1)·G), G = shards·batch, and the shard takes its `batch` positions from
// k·G + index·batch (fewer, or none, in the last step).
std::vector<std::int64_t> shard_order(const std::vector<std::int64_t>& order, std::int64_t batch,
                                      int index, int shards);
// How many positions of an epoch of `count` that shard visits.
std::int64_t shard_length(std::int64_t count, std::int64_t batch, int index, int shards);

}  // namespace ts
