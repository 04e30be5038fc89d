#include "gui/models/initial_view.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "profiler/analysis/event_pass.hpp"
#include "profiler/analysis/phases.hpp"
#include "profiler/analysis/steps.hpp"
#include "profiler/analysis/tracks.hpp"

namespace ts::gui {

namespace {

struct Stop {};

// The steps as the analysis takes them: `all` itself when it needs no cleaning (every real
// trace's steps; a copy of the 2.2 M steps of a 100 M-event trace is 71 MB), else a cleaned copy
// held in `copy`.
std::span<const store::Step> clean_view(std::span<const store::Step> all,
                                        std::vector<store::Step>& copy) {
  if (analysis::already_clean(all)) return all;
  copy = analysis::clean_steps(all);
  return copy;
}

}  // namespace

std::optional<std::int64_t> first_input_bound_step(const store::Reader& reader,
                                                   std::span<const store::Step> all,
                                                   std::uint64_t max_events,
                                                   const analysis::AnalysisOptions& options) {
  if (all.empty()) return std::nullopt;
  std::vector<store::Step> copy;
  const std::span<const store::Step> steps = clean_view(all, copy);
  const std::vector<store::Track> track_list = reader.tracks();
  const analysis::TrackTable tracks(track_list, analysis::step_tracks(steps));
  const std::vector<bool> analysed =
      analysis::select_steps(steps, analysis::run_shape(reader), options).analysed;
  // Parts of analyse()'s pass, in time order, stopping early: a step's figures are final (and
  // equal to analyse()'s) once an event starts at or after its end, since events come in start
  // order. Parts of a few hundred steps keep the memory small whatever the trace's length.
  constexpr std::size_t kPartSteps = 512;
  std::optional<std::int64_t> found;
  std::uint64_t events = 0;
  for (std::size_t first = 0; first < steps.size() && !found; first += kPartSteps) {
    const std::span<const store::Step> part =
        steps.subspan(first, std::min(kPartSteps, steps.size() - first));
    const std::int64_t t0 = part.front().start_ns;
    analysis::EventPass pass(part, options, first > 0);
    std::size_t checked = 0;
    const auto check = [&] {
      const auto& done = pass.figures.per_step;
      for (; checked < done.size() && !found; ++checked)
        if (done[checked].input_bound && analysed[first + checked]) found = done[checked].step;
      return found.has_value();
    };
    try {
      reader.scan(t0, part.back().start_ns + part.back().dur_ns, 0, [&](const store::Event& e) {
        if (++events > max_events) throw Stop{};
        if (first > 0 && e.start_ns < t0) {
          pass.add_context(e, tracks);  // the part before's: context for this part's steps
        } else {
          pass.add(e, tracks);
        }
        if (pass.figures.per_step.size() > checked && check()) throw Stop{};
      });
      pass.finish();  // every event of the part's steps was read: the rest are final too
      check();
    } catch (const Stop&) {
      check();
      break;
    }
  }
  return found;
}

std::optional<std::pair<std::int64_t, std::int64_t>> typical_steps(
    std::span<const store::Step> steps, std::optional<std::int64_t> at, std::int64_t not_before) {
  if (steps.empty()) return std::nullopt;
  std::size_t i = steps.size() / 2;
  if (at)
    for (std::size_t k = 0; k < steps.size(); ++k)
      if (steps[k].step == *at) {
        i = k;
        break;
      }
  std::size_t first = i >= 1 ? i - 1 : 0;
  if (steps[first].step < not_before && steps[i].step >= not_before) first = i;
  const std::size_t last = std::min(steps.size() - 1, first + 3);
  return std::pair{steps[first].step, steps[last].step};
}

std::optional<std::pair<std::int64_t, std::int64_t>> steps_time_range(
    std::span<const store::Step> steps, std::pair<std::int64_t, std::int64_t> numbers) {
  std::int64_t t0 = 0, t1 = 0;
  bool found = false;
  for (const store::Step& s : steps)
    if (s.step >= numbers.first && s.step <= numbers.second) {
      t0 = found ? std::min(t0, s.start_ns) : s.start_ns;
      t1 = found ? std::max(t1, s.start_ns + s.dur_ns) : s.start_ns + s.dur_ns;
      found = true;
    }
  if (!found) return std::nullopt;
  const std::int64_t margin = (t1 - t0) / 40 + 1;
  return std::pair{t0 - margin, t1 + margin};
}

std::optional<std::int64_t> first_analysed_step(const store::Reader& reader,
                                                std::span<const store::Step> all,
                                                const analysis::AnalysisOptions& options) {
  std::vector<store::Step> copy;
  const std::span<const store::Step> steps = clean_view(all, copy);
  const std::vector<bool> analysed =
      analysis::select_steps(steps, analysis::run_shape(reader), options).analysed;
  for (std::size_t i = 0; i < steps.size(); ++i)
    if (analysed[i]) return steps[i].step;
  return std::nullopt;
}

}  // namespace ts::gui
