#include "profiler/analysis/window_gaps.hpp"

#include <algorithm>
#include <span>

#include "profiler/analysis/event_pass.hpp"
#include "profiler/analysis/steps.hpp"

namespace ts::analysis {

GapContext gap_context(const store::Reader& reader,
                       std::shared_ptr<const std::vector<store::Step>> steps) {
  if (steps) {
    const auto process_of = [&](const store::Step& s) {
      const store::Track* t = reader.track(s.track);
      return t != nullptr ? t->process : store::kNull;
    };
    const std::vector<store::Step>& all = *steps;
    const bool one_process =
        !all.empty() && std::all_of(all.begin(), all.end(), [&](const auto& s) {
          return process_of(s) == process_of(all.front());
        });
    if (one_process && already_clean(all)) {
      // The one group step_groups() would make, without a copy of its steps.
      const std::vector<StepGroup> one{StepGroup{process_of(all.front()), {}}};
      TrackTable tracks = group_track_table(reader, one, trainer_tracks(reader, all));
      return {{}, std::move(tracks), std::move(steps)};
    }
  }
  std::vector<store::Step> raw = steps ? *steps : reader.steps();
  const std::vector<std::uint32_t> trainers = trainer_tracks(reader, raw);
  std::vector<StepGroup> groups = step_groups(reader, std::move(raw));
  TrackTable tracks = group_track_table(reader, groups, trainers);
  return {std::move(groups), std::move(tracks), nullptr};
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
  const std::size_t groups = context.group_count();
  for (std::size_t g = 0; g < groups; ++g) {
    const std::span<const store::Step> steps = context.steps_of(g);
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
