#include "profiler/import/common/gpu_op_rules.hpp"

#include <array>

namespace ts::import {

namespace {

// "cudaMemcpy_v3020" -> "cudaMemcpy": Kineto strips these CUPTI suffixes, older builds did not.
std::string_view strip_version_suffix(std::string_view name) {
  const std::size_t p = name.rfind("_v");
  if (p == std::string_view::npos || p + 2 == name.size()) return name;
  for (std::size_t i = p + 2; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return name;
  return name.substr(0, p);
}

}  // namespace

bool is_sync_call(std::string_view name) {
  static constexpr std::array<std::string_view, 16> kSync = {
      "cudaDeviceSynchronize", "cudaStreamSynchronize",
      "cudaEventSynchronize",  "cudaMemcpy",
      "cudaMemcpy2D",          "cudaMemcpy3D",
      "cudaMemcpyFromSymbol",  "cudaMemcpyToSymbol",
      "cuCtxSynchronize",      "cuStreamSynchronize",
      "cuEventSynchronize",    "hipDeviceSynchronize",
      "hipStreamSynchronize",  "hipEventSynchronize",
      "hipMemcpyWithStream",   "hipMemcpy"};
  const std::string_view n = strip_version_suffix(name);
  for (const std::string_view s : kSync)
    if (n == s) return true;
  return false;
}

bool is_collective_kernel(std::string_view name) {
  return name.starts_with("nccl") || name.starts_with("rccl") || name.starts_with("hccl") ||
         name.find("ncclKernel") != std::string_view::npos ||
         name.find("ncclDevKernel") != std::string_view::npos;
}

}  // namespace ts::import
