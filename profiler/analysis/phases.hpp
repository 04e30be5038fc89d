// Which steps a report's figures cover, and the phases of a run (the warm-up rule of
// profiler/analysis/README.md): a run's
// first steps are not its steady state — first calls, kernel compilation, a cache being filled
// in the first epoch — so by default they are reported apart and kept out of the verdict, the
// breakdown and the kernel and pipeline tables (AnalysisOptions::steps / skip_warmup).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "profiler/analysis/intervals.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/store/reader.hpp"

namespace ts::analysis {

inline constexpr Interval kAllTime{INT64_MIN / 4, INT64_MAX / 4};

// What the trace says about its epochs and input cache (meta fit.epoch_first_steps,
// pipeline.cache).
struct RunShape {
  std::vector<std::int64_t> epoch_first_steps;  // step number each epoch starts at, ascending
  bool cache_fills_in_first_epoch = false;      // a cache (memory or file) was on
  bool step_range_capture = false;  // the capture recorded a range of steps (--trace-steps)
};
RunShape run_shape(const store::Reader& reader);

// The epoch (1-based) of step number `step`; 0 when the trace records no epochs.
int epoch_of(const RunShape& shape, std::int64_t step);

// The steps analysed among `steps` (time order): a flag per step, the time window they span
// (kernels and pipeline stages are counted inside it) and why the others were left out.
struct StepSelection {
  std::vector<bool> analysed;
  Interval window{0, 0};  // the analysed steps' span: kernels count inside it
  // Where input stages count: the analysed span when steps were left out, else everything
  // (workers prepare the first batch before the first step starts).
  Interval stage_window{kAllTime};
  std::string why;  // "first calls, compilation", "fills the input cache", "outside --steps 5-9"
};
StepSelection select_steps(std::span<const store::Step> steps, const RunShape& shape,
                           const AnalysisOptions& options);

// select_steps()'s rule one step at a time, for a pass that holds no list of the steps: whether
// the step at `index` (time order) of a trace of `count` steps, numbered `number`, is analysed,
// before the last rule (leaving every step out counts them all instead), which needs them all.
class StepRule {
 public:
  StepRule(const RunShape& shape, const AnalysisOptions& options, std::size_t count);
  bool analysed(std::size_t index, std::int64_t number) const;
  // Why the others are left out; empty when no rule leaves any out.
  const std::string& why() const { return why_; }

 private:
  enum class Kind { all, numbers, first_n, past_first_epoch, past_first };
  Kind kind_ = Kind::all;
  std::int64_t from_ = 0, to_ = 0;  // numbers: from_..to_; first_n: from_ steps
  const RunShape* shape_;
  std::string why_;
};

// Figures of the steps of `per_step` for which `take` is true (nullopt when none is).
template <class Take>
std::optional<PhaseFigures> phase_of(const StepTable& per_step, Take&& take);

// The epochs of the run, marking those wholly outside the analysed steps as warm-up.
std::vector<PhaseFigures> epoch_figures(const StepTable& per_step, const RunShape& shape,
                                        const std::string& why);

// Sums of `per_step` over the analysed steps (StepSummary::warmup false) into the report's
// step figures: steps, step time, breakdown, input, verdict, device busy/idle.
void sum_analysed(const StepTable& per_step, Report& r);

// --- implementation of the template ---

// The sums a phase's figures are made of, one step at a time.
class PhaseSums {
 public:
  void add(const StepSummary& s) {
    if (steps_ == 0 || s.step < first_) first_ = s.step;
    if (steps_ == 0 || s.step > last_) last_ = s.step;
    ++steps_;
    total_ = sat_add(total_, s.dur_ns);
    input_ = sat_add(input_, s.input_ns);
    all_warmup_ = all_warmup_ && s.warmup;
    if (!s.device_sampled) return;
    ++sampled_;
    busy_ = sat_add(busy_, s.device_busy_ns);
    idle_ = sat_add(idle_, s.dur_ns - s.device_busy_ns);
  }
  bool all_warmup() const { return all_warmup_; }
  std::optional<PhaseFigures> figures() const;

 private:
  std::int64_t first_ = 0, last_ = 0, steps_ = 0, total_ = 0, input_ = 0, idle_ = 0;
  std::int64_t sampled_ = 0, busy_ = 0;  // device busy over the steps holding device events
  bool all_warmup_ = true;
};

template <class Take>
std::optional<PhaseFigures> phase_of(const StepTable& per_step, Take&& take) {
  PhaseSums sums;
  for (const StepSummary& s : per_step)
    if (take(s)) sums.add(s);
  return sums.figures();
}

}  // namespace ts::analysis
