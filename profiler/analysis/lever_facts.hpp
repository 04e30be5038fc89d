// What the levers (levers.hpp) need from a trace beyond the report's figures, read in one more
// pass over a sample of the analysed steps (kLeverSampleSteps spread evenly over each rank's
// steps, at least one per rank):
// what the trainer's host threads ran while the device sat idle, the optimizer's host time, the
// kernels' sizes, and the names that tell what is already on (a multi-process DataLoader,
// pinned copies, tf.data's parallel map). Figures are per step, over the sampled steps; with
// device events recorded on a sample of steps (Report::device_sampling), among those holding them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profiler/analysis/report.hpp"
#include "profiler/analysis/tracks.hpp"
#include "profiler/analysis/unrecorded_gaps.hpp"

namespace ts::analysis {

inline constexpr std::size_t kLeverSampleSteps = 48;
// The counter our CPU backend records its tensors' host memory on (engine/backend/cpu/
// cpu_memory_counter.hpp).
inline constexpr std::string_view kHostTensorMemoryTrack = "host memory (tensors)";
// A kernel shorter than this is launch-bound (HTA's launch statistics use the same bound).
inline constexpr std::int64_t kShortKernelNs = 10'000;

// A host region that kept the device waiting: the innermost event open on a trainer thread
// while the device was idle, summed per name.
struct HostRegion {
  std::string name;  // for a sync, "caller › call" when the blocking call has a caller
  trace::Category category = trace::Category::other;
  double ns_per_step = 0;
};

struct LeverFacts {
  std::int64_t sampled_steps = 0;
  // (Without device events the whole step but its input and collective time counts as idle:
  // these say where the rest of the step went.)
  std::vector<HostRegion> host_in_idle;  // largest first
  // The same time by the outermost trainer event open (the step itself aside): the region the
  // innermost ones belong to, as `Optimizer.step#Shampoo.step` holds its `aten::` operators.
  std::vector<HostRegion> host_regions_in_idle;
  double idle_with_host_ns_per_step = 0;     // device idle while some trainer event was open
  double optimizer_host_ns_per_step = 0;     // union of the trainer's optimizer events
  double kernels_per_step = 0;               // device kernels per sampled step
  double short_kernel_pct = 0;               // of them, shorter than kShortKernelNs
  bool multiprocess_dataloader = false;      // PyTorch's _MultiProcessingDataLoaderIter
  bool pinned_copies = false;                // Kineto "Memcpy HtoD (Pinned -> Device)"
  bool parallel_map = false;                 // tf.data ParallelMap / ParallelInterleave
  bool data_prefetch = false;                // tf.data Prefetch
  bool data_cache = false;                   // tf.data Cache
  double conversion_ns_per_step = 0;         // trainer or device events converting precision
  std::string precision, optimizer;          // meta engine.precision, engine.optimizer
  std::string opencl_platform, opencl_type;  // meta device.opencl.*
  // What the devices say of their f16 math: the highest compute capability of the trace's GPUs
  // (meta device.gpu.<d>.compute_major, Kineto's computeMajor; 0: not in the trace) and that
  // GPU's name, and OpenCL's cl_khr_fp16 (meta device.opencl.fp16; empty: not recorded).
  int compute_major = 0, compute_minor = 0;
  std::string gpu_name;
  std::optional<bool> opencl_fp16;
  // Memory: the highest value of a memory counter (memory_counter_capacity_key() names them) in
  // the sampled steps, counting the value each step starts with, on the counter that fills its
  // memory most, against that memory (0 when the trace does not say how much there is).
  double peak_memory_bytes = 0;
  double device_memory_bytes = 0;
  std::string memory_track;     // the counter holding the peak: "GPU 0 memory allocated"
  bool memory_on_host = false;  // it counts host memory (the CPU backend, a TF host allocator)
  // Communication-computation overlap (HTA's): per rank (index into Report::ranks; one entry for
  // a trace of one process), the time per step collective kernels ran on the rank's device
  // queues (their union) and, of it, the time a compute kernel ran on them too.
  std::vector<double> collective_kernel_ns_per_step, overlapped_ns_per_step;
  // The longest stretches with nothing recorded (filled by analyse(): unrecorded_gaps.hpp).
  std::vector<UnrecordedGap> unrecorded_gaps;
};

// The meta key holding the size of the memory a counter track counts, for the memory counters
// the levers read: "GPU <d> memory allocated" (Kineto [memory] events) -> device.gpu.<d>.
// total_memory_bytes; our engine's "device memory <device>" -> device.opencl.global_memory_bytes
// and "host memory (tensors)" -> host.memory_bytes; TensorFlow's "<allocator> memory allocated"
// -> device.gpu.<d>.total_memory_bytes for GPU_<d>_bfc, host.memory_bytes for host allocators
// (mklcpu, cpu). nullopt: not a memory counter. `host` says whether it counts host memory.
std::optional<std::string> memory_counter_capacity_key(std::string_view track_name, bool* host);

// `tracks`: the roles analyse() gave the trace's tracks (group = rank index).
LeverFacts lever_facts(const store::Reader& reader, const TrackTable& tracks, const Report& r);

}  // namespace ts::analysis
