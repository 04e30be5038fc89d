// The CPU backend: Eigen for GEMM, plain loops (vectorised by the compiler) for the rest.
#pragma once

#include <memory>

#include "engine/backend/backend.hpp"

namespace ts {

// threads: worker threads for large GEMMs (0: all cores).
std::unique_ptr<Backend> make_cpu_backend(int threads = 0);

}  // namespace ts
