// What every GPU profiler's names say, whatever the format that carries them: CUDA/HIP runtime
// and driver calls that block the host, and collective-communication kernels (NCCL, RCCL, HCCL).
// Pure functions of strings, shared by the format readers' rules (chrome/kineto_rules,
// xplane/xplane_rules).
#pragma once

#include <string_view>

namespace ts::import {

// Host-blocking CUDA/HIP runtime and driver calls (cudaDeviceSynchronize, cudaMemcpy, ...), with
// or without CUPTI's version suffix ("cudaMemcpy_v3020").
bool is_sync_call(std::string_view name);
// NCCL/RCCL/HCCL kernels: names starting with nccl, rccl or hccl, or holding ncclKernel or
// ncclDevKernel.
bool is_collective_kernel(std::string_view name);

}  // namespace ts::import
