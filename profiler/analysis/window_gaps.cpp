#include "profiler/analysis/window_gaps.hpp"

#include <algorithm>
#include <optional>
#include <span>

#include "profiler/analysis/event_pass.hpp"
#include "profiler/analysis/steps.hpp"

namespace ts::analysis {

namespace {

std::int64_t step_end(const store::Step& s) {
  return sat_add(s.start_ns, s.dur_ns);
}

// The steps of a context whose steps stay in the file that overlap `window`: they are disjoint
// and in time order, so those are the last to start before it, if it reaches into it, and those
// starting in it.
std::vector<store::Step> steps_overlapping(const store::Reader& reader, Interval window) {
  std::vector<store::Step> out;
  if (const auto before = reader.last_step_before(window.start))
    if (step_end(*before) > window.start) out.push_back(*before);
  for (const store::Step& s : reader.steps_starting_in(window.start, window.end))
    if (step_end(s) > window.start) out.push_back(s);
  return out;
}

}  // namespace

GapContext gap_context(const store::Reader& reader) {
  const auto process_of = [&](const store::Step& s) {
    const store::Track* t = reader.track(s.track);
    return t != nullptr ? t->process : store::kNull;
  };
  CleanStepsCheck check;
  std::optional<std::int64_t> process;
  bool one_process = true;
  std::vector<std::uint32_t> with_steps;
  const bool in_order = reader.each_step([&](const store::Step& s) {
    check.add(s);
    const std::int64_t p = process_of(s);
    if (!process) process = p;
    one_process = one_process && p == *process;
    if (std::find(with_steps.begin(), with_steps.end(), s.track) == with_steps.end())
      with_steps.push_back(s.track);
  });
  if (in_order && process && one_process && check.clean()) {
    // The one group step_groups() would make, its steps left in the file.
    const std::vector<StepGroup> one{StepGroup{*process, {}}};
    TrackTable tracks = group_track_table(reader, one, trainer_tracks(reader, with_steps));
    return {{}, std::move(tracks), true};
  }
  std::vector<store::Step> raw = reader.steps();
  const std::vector<std::uint32_t> trainers = trainer_tracks(reader, step_tracks(raw));
  std::vector<StepGroup> groups = step_groups(reader, std::move(raw));
  TrackTable tracks = group_track_table(reader, groups, trainers);
  return {std::move(groups), std::move(tracks), false};
}

std::vector<IdleGap> idle_gaps_in(const store::Reader& reader, Interval window,
                                  const AnalysisOptions& options) {
  return idle_gaps_in(reader, gap_context(reader), window, options);
}

std::vector<IdleGap> idle_gaps_in(const store::Reader& reader, const GapContext& context,
                                  Interval window, const AnalysisOptions& options) {
  const TrackTable& tracks = context.tracks;
  AnalysisOptions listed = options;
  listed.keep_gaps = true;
  std::vector<IdleGap> out;
  const std::size_t groups = context.steps_in_file ? 1 : context.groups.size();
  for (std::size_t g = 0; g < groups; ++g) {
    std::vector<store::Step> read;
    std::span<const store::Step> part;
    if (context.steps_in_file) {
      read = steps_overlapping(reader, window);
      part = read;
    } else {
      const std::span<const store::Step> steps(context.groups[g].steps);
      const auto first = std::partition_point(
          steps.begin(), steps.end(), [&](const auto& s) { return step_end(s) <= window.start; });
      const auto last = std::partition_point(
          first, steps.end(), [&](const store::Step& s) { return s.start_ns < window.end; });
      part = std::span<const store::Step>(first, last);
    }
    if (part.empty()) continue;
    const std::int64_t t0 = part.front().start_ns;
    const std::int64_t t1 = step_end(part.back());
    EventPass pass(part, listed, /*later_part=*/true);
    const bool several = groups > 1;
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
  if (groups > 1)
    std::stable_sort(out.begin(), out.end(),
                     [](const IdleGap& a, const IdleGap& b) { return a.start_ns < b.start_ns; });
  return out;
}

}  // namespace ts::analysis
