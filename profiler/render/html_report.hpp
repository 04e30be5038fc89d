// `trainscope report --html` and `diff --html`: one self-contained HTML file (inline style and
// SVG, a small inline script that sorts tables; no network, no external script, style or font),
// drawn from the same Report (and RunDiff) the text and JSON reports print. Every string from a
// trace is escaped and long names are cut for display (html_page.hpp).
#pragma once

#include <string>

#include "profiler/analysis/diff.hpp"
#include "profiler/analysis/report.hpp"

namespace ts::render {

// The verdict, the cards (the figures the text report leads with), the levers, the step-time
// chart with its marks, the whole-run timeline strip, the breakdown, the idle causes, and the
// kernel, stage, step and rank tables (each sortable by a click on its header).
std::string report_html(const analysis::Report& report);

// Two runs: the headline, what it saves, the figures of A and B with the change, the breakdown
// per step, the levers of either run, the kernels whose time changed, and each run's step-time
// chart. `a` and `b` are the reports the diff was made of.
std::string diff_html(const analysis::RunDiff& diff, const analysis::Report& a,
                      const analysis::Report& b);

}  // namespace ts::render
