// Cuts a Dataset into (optionally shuffled) host-memory batches, epoch after epoch.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/data/dataset.hpp"

namespace ts {

// One batch in host memory.
struct HostBatch {
  std::int64_t size = 0;             // samples in this batch (the last batch may be smaller)
  std::vector<float> images;         // [size, height, width, channels]
  std::vector<std::int32_t> labels;  // [size]
};

// Visits every sample of a dataset once per epoch, in batches of batch_size; the last batch of an
// epoch holds the remainder (as Keras does). With shuffle, each epoch has its own permutation,
// a function of (seed, epoch) only. The dataset must outlive the Batcher.
class Batcher {
 public:
  // Throws std::invalid_argument unless batch_size > 0. Starts epoch 0.
  Batcher(const Dataset& ds, std::int64_t batch_size, bool shuffle, std::uint64_t seed);

  // ceil(count / batch_size).
  std::int64_t batches_per_epoch() const;
  std::int64_t batch_size() const { return batch_size_; }

  // Rewinds to the start of `epoch`, drawing its permutation when shuffling.
  void start_epoch(int epoch);

  // Fills `batch` with the next batch of the epoch: images [size, h, w, c], labels [size].
  // Reuses batch's storage (no reallocation while the size does not grow). Returns false, leaving
  // batch unchanged, when the epoch is over.
  bool next(HostBatch& batch);

 private:
  const Dataset& ds_;
  std::int64_t batch_size_;
  bool shuffle_;
  std::uint64_t seed_;
  std::vector<std::int64_t> order_;  // [count]: the sample indices of this epoch, in order
  std::int64_t cursor_ = 0;          // position in order_ of the next batch's first sample
};

}  // namespace ts
