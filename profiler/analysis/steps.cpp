#include "profiler/analysis/steps.hpp"

#include <algorithm>
#include <limits>

#include "profiler/analysis/intervals.hpp"

namespace ts::analysis {

std::vector<store::Step> clean_steps(std::span<const store::Step> in) {
  std::vector<store::Step> steps(in.begin(), in.end());
  clean_steps_in_place(steps);
  return steps;
}

void clean_steps_in_place(std::vector<store::Step>& steps) {
  for (store::Step& s : steps) {
    const Interval i = event_interval(s.start_ns, s.dur_ns);
    s.start_ns = i.start;
    s.dur_ns = i.length();
  }
  std::sort(steps.begin(), steps.end(), [](const store::Step& a, const store::Step& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.step < b.step;
  });
  std::int64_t end = std::numeric_limits<std::int64_t>::min();
  for (store::Step& s : steps) {
    if (s.start_ns < end) {
      const std::int64_t s_end = s.start_ns + s.dur_ns;
      s.start_ns = end;
      s.dur_ns = std::max<std::int64_t>(0, s_end - end);
    }
    end = std::max(end, s.start_ns + s.dur_ns);
  }
}

bool already_clean(std::span<const store::Step> steps) {
  CleanStepsCheck check;
  for (const store::Step& s : steps) {
    check.add(s);
    if (!check.clean()) return false;
  }
  return true;
}

void CleanStepsCheck::add(const store::Step& s) {
  const Interval when = event_interval(s.start_ns, s.dur_ns);
  if (when.start != s.start_ns || when.length() != s.dur_ns || s.start_ns < end_ ||
      (any_ && s.start_ns <= last_start_))
    clean_ = false;
  end_ = when.end;
  last_start_ = s.start_ns;
  any_ = true;
}

std::vector<std::uint32_t> step_tracks(std::span<const store::Step> steps) {
  std::vector<std::uint32_t> tracks;
  for (const store::Step& s : steps)
    if (std::find(tracks.begin(), tracks.end(), s.track) == tracks.end()) tracks.push_back(s.track);
  return tracks;
}

}  // namespace ts::analysis
