#include "gui/models/ruler.hpp"

#include <algorithm>
#include <cmath>

namespace ts::gui {

std::int64_t ruler_step(double ns_per_px, double min_label_px) {
  const double want = std::max(1.0, ns_per_px * min_label_px);
  std::int64_t decade = 1;
  while (static_cast<double>(decade) * 10 <= want && decade < std::int64_t{1} << 60) decade *= 10;
  for (std::int64_t m : {1, 2, 5, 10})
    if (static_cast<double>(decade * m) >= want) return decade * m;
  return decade * 10;
}

QString ruler_label(std::int64_t ns, std::int64_t step) {
  struct Unit {
    double ns;
    const char* name;
  };
  static constexpr Unit units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}};
  const double big = static_cast<double>(std::max<std::int64_t>(ns < 0 ? -ns : ns, step));
  const Unit* u = &units[3];
  for (const Unit& c : units)
    if (big >= c.ns) {
      u = &c;
      break;
    }
  const double s = static_cast<double>(step) / u->ns;
  const int decimals = s >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(s) - 1e-9));
  return QString::number(static_cast<double>(ns) / u->ns, 'f', decimals) + " " +
         QString::fromUtf8(u->name);
}

std::vector<Tick> ruler_ticks(const TimeMapping& m, double min_label_px) {
  std::vector<Tick> ticks;
  const std::int64_t step = ruler_step(m.ns_per_px(), min_label_px);
  const std::int64_t minor = std::max<std::int64_t>(1, step / 5);
  const std::int64_t origin = m.extent_begin();
  const std::int64_t from = (m.view_begin() - origin) / minor * minor;
  for (std::int64_t t = from; origin + t <= m.view_end(); t += minor) {
    const double x = m.x_of(origin + t);
    if (x < -1) continue;
    Tick tick{x, t, t % step == 0, {}};
    if (tick.major) tick.label = ruler_label(t, step);
    ticks.push_back(std::move(tick));
    if (ticks.size() > 10000) break;  // defensive: never a runaway loop
  }
  return ticks;
}

}  // namespace ts::gui
