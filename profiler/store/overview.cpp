#include "profiler/store/overview.hpp"

#include <algorithm>

namespace ts::store {

void Row::push(const Zone& z) {
  if (z.count != 1 && cum.empty()) {
    cum.resize(zones.size() + 1);
    for (std::size_t i = 0; i <= zones.size(); ++i) cum[i] = i;
  }
  zones.push_back(z);
  if (!cum.empty()) cum.push_back(cum.back() + z.count);
}

Row& TrackRows::row(std::size_t depth) {
  if (depth >= rows.size()) rows.resize(depth + 1);
  return rows[depth];
}

std::ptrdiff_t CounterSeries::at(std::int64_t t) const {
  const auto it = std::upper_bound(ts_ns.begin(), ts_ns.end(), t);
  return (it - ts_ns.begin()) - 1;
}

CounterSeries make_counter_series(std::uint32_t track, std::span<const CounterSample> samples,
                                  std::size_t max_points) {
  CounterSeries s;
  s.track = track;
  s.samples = samples.size();
  if (samples.empty()) return s;
  const auto push = [&](const CounterSample& c) {
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

const TrackRows* Overview::rows_of(std::uint32_t track) const {
  return find_track(tracks, track);
}

const CounterSeries* Overview::counter_of(std::uint32_t track) const {
  return find_track(counters, track);
}

std::uint32_t Overview::search_bin(std::int64_t t) const {
  // In doubles: a hostile trace's times may span more than int64_t holds.
  const double span = std::max(1.0, static_cast<double>(end_ns) - static_cast<double>(begin_ns));
  const double f = (static_cast<double>(t) - static_cast<double>(begin_ns)) / span;
  return static_cast<std::uint32_t>(std::clamp(f * kSearchBins, 0.0, kSearchBins - 1.0));
}

std::pair<std::int64_t, std::int64_t> Overview::search_bin_range(std::uint32_t bin) const {
  const double span = static_cast<double>(end_ns) - static_cast<double>(begin_ns);
  const auto at = [&](std::uint32_t b) {
    return sat_add(begin_ns, static_cast<std::int64_t>(std::min(span * b / kSearchBins, 9.2e18)));
  };
  // The last bin also takes events starting exactly at the end.
  return {at(bin), bin + 1 >= kSearchBins ? sat_add(end_ns, 1) : at(bin + 1)};
}

}  // namespace ts::store
