// The per-step breakdown (profiler/analysis/README.md, "Breakdown"): a step's wall time split into
// the parts of `Part`, where intervals of several parts overlap the higher-priority part takes the
// time, so nothing is counted twice and the parts sum exactly to the step's wall time.
//
// Input time of a step = its input_wait part + its h2d part. The h2d part is the "host→device
// copy on the critical path": copy time inside the step during which no kernel and no d2h copy
// ran on any device queue, i.e. copies that the device had to wait for rather than copies
// hidden behind compute (a prefetch-to-device copy overlapping the previous batch's kernels
// costs nothing here).
#pragma once

#include <cstdint>
#include <span>

#include "profiler/analysis/interval_sorter.hpp"
#include "profiler/analysis/intervals.hpp"
#include "profiler/analysis/report.hpp"

namespace ts::analysis {

// Reusable buffers, so that breaking down many steps allocates once.
struct BreakdownScratch {
  IntervalSet clipped, fresh, claimed, merged;
};

// The breakdown of the window [start, end) over the part interval sets (narrowed to the
// window by window_of() or IntervalSorter::live_window()). result.total() == window.length().
Breakdown break_down(Interval window, const PartIntervalsWindow& intervals,
                     BreakdownScratch& scratch);

// input_wait + h2d of a breakdown: the step's input time on the critical path.
inline std::int64_t input_ns(const Breakdown& b) {
  return b[Part::input_wait] + b[Part::h2d];
}

// The run verdict from summed input and step time (XProf's thresholds: >= 20 % high, >= 5 %
// moderate). `pct` is input / step time × 100.
Verdict verdict_for(double pct);
inline constexpr double kHighInputPct = 20.0;
inline constexpr double kModerateInputPct = 5.0;
// A step's class by the same split, at the thresholds `options` sets (AnalysisOptions::
// step_input_bound_pct for moderate, step_input_high_pct for high; the verdict's by default).
// A step of no time is none.
Verdict step_verdict_for(double pct, std::int64_t dur_ns, const AnalysisOptions& options);

// 100 × part / whole, 0 when whole is 0.
inline double percent(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace ts::analysis
