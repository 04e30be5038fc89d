#include "engine/data/batcher.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>

#include "engine/core/rng.hpp"
#include "engine/data/seed_mix.hpp"

namespace ts {
namespace {
constexpr std::uint64_t kShuffleSalt = 0x73687566666c65ull;  // "shuffle"
}  // namespace

Batcher::Batcher(const Dataset& ds, std::int64_t batch_size, bool shuffle, std::uint64_t seed)
    : ds_(ds), batch_size_(batch_size), shuffle_(shuffle), seed_(seed) {
  if (batch_size <= 0)
    throw std::invalid_argument("batch size must be positive, not " + std::to_string(batch_size));
  order_.resize(static_cast<std::size_t>(ds.count));
  start_epoch(0);
}

std::int64_t Batcher::batches_per_epoch() const {
  return (ds_.count + batch_size_ - 1) / batch_size_;
}

void Batcher::start_epoch(int epoch) {
  cursor_ = 0;
  std::iota(order_.begin(), order_.end(), std::int64_t{0});
  if (!shuffle_) return;
  Rng rng(derive_seed(seed_, kShuffleSalt, static_cast<std::uint64_t>(epoch)));
  for (std::size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[rng.below(i)]);
}

bool Batcher::next(HostBatch& batch) {
  if (cursor_ >= ds_.count) return false;
  const std::int64_t size = std::min(batch_size_, ds_.count - cursor_);
  const auto sample = static_cast<std::size_t>(ds_.sample_size());
  batch.size = size;
  batch.images.resize(static_cast<std::size_t>(size) * sample);
  batch.labels.resize(static_cast<std::size_t>(size));
  for (std::int64_t i = 0; i < size; ++i) {
    const auto src = static_cast<std::size_t>(order_[static_cast<std::size_t>(cursor_ + i)]);
    std::memcpy(batch.images.data() + static_cast<std::size_t>(i) * sample,
                ds_.images.data() + src * sample, sample * sizeof(float));
    batch.labels[static_cast<std::size_t>(i)] = ds_.labels[src];
  }
  cursor_ += size;
  return true;
}

}  // namespace ts
