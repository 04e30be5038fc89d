// The charts of the HTML reports, as inline SVG: drawn from a Report's per-step figures, never
// from the events again. Each bar or column carries a <title> (shown on hover) with its figures.
#pragma once

#include <string>

#include "profiler/analysis/report.hpp"

namespace ts::render {

// Step time per step, in step order: one bar per step (steps grouped into one bar each when
// there are more than the chart has room for, a group showing its slowest step), coloured by
// the step's input class (highly / moderately input-bound), warm-up steps grey; a dashed line
// at the analysed steps' median.
std::string step_time_chart(const analysis::Report& report);

// The whole run on its time axis, one strip per process: each step (or group of neighbouring
// steps) a column as wide as its wall time, split into the parts of its step time; warm-up
// steps marked above the strip.
std::string timeline_strip(const analysis::Report& report);

// The summed breakdown as one bar of 100 %, each part's share of step time.
std::string breakdown_bar(const analysis::Report& report);

}  // namespace ts::render
