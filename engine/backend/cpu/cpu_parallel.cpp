#include "engine/backend/cpu/cpu_parallel.hpp"

namespace ts::cpu {

int available_threads() {
#ifdef _OPENMP
  return std::max(omp_get_num_procs(), 1);
#else
  return 1;
#endif
}

}  // namespace ts::cpu
