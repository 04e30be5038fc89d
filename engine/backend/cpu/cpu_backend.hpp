// The CPU backend: Eigen for GEMM, plain loops (vectorised by the compiler) for the rest.
#pragma once

#include <memory>

#include "engine/backend/backend.hpp"

namespace ts {

// threads: how many threads large ops (GEMMs, big element-wise loops, optimizer updates, im2col)
// may use, the calling thread included; 0 means every core this process may run on, and larger
// requests are capped at that. Helper threads are started here, not per call.
std::unique_ptr<Backend> make_cpu_backend(int threads = 0);

}  // namespace ts
