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

}  // namespace ts
