// Runs one piece of work on several threads at once: `work` is called on `threads - 1` new
// threads and on the calling thread, which returns once every call has. The work shares its own
// queue (an atomic index, say) and returns when it is empty. A thread that cannot be started
// leaves its share to the others, so a machine out of threads still finishes the work.
#pragma once

#include <cstddef>
#include <thread>
#include <vector>

namespace ts::store {

template <class Work>
void run_on_threads(std::size_t threads, Work&& work) {
  std::vector<std::thread> pool;
  try {
    for (std::size_t i = 1; i < threads; ++i) pool.emplace_back([&work] { work(); });
  } catch (...) {
    // Fewer threads than asked: the ones started and this one do the work.
  }
  work();
  for (std::thread& t : pool) t.join();
}

}  // namespace ts::store
