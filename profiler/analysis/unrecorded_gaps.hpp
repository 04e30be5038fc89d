// Where a step's unrecorded time lies: the stretches of the analysed steps in which nothing the
// breakdown counts ran (no classified event on a trainer thread, no work on a device queue: the
// `other / idle` part), for the unrecorded-time lever (lever_rules.hpp) to quote.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "profiler/analysis/report.hpp"
#include "profiler/analysis/tracks.hpp"
#include "profiler/store/reader.hpp"

namespace ts::analysis {

// The unrecorded-time lever fires at or above this share of step time.
inline constexpr double kUnrecordedPct = 20.0;
// How many of the steps with the most unrecorded time are read for their gaps.
inline constexpr std::size_t kUnrecordedStepsRead = 3;

struct UnrecordedGap {
  std::int64_t step = 0;
  std::int64_t step_start_ns = 0;  // the gap's offset in its step is start_ns - step_start_ns
  std::int64_t start_ns = 0, end_ns = 0;
};

// The longest such stretches (at most `limit`, longest first) in the kUnrecordedStepsRead
// analysed steps holding the most `other` time; empty when that part is under kUnrecordedPct of
// step time. Reads only those steps' events. `tracks`: the roles analyse() gave the tracks.
std::vector<UnrecordedGap> longest_unrecorded_gaps(const store::Reader& reader,
                                                   const TrackTable& tracks, const Report& r,
                                                   std::size_t limit = 3);

}  // namespace ts::analysis
