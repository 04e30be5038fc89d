#include "engine/data/pipeline/epoch_order.hpp"

#include <numeric>

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

}  // namespace ts
