// What the levers (levers.hpp) need from a trace beyond the report's figures, read in one more
// pass over a sample of the analysed steps (at most kLeverSampleSteps, spread evenly over them):
// what the trainer's host threads ran while the device sat idle, the optimizer's host time, the
// kernels' sizes, and the names that tell what is already on (a multi-process DataLoader,
// pinned copies, tf.data's parallel map). Figures are per step, over the sampled steps.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profiler/analysis/report.hpp"
#include "profiler/analysis/tracks.hpp"

namespace ts::analysis {

inline constexpr std::size_t kLeverSampleSteps = 48;
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
  // Device memory: the highest sample of a "GPU <d> memory allocated" counter (Kineto [memory]
  // events) in the sampled steps, on the device where it is highest, against that device's
  // memory (meta device.gpu.<d>.total_memory_bytes; 0 when the trace does not say).
  double peak_memory_bytes = 0;
  double device_memory_bytes = 0;
  std::string memory_track;  // the counter holding the peak: "GPU 0 memory allocated"
};

// `tracks`: the roles analyse() gave the trace's tracks (group = rank index).
LeverFacts lever_facts(const store::Reader& reader, const TrackTable& tracks, const Report& r);

}  // namespace ts::analysis
