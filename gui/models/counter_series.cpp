#include "gui/models/counter_series.hpp"

#include <algorithm>

namespace ts::gui {

std::ptrdiff_t CounterSeries::at(std::int64_t t) const {
  const auto it = std::upper_bound(ts_ns.begin(), ts_ns.end(), t);
  return (it - ts_ns.begin()) - 1;
}

CounterSeries make_counter_series(std::uint32_t track,
                                  std::span<const store::CounterSample> samples,
                                  std::size_t max_points) {
  CounterSeries s;
  s.track = track;
  s.samples = samples.size();
  if (samples.empty()) return s;
  const auto push = [&](const store::CounterSample& c) {
    s.ts_ns.push_back(c.ts_ns);
    s.values.push_back(c.value);
  };
  s.min = s.max = samples.front().value;
  for (const auto& c : samples) {
    s.min = std::min(s.min, c.value);
    s.max = std::max(s.max, c.value);
  }
  max_points = std::max<std::size_t>(max_points, 4);
  if (samples.size() <= max_points) {
    for (const auto& c : samples) push(c);
    return s;
  }
  // Buckets of equal sample count; each keeps its minimum and maximum, in time order.
  const std::size_t buckets = max_points / 2;
  for (std::size_t b = 0; b < buckets; ++b) {
    const std::size_t lo = samples.size() * b / buckets, hi = samples.size() * (b + 1) / buckets;
    if (lo >= hi) continue;
    std::size_t mn = lo, mx = lo;
    for (std::size_t i = lo; i < hi; ++i) {
      if (samples[i].value < samples[mn].value) mn = i;
      if (samples[i].value > samples[mx].value) mx = i;
    }
    push(samples[std::min(mn, mx)]);
    if (mn != mx) push(samples[std::max(mn, mx)]);
  }
  return s;
}

}  // namespace ts::gui
