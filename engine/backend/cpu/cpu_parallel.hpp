// Splitting loops over the backend's threads (OpenMP when available, else serial). No thread is
// started per call: OpenMP keeps its team between parallel regions.
#pragma once

#include <algorithm>
#include <cstdint>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace ts::cpu {

// Cores available to this process (>= 1); 1 when built without OpenMP.
int available_threads();

// Threads worth using for n items when each thread should get at least min_per_thread.
inline int threads_for(int max_threads, std::int64_t n, std::int64_t min_per_thread) {
  const std::int64_t useful = n / std::max<std::int64_t>(min_per_thread, 1);
  return static_cast<int>(std::clamp<std::int64_t>(useful, 1, std::max(max_threads, 1)));
}

// f(begin, end) over [0, n) in `threads` contiguous ranges whose boundaries are multiples of
// `align` items (except n). f must not throw.
template <class F>
void parallel_ranges(int threads, std::int64_t n, std::int64_t align, F&& f) {
  if (threads <= 1 || n <= align) {
    f(std::int64_t{0}, n);
    return;
  }
#ifdef _OPENMP
  const std::int64_t chunks = (n + align - 1) / align;
#pragma omp parallel num_threads(threads)
  {
    const std::int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    const std::int64_t begin = std::min(n, chunks * t / nt * align);
    const std::int64_t end = std::min(n, chunks * (t + 1) / nt * align);
    if (begin < end) f(begin, end);
  }
#else
  f(std::int64_t{0}, n);
#endif
}

// parallel_ranges with the thread count chosen from the work size.
template <class F>
void parallel_for(int max_threads, std::int64_t n, std::int64_t min_per_thread, F&& f) {
  parallel_ranges(threads_for(max_threads, n, min_per_thread), n, 16, f);
}

}  // namespace ts::cpu
