// The levers table (profiler/analysis/README.md, "Levers"): every change the trace's figures say
// is worth making, each with its evidence, where to act, what is already on, the fix in the
// trace's own framework and a projection, ranked by what it would save. The rules:
//
//   input_pipeline   input wait or exposed host-to-device copies make the run input-bound
//   host_overhead    the device idles >= kCausePct of step time while the host runs or syncs
//   optimizer        the optimizer takes >= kOptimizerPct of step time
//   mixed_precision  matmul/conv kernels >= kLowPrecisionPct of kernel time, in fp32 on a device
//                    with faster fp16/bf16 math; or mixed precision on whose conversions cost
//                    >= kConversionPct of step time
//   model_kernels    any device compute: the top kernels by time
//   batch_memory     peak memory per step (Kineto [memory] counters, our engine's device and host
//                    memory counters, TensorFlow's allocators) against that memory: over
//                    kMemoryWarnPct, or room for twice the batch while the device is busy under
//                    kBatchBusyPct of the step, its kernels are mostly short, or their achieved
//                    occupancy is under kLowOccupancyPct
//   distribution     communication not hidden behind compute >= kModerateCommunicationPct of
//                    step time, or a straggler; with the communication-computation overlap
//   host_compute     no device events: the top host operators, outside input and collectives
//   hardware         the device busy under kUnderusedBusyPct of step time, or the host's CPU
//                    saturated or shared with other processes
#pragma once

#include <vector>

#include "profiler/analysis/lever_facts.hpp"
#include "profiler/analysis/report.hpp"

namespace ts::analysis {

inline constexpr double kOptimizerPct = 5.0;
inline constexpr double kLowPrecisionPct = 20.0;
inline constexpr double kConversionPct = 5.0;
inline constexpr double kUnderusedBusyPct = 100.0 / 3.0;
inline constexpr double kShortKernelsPct = 50.0;
inline constexpr double kMemoryWarnPct = 90.0;    // of device memory, at the step's peak
inline constexpr double kBatchBusyPct = 80.0;     // a device busy less than this has room to grow
inline constexpr double kLowOccupancyPct = 50.0;  // time-weighted achieved occupancy below this
inline constexpr double kMaxBatchFactor = 16.0;   // "more than 16x the batch would still fit"
inline constexpr double kLowOverlapPct = 50.0;    // collective kernel time overlapping compute
inline constexpr double kImbalancePct = 10.0;     // the ranks' own work uneven by this much
inline constexpr double kHostOpPct = 10.0;        // a host-only step's named operators

// The levers of a report whose figures and what-ifs are filled in.
std::vector<Lever> levers(const Report& report, const AnalysisOptions& options,
                          const LeverFacts& facts);

}  // namespace ts::analysis
