#include "profiler/analysis/window_gaps.hpp"

#include <algorithm>
#include <span>

#include "profiler/analysis/event_pass.hpp"

namespace ts::analysis {

GapContext gap_context(const store::Reader& reader) {
  std::vector<store::Step> raw = reader.steps();
  const std::vector<std::uint32_t> trainers = trainer_tracks(reader, raw);
  std::vector<StepGroup> groups = step_groups(reader, std::move(raw));
  TrackTable tracks = group_track_table(reader, groups, trainers);
  return {std::move(groups), std::move(tracks)};
}

std::vector<IdleGap> idle_gaps_in(const store::Reader& reader, Interval window,
                                  const AnalysisOptions& options) {
  return idle_gaps_in(reader, gap_context(reader), window, options);
}

std::vector<IdleGap> idle_gaps_in(const store::Reader& reader, const GapContext& context,
                                  Interval window, const AnalysisOptions& options) {
  const std::vector<StepGroup>& groups = context.groups;
  const TrackTable& tracks = context.tracks;
  AnalysisOptions listed = options;
  listed.keep_gaps = true;
  std::vector<IdleGap> out;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const std::vector<store::Step>& steps = groups[g].steps;
    const auto first = std::partition_point(steps.begin(), steps.end(), [&](const store::Step& s) {
      return sat_add(s.start_ns, s.dur_ns) <= window.start;
    });
    const auto last = std::partition_point(
        first, steps.end(), [&](const store::Step& s) { return s.start_ns < window.end; });
    if (first == last) continue;
    const std::span<const store::Step> part(first, last);
    const std::int64_t t0 = part.front().start_ns;
    const std::int64_t t1 = sat_add(part.back().start_ns, part.back().dur_ns);
    EventPass pass(part, listed, /*later_part=*/true);
    const bool several = groups.size() > 1;
    reader.scan(t0, std::max(t1, sat_add(t0, 1)), 0, [&](const store::Event& e) {
      // In a trace of several processes, each pass sees its own process's tracks only.
      if (several && (tracks.role(e.track) == TrackRole::ignored ||
                      tracks.group(e.track) != static_cast<int>(g)))
        return;
      if (e.start_ns < t0) {
        pass.add_context(e, tracks);
      } else {
        pass.add(e, tracks);
      }
    });
    pass.finish();
    out.insert(out.end(), pass.figures.gaps.begin(), pass.figures.gaps.end());
  }
  if (groups.size() > 1)
    std::stable_sort(out.begin(), out.end(),
                     [](const IdleGap& a, const IdleGap& b) { return a.start_ns < b.start_ns; });
  return out;
}

}  // namespace ts::analysis
