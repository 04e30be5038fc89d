// The timeline's time ruler: tick positions for the visible window at a "nice" step (1, 2 or 5
// times a power of ten nanoseconds) with labels relative to the trace's start, in the unit and
// with the decimals the step needs ("1.2 ms", "12.345679 s").
#pragma once

#include <QString>
#include <cstdint>
#include <vector>

#include "gui/models/time_mapping.hpp"

namespace ts::gui {

struct Tick {
  double x = 0;
  std::int64_t ns = 0;  // after the extent's start
  bool major = false;   // labelled
  QString label;
};

// Major ticks at least min_label_px apart, four minor ticks between them.
std::vector<Tick> ruler_ticks(const TimeMapping& m, double min_label_px = 100);
// The major tick step for that spacing, in ns.
std::int64_t ruler_step(double ns_per_px, double min_label_px);
// `ns` written with the unit of the larger of ns and step and the decimals step needs.
QString ruler_label(std::int64_t ns, std::int64_t step);

}  // namespace ts::gui
