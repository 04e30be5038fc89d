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

std::vector<StepBar> step_bars(const std::vector<analysis::StepSummary>& steps,
                               std::size_t max_bars) {
  std::vector<StepBar> bars;
  if (steps.empty() || max_bars == 0) return bars;
  const std::size_t per_bar = (steps.size() + max_bars - 1) / max_bars;
  for (std::size_t i = 0; i < steps.size(); i += per_bar) {
    StepBar b;
    b.first_index = i;
    b.count = std::min(per_bar, steps.size() - i);
    b.first_step = steps[i].step;
    b.last_step = steps[i + b.count - 1].step;
    b.worst_step = steps[i].step;
    b.epoch = steps[i].epoch;
    for (std::size_t k = i; k < i + b.count; ++k) {
      const double ms = static_cast<double>(steps[k].dur_ns) / 1e6;
      if (ms > b.max_ms) {
        b.max_ms = ms;
        b.worst_step = steps[k].step;
      }
      b.warmup += steps[k].warmup ? 1 : 0;
      for (int p = 0; p < analysis::kPartCount; ++p)
        b.part_ms[static_cast<std::size_t>(p)] +=
            static_cast<double>(steps[k].parts.ns[static_cast<std::size_t>(p)]) / 1e6;
      // Warm-up steps are drawn but not marked: the verdict leaves them out too.
      b.input_bound += steps[k].input_bound && !steps[k].warmup ? 1 : 0;
    }
    for (double& ms : b.part_ms) ms /= static_cast<double>(b.count);
    bars.push_back(b);
  }
  return bars;
}

}  // namespace ts::gui
