// The samples of one counter track (prefetch buffer fill, device memory), drawn as a step line.
// Long series are thinned at load time to a bounded number of points that keep every bucket's
// minimum and maximum, so peaks survive and drawing stays cheap.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "profiler/store/reader.hpp"

namespace ts::gui {

struct CounterSeries {
  std::uint32_t track = 0;
  std::vector<std::int64_t> ts_ns;
  std::vector<double> values;
  double min = 0, max = 0;
  std::uint64_t samples = 0;  // before thinning

  bool empty() const { return ts_ns.empty(); }
  // The index of the last sample at or before t (the value in force at t), or -1.
  std::ptrdiff_t at(std::int64_t t) const;
};

inline constexpr std::size_t kMaxCounterPoints = 1 << 18;

// Builds a series from samples in time order, thinning it to at most max_points points.
CounterSeries make_counter_series(std::uint32_t track,
                                  std::span<const store::CounterSample> samples,
                                  std::size_t max_points = kMaxCounterPoints);

}  // namespace ts::gui
