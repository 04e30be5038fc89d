#include "engine/data/pipeline/epoch_order.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

#include "engine/core/rng.hpp"
#include "engine/data/seed_mix.hpp"

namespace ts {
namespace {
constexpr std::uint64_t kShuffleSalt = 0x73687566666c65ull;  // "shuffle", as the Batcher uses
}

std::vector<std::int64_t> epoch_order(std::int64_t count, std::int64_t buffer, std::uint64_t seed,
                                      int epoch) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(count));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  if (buffer == 0 || count < 2) return order;
  Rng rng(derive_seed(seed, kShuffleSalt, static_cast<std::uint64_t>(epoch)));
  if (buffer < 0 || buffer >= count) {  // Fisher-Yates: the same permutation as the Batcher's
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
    return order;
  }
  std::vector<std::int64_t> pool(order.begin(), order.begin() + buffer);
  std::int64_t next_in = buffer;
  for (std::int64_t out = 0; out < count; ++out) {
    const std::size_t pick = rng.below(pool.size());
    order[static_cast<std::size_t>(out)] = pool[pick];
    if (next_in < count) {
      pool[pick] = next_in++;
    } else {
      pool[pick] = pool.back();
      pool.pop_back();
    }
  }
  return order;
}

namespace {

// The positions [from, to) of step `step`'s piece for the shard.
std::pair<std::int64_t, std::int64_t> shard_piece(std::int64_t count, std::int64_t batch, int index,
                                                  int shards, std::int64_t step) {
  const std::int64_t from = step * batch * shards + index * batch;
  return {std::min(from, count), std::min(from + batch, count)};
}

}  // namespace

std::vector<std::int64_t> shard_order(const std::vector<std::int64_t>& order, std::int64_t batch,
                                      int index, int shards) {
  if (shards <= 1) return order;
  const auto count = static_cast<std::int64_t>(order.size());
  const std::int64_t global = batch * shards;
  std::vector<std::int64_t> out;
  out.reserve(static_cast<std::size_t>(shard_length(count, batch, index, shards)));
  for (std::int64_t step = 0; step * global < count; ++step) {
    const auto [from, to] = shard_piece(count, batch, index, shards, step);
    out.insert(out.end(), order.begin() + from, order.begin() + to);
  }
  return out;
}

std::int64_t shard_length(std::int64_t count, std::int64_t batch, int index, int shards) {
  if (shards <= 1) return count;
  const std::int64_t global = batch * shards;
  const std::int64_t full = count / global;  // steps where every shard takes `batch`
  const auto [from, to] = shard_piece(count, batch, index, shards, full);
  return full * batch + (to - from);
}

}  // namespace ts
