#include "engine/backend/cpu/cpu_parallel.hpp"

#include <thread>

#ifdef __linux__
#include <sched.h>
#endif

namespace ts::cpu {

int available_threads() {
#ifdef __linux__
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(CPU_COUNT(&set), 1);
#endif
  return std::max(static_cast<int>(std::thread::hardware_concurrency()), 1);
}

}  // namespace ts::cpu
