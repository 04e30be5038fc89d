// The bars of the overview's step-time chart: one per step, or, past max_bars steps, one per run
// of consecutive steps (the mean of each part), so a 100 000-step trace still draws a readable
// chart. A bar remembers which steps it stands for and how many of them are input-bound.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "profiler/analysis/report.hpp"

namespace ts::gui {

struct StepBar {
  std::int64_t first_step = 0, last_step = 0;
  std::size_t first_index = 0, count = 0;              // into Report::per_step
  std::array<double, analysis::kPartCount> part_ms{};  // mean per step
  std::size_t input_bound = 0;                         // input-bound steps among them
  // Marked in the chart when at least half of its steps are input-bound.
  bool marked() const { return count > 0 && 2 * input_bound >= count; }
  double total_ms() const;
};

inline constexpr std::size_t kMaxStepBars = 200;

std::vector<StepBar> step_bars(const std::vector<analysis::StepSummary>& steps,
                               std::size_t max_bars = kMaxStepBars);

}  // namespace ts::gui
