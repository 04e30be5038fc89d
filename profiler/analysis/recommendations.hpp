// Rule-based recommendations (profiler/analysis/README.md). Each rule fires on a measured figure of
// the report and quotes it, so a reader can check the advice against the numbers above it:
//
//   input-bound    verdict moderate or high and input wait outweighs exposed copies
//                  -> raise --parallel / --prefetch / --cache, naming the bottleneck stage
//   exposed h2d    host→device copies >= kExposedH2dPct of step time, and at least half of the
//                  copy time not overlapped by compute -> prefetch batches to the device
//   idle cost      device idle >= kIdleCostPct of step time -> what it costs per 1 000 steps
//   host-bound     the host cause has the largest share of the idle time and is >= kCausePct
//                  of step time -> bigger batches, fewer and larger kernels
//   sync           the same for the sync cause -> do not synchronise every step
//   dropped        events were dropped during capture -> the figures undercount
#pragma once

#include <string>
#include <vector>

#include "profiler/analysis/report.hpp"

namespace ts::analysis {

inline constexpr double kExposedH2dPct = 2.0;
inline constexpr double kIdleCostPct = 10.0;
inline constexpr double kCausePct = 10.0;

// What `idle_ns` of device time per `steps` steps costs per 1 000 steps at `price_per_hour`.
double idle_cost_per_1000_steps(std::int64_t idle_ns, std::int64_t steps, double price_per_hour);

// The knobs of the input pipeline in the words of the framework that made the trace.
std::vector<std::string> input_knobs(const Report& report);

// The recommendations for a report whose figures are filled in (everything but
// recommendations).
std::vector<std::string> recommend(const Report& report, const AnalysisOptions& options);

}  // namespace ts::analysis
