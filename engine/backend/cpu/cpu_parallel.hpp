// Splitting loops over the backend's thread pool.
#pragma once

#include <algorithm>
#include <cstdint>

#include "engine/backend/cpu/cpu_thread_pool.hpp"

namespace ts::cpu {

// Cores this process may run on (>= 1).
int available_threads();

// f(begin, end) over [0, n) in contiguous ranges of at least min_per_chunk items (boundaries
// multiples of 16 items), run on the pool; serially in one call when n is too small to split.
// A few chunks per thread let a helper that starts late still take a share.
template <class F>
void parallel_for(ThreadPool& pool, std::int64_t n, std::int64_t min_per_chunk, F&& f) {
  const std::int64_t chunks = std::clamp<std::int64_t>(n / std::max<std::int64_t>(min_per_chunk, 1),
                                                       1, 4 * std::int64_t{pool.threads()});
  if (pool.threads() == 1 || chunks == 1) {
    if (n > 0) f(std::int64_t{0}, n);
    return;
  }
  const std::int64_t units = (n + 15) / 16;
  pool.run(chunks, [&](std::int64_t c, int) {
    const std::int64_t begin = std::min(n, units * c / chunks * 16);
    const std::int64_t end = std::min(n, units * (c + 1) / chunks * 16);
    if (begin < end) f(begin, end);
  });
}

}  // namespace ts::cpu
