// The per-step figures of analyse(): each step's breakdown, input time and device busy/idle
// (with the idle gaps), and the sums over the steps. The event pass hands each step over as soon
// as the scan has passed its end; a parallel pass joins its parts' figures in time order.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "profiler/analysis/device_idle.hpp"
#include "profiler/analysis/interval_sorter.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/analysis/step_breakdown.hpp"
#include "profiler/store/reader.hpp"

namespace ts::analysis {

struct StepFigures {
  StepTable per_step;   // in time order
  Breakdown breakdown;  // summed
  std::int64_t step_time_total_ns = 0;
  std::int64_t h2d_total_ns = 0;            // all h2d time inside the steps, exposed or not
  std::int64_t input_bound_steps = 0;       // moderately or highly input-bound
  std::int64_t input_bound_steps_high = 0;  // highly
  std::int64_t busy_ns = 0, idle_ns = 0;
  std::array<std::int64_t, kIdleCauseCount> idle_by_cause_ns{};
  std::vector<IdleGap> gaps;     // listed ones (AnalysisOptions::min_listed_gap_ns), time order
  std::int64_t listed_gaps = 0;  // how many were listed, kept or not (AnalysisOptions::keep_gaps)
  // Of them, each step's (parallel to per_step): a capture that sampled device events has steps
  // without any, whose "gaps" are not device idle time (analyse() drops them).
  std::vector<std::uint32_t> listed_gaps_per_step;  // saturating

  // Adds one step, its part intervals narrowed to it (complete for its time).
  void add(const store::Step& step, const PartIntervalsWindow& view,
           const AnalysisOptions& options);
  // Appends the figures of later steps.
  void append(StepFigures&& later);

 private:
  BreakdownScratch breakdown_scratch_;
  IdleScratch idle_scratch_;
  std::vector<IdleGap> step_gaps_;
};

}  // namespace ts::analysis
