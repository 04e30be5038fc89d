#include "gui/models/step_bars.hpp"

#include <numeric>

namespace ts::gui {

double StepBar::total_ms() const {
  return std::accumulate(part_ms.begin(), part_ms.end(), 0.0);
}

double StepBar::input_pct() const {
  const double total = total_ms();
  const double input = part_ms[static_cast<std::size_t>(analysis::Part::input_wait)] +
                       part_ms[static_cast<std::size_t>(analysis::Part::h2d)];
  return total > 0 ? 100.0 * input / total : 0.0;
}

StepBarBuilder::StepBarBuilder(std::size_t count, std::size_t max_bars)
    : count_(count), per_bar_(max_bars == 0 ? 0 : (count + max_bars - 1) / max_bars) {}

void StepBarBuilder::add(std::size_t i, const analysis::StepSummary& s) {
  if (per_bar_ == 0) return;
  if (i % per_bar_ == 0) {
    finish_bar();
    StepBar& b = bars_.emplace_back();
    b.first_index = i;
    b.count = std::min(per_bar_, count_ - i);
    b.first_step = s.step;
    b.worst_step = s.step;
    b.epoch = s.epoch;
  }
  StepBar& b = bars_.back();
  b.last_step = s.step;
  const double ms = static_cast<double>(s.dur_ns) / 1e6;
  if (ms > b.max_ms) {
    b.max_ms = ms;
    b.worst_step = s.step;
  }
  b.warmup += s.warmup ? 1 : 0;
  b.unsampled += s.device_sampled ? 0 : 1;
  for (int p = 0; p < analysis::kPartCount; ++p)
    b.part_ms[static_cast<std::size_t>(p)] +=
        static_cast<double>(s.parts.ns[static_cast<std::size_t>(p)]) / 1e6;
  // Warm-up steps are drawn but not marked: the verdict leaves them out too.
  b.input_bound += s.input_bound && !s.warmup ? 1 : 0;
  b.input_bound_high += s.input_verdict == analysis::Verdict::high && !s.warmup ? 1 : 0;
}

std::vector<StepBar> StepBarBuilder::finish() {
  finish_bar();
  return std::move(bars_);
}

void StepBarBuilder::finish_bar() {
  if (bars_.empty() || bars_.back().count == 0) return;
  for (double& ms : bars_.back().part_ms) ms /= static_cast<double>(bars_.back().count);
}

std::vector<StepBar> step_bars(std::span<const analysis::StepSummary> steps, std::size_t max_bars) {
  StepBarBuilder bars(steps.size(), max_bars);
  for (std::size_t i = 0; i < steps.size(); ++i) bars.add(i, steps[i]);
  return bars.finish();
}

std::vector<StepBar> step_bars(const PackedSteps& steps, std::size_t max_bars) {
  StepBarBuilder bars(steps.size(), max_bars);
  steps.for_each([&](std::size_t i, const analysis::StepSummary& s) { bars.add(i, s); });
  return bars.finish();
}

}  // namespace ts::gui
