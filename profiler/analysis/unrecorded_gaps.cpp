#include "profiler/analysis/unrecorded_gaps.hpp"

#include <algorithm>
#include <cstdint>

#include "profiler/analysis/interval_sorter.hpp"
#include "profiler/analysis/intervals.hpp"

namespace ts::analysis {

std::vector<UnrecordedGap> longest_unrecorded_gaps(const store::Reader& reader,
                                                   const TrackTable& tracks, const Report& r,
                                                   std::size_t limit) {
  std::vector<UnrecordedGap> out;
  if (r.step_time_total_ns <= 0 || 100.0 * static_cast<double>(r.breakdown[Part::other]) /
                                           static_cast<double>(r.step_time_total_ns) <
                                       kUnrecordedPct)
    return out;
  // The kUnrecordedStepsRead steps with the most unrecorded time, found in one pass (each step
  // decoded once, nothing held per step): the longest first, the earlier first among equals.
  std::vector<StepSummary> steps;
  const auto more = [](const StepSummary& a, const StepSummary& b) {
    return a.parts[Part::other] > b.parts[Part::other];
  };
  for (const StepSummary& s : r.per_step) {
    if (s.warmup || s.parts[Part::other] <= 0) continue;
    if (steps.size() == kUnrecordedStepsRead && !more(s, steps.back())) continue;
    steps.insert(std::upper_bound(steps.begin(), steps.end(), s, more), s);
    if (steps.size() > kUnrecordedStepsRead) steps.pop_back();
  }
  const std::size_t read = steps.size();
  for (std::size_t i = 0; i < read; ++i) {
    const StepSummary& s = steps[i];
    const Interval window{s.start_ns, sat_add(s.start_ns, s.dur_ns)};
    // The same sorting of events into parts as the breakdown's, over this step only (and this
    // rank's tracks in a trace of several).
    IntervalSorter sorter;
    reader.scan(window.start, window.end, 0, [&](const store::Event& e) {
      const TrackRole role = tracks.role(e.track);
      if (role == TrackRole::ignored || tracks.group(e.track) != s.rank_index) return;
      const Interval when = event_interval(e.start_ns, e.dur_ns);
      sorter.add(role, e.category, std::max(when.start, window.start),
                 std::min(when.end, window.end));
    });
    const PartIntervals parts = sorter.finish();
    IntervalSet recorded, next;
    for (const IntervalSet& p : parts.parts) {
      unite(recorded, p, next);
      recorded.swap(next);
    }
    IntervalSet empty;
    gaps(recorded, window, empty);
    for (const Interval& g : empty) out.push_back({s.step, s.start_ns, g.start, g.end});
  }
  const std::size_t kept = std::min(limit, out.size());
  std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(kept), out.end(),
                    [](const UnrecordedGap& a, const UnrecordedGap& b) {
                      return a.end_ns - a.start_ns > b.end_ns - b.start_ns;
                    });
  out.resize(kept);
  return out;
}

}  // namespace ts::analysis
