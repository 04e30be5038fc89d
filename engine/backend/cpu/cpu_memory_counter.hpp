// Host memory held by the CPU backend's tensors, sampled into the trace as the counter track
// "host memory (tensors)" whenever it changes while a session records: the CPU backend's
// counterpart of the OpenCL backend's "device memory <device>" (cl_memory_counter.hpp), read by
// the analysis' batch-size and memory lever against meta host.memory_bytes. One count per
// process: every CPU backend's tensors live in the same host memory. Outside a session a change
// costs one relaxed atomic add and a branch.
#pragma once

#include <cstdint>
#include <string_view>

namespace ts::cpu {

inline constexpr std::string_view kHostMemoryTrack = "host memory (tensors)";

// bytes > 0 on allocation, < 0 on release.
void count_tensor_bytes(std::int64_t bytes) noexcept;
// Bytes held by CPU backend tensors now, in this process.
std::int64_t tensor_bytes() noexcept;
// The host's physical memory in bytes (0 when the system does not say).
std::int64_t host_memory_bytes() noexcept;

}  // namespace ts::cpu
