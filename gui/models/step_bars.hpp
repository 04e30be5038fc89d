// The bars of the overview's step-time chart: one per step, or, past max_bars steps, one per run
// of consecutive steps (the mean of each part), so a 100 000-step trace still draws a readable
// chart. A bar remembers which steps it stands for, how many of them are input-bound, highly or
// moderately (warm-up steps are never counted: the report's counts leave them out), its slowest
// step (a spike must not vanish in a mean: the chart draws it, and a click opens it) and its epoch.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "gui/models/packed_steps.hpp"
#include "profiler/analysis/report.hpp"

namespace ts::gui {

struct StepBar {
  std::int64_t first_step = 0, last_step = 0;
  std::size_t first_index = 0, count = 0;              // into the steps
  std::array<double, analysis::kPartCount> part_ms{};  // mean per step
  std::size_t input_bound = 0;                         // input-bound steps among them
  std::size_t input_bound_high = 0;                    // of them, highly input-bound
  std::size_t warmup = 0;                              // warm-up steps among them
  // Steps without device events among them (a capture sampling them): their device parts are
  // unknown, not 0, and their time shows in the other parts.
  std::size_t unsampled = 0;
  bool fully_unsampled() const { return count > 0 && unsampled == count; }
  std::int64_t worst_step = 0;  // the slowest step
  double max_ms = 0;            // and its time
  int epoch = 0;                // of its first step (0: unknown)
  // Marked in the chart with the highest class of its steps (warm-up ones left out): a bar of
  // one step with that step's class, the same as the steps table, the timeline and the counts
  // of the report.
  analysis::Verdict mark() const {
    return input_bound_high > 0 ? analysis::Verdict::high
           : input_bound > 0    ? analysis::Verdict::moderate
                                : analysis::Verdict::none;
  }
  bool marked() const { return input_bound > 0; }
  double total_ms() const;
  // The input part of the bar's time (input wait + exposed host-to-device copies), in percent.
  double input_pct() const;
};

inline constexpr std::size_t kMaxStepBars = 200;

// The bars of `count` steps fed in order (add(i, s) for i = 0, 1, ...): per_bar steps each, the
// last may have fewer.
class StepBarBuilder {
 public:
  StepBarBuilder(std::size_t count, std::size_t max_bars = kMaxStepBars);
  void add(std::size_t i, const analysis::StepSummary& s);
  std::vector<StepBar> finish();

 private:
  void finish_bar();
  std::size_t count_, per_bar_;
  std::vector<StepBar> bars_;
};

std::vector<StepBar> step_bars(std::span<const analysis::StepSummary> steps,
                               std::size_t max_bars = kMaxStepBars);
std::vector<StepBar> step_bars(const PackedSteps& steps, std::size_t max_bars = kMaxStepBars);

}  // namespace ts::gui
