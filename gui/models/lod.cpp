#include "gui/models/lod.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace ts::gui {

std::pair<std::size_t, std::size_t> visible_zones(const Row& row, std::int64_t t0,
                                                  std::int64_t t1) {
  const auto& z = row.zones;
  // Zones of a row do not overlap, so their ends are sorted like their starts.
  const auto first =
      std::partition_point(z.begin(), z.end(), [&](const Zone& a) { return a.end_ns < t0; });
  const auto last =
      std::partition_point(first, z.end(), [&](const Zone& a) { return a.start_ns <= t1; });
  return {static_cast<std::size_t>(first - z.begin()), static_cast<std::size_t>(last - z.begin())};
}

namespace {

// What a merged item looks like: the label with the most time among its zones wins, and the item
// is represented by its longest zone of that label. A run of up to kSamples zones (most merged
// items: they span at most a few pixels) is weighed exactly; a longer one by kSamples zones
// spread over it, so a frame costs the same whatever the zoom.
std::uint32_t sample_longest(const std::vector<Zone>& z, std::size_t first, std::size_t last) {
  constexpr std::size_t kSamples = 64;
  std::array<std::pair<std::uint32_t, std::int64_t>, kSamples> time{};  // label, time
  std::array<std::size_t, kSamples> longest{};
  std::size_t labels = 0;
  const std::size_t step = std::max<std::size_t>(1, (last - first) / kSamples);
  for (std::size_t i = first; i < last && labels <= kSamples; i += step) {
    const std::int64_t d = z[i].end_ns - z[i].start_ns;
    std::size_t k = 0;
    while (k < labels && time[k].first != z[i].label) ++k;
    if (k == labels) {
      if (labels == kSamples) break;
      time[labels] = {z[i].label, 0};
      longest[labels++] = i;
    }
    time[k].second += d;
    if (d > z[longest[k]].end_ns - z[longest[k]].start_ns) longest[k] = i;
  }
  std::size_t best = 0;
  for (std::size_t k = 1; k < labels; ++k)
    if (time[k].second > time[best].second) best = k;
  return static_cast<std::uint32_t>(longest[best]);
}

}  // namespace

void build_row_items(const Row& row, const TimeMapping& m, double min_px,
                     std::vector<DrawItem>& out, double max_px) {
  const auto [first, last] = visible_zones(row, m.view_begin(), m.view_end());
  const auto& z = row.zones;
  const double min_ns = min_px * m.ns_per_px();
  const double max_ns = std::max(min_px, max_px) * m.ns_per_px();
  const double lo = -min_px - 1, hi = m.width() + min_px + 1;
  const auto clip = [&](double x) { return std::clamp(x, lo, hi); };
  const auto wide = [&](const Zone& a) {
    return static_cast<double>(a.end_ns - a.start_ns) >= min_ns;
  };

  std::size_t i = first;
  while (i < last) {
    DrawItem item;
    item.first = static_cast<std::uint32_t>(i);
    item.x0 = clip(m.x_of(z[i].start_ns));
    std::int64_t end = z[i].end_ns;
    std::size_t j = i + 1;
    if (!wide(z[i])) {
      // Absorb every zone starting less than min_px after the run's end, until the run spans
      // max_px. Zones do not overlap, so only the last absorbed one can be wide; a wide one
      // ends the run unmerged.
      const double run_limit = static_cast<double>(z[i].start_ns) + max_ns;
      for (;;) {
        const double limit = std::min(static_cast<double>(end) + min_ns, run_limit);
        const auto next = std::partition_point(z.begin() + j, z.begin() + last, [&](const Zone& a) {
          return static_cast<double>(a.start_ns) < limit;
        });
        std::size_t k = static_cast<std::size_t>(next - z.begin());
        if (k == j) break;
        const bool stop = wide(z[k - 1]);
        if (stop) --k;
        if (k > j) end = std::max(end, z[k - 1].end_ns);
        j = k;
        if (stop) break;
      }
    }
    item.zones = static_cast<std::uint32_t>(j - i);
    item.events = row.events(i, j);
    item.longest = item.zones == 1 ? item.first : sample_longest(z, i, j);
    item.x1 = clip(m.x_of(end));
    if (item.x1 < item.x0 + 1) item.x1 = item.x0 + 1;  // nothing narrower than a pixel
    out.push_back(item);
    i = j;
  }
}

}  // namespace ts::gui
