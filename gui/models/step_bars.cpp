#include "gui/models/step_bars.hpp"

#include <numeric>

namespace ts::gui {

double StepBar::total_ms() const {
  return std::accumulate(part_ms.begin(), part_ms.end(), 0.0);
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
    for (std::size_t k = i; k < i + b.count; ++k) {
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
