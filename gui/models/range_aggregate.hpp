// A time range of the timeline summed up by event name (Perfetto's area selection, TensorBoard's
// drag-select): for each name, how many events overlap the range, their time inside it (clipped
// to the range, so nested or partly outside events count what they cover), mean and longest.
// Exact: read from the trace, not from the drawn summary.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profiler/store/reader.hpp"

namespace ts::gui {

struct RangeRow {
  std::string name;
  trace::Category category = trace::Category::other;
  std::int64_t count = 0;
  std::int64_t total_ns = 0;  // inside the range
  std::int64_t max_ns = 0;    // the longest event, whole
  std::int64_t mean_ns() const { return count > 0 ? total_ns / count : 0; }
};

struct RangeAggregate {
  std::int64_t start_ns = 0, end_ns = 0;
  std::int64_t events = 0;     // events read
  int tracks = 0;              // tracks looked at
  bool truncated = false;      // stopped at max_events: the rows cover the first events only
  std::vector<RangeRow> rows;  // by total time inside the range, largest first
};

inline constexpr std::int64_t kMaxRangeEvents = 2'000'000;

// The events of `tracks` (every track when empty) overlapping [t0, t1).
RangeAggregate aggregate_range(const store::Reader& reader, std::int64_t t0, std::int64_t t1,
                               const std::vector<std::uint32_t>& tracks,
                               std::int64_t max_events = kMaxRangeEvents);

}  // namespace ts::gui
