// What-if projections (profiler/analysis/README.md, "What-if"): for each lever the trace speaks to,
// the mean step time of the analysed steps without the time that lever removes, and what that is
// worth over the whole run — samples/s, device-hours and money at the device-hour price.
//
//   input_hidden        input wait and exposed host-to-device copies (the input part of each
//                       step) fully hidden behind compute: prefetching, parallel input, a cache
//   host_bound_removed  the device's idle time while the host launched or computed
//   sync_removed        the device's idle time while the host was blocked on it
//   collectives_level   with a straggler: the other ranks' extra wait for it in collectives;
//                       else the device's idle time while its rank waited in collectives
//
// A projection is the measured mean minus the removed time per step; the whole run's device
// time scales by the same ratio. Levers worth under 1 % of step time are left out.
#pragma once

#include <vector>

#include "profiler/analysis/report.hpp"

namespace ts::analysis {

std::vector<WhatIf> what_if(const Report& report, const AnalysisOptions& options);

// The projection of one lever that removes `removed_ns_per_step` from the mean step.
WhatIf project(const Report& report, const AnalysisOptions& options, std::string lever,
               std::string description, double removed_ns_per_step);

}  // namespace ts::analysis
