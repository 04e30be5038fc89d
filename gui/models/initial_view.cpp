#include "gui/models/initial_view.hpp"

#include <algorithm>
#include <limits>
#include <utility>
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
  const std::vector<bool> analysed =
      analysis::select_steps(steps, analysis::run_shape(reader), options).analysed;
  return first_input_bound_step(reader, steps, analysed, analysis::step_tracks(steps), max_events,
                                options);
}

std::optional<std::int64_t> first_input_bound_step(const store::Reader& reader,
                                                   std::span<const store::Step> steps,
                                                   const std::vector<bool>& analysed,
                                                   std::span<const std::uint32_t> step_tracks,
                                                   std::uint64_t max_events,
                                                   const analysis::AnalysisOptions& options) {
  if (steps.empty()) return std::nullopt;
  const std::vector<store::Track> track_list = reader.tracks();
  const analysis::TrackTable tracks(track_list, step_tracks);
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
    std::span<const store::Step> near, std::size_t centre, std::int64_t not_before) {
  if (near.empty()) return std::nullopt;
  const std::size_t i = std::min(centre, near.size() - 1);
  std::size_t first = i >= 1 ? i - 1 : 0;
  if (near[first].step < not_before && near[i].step >= not_before) first = i;
  const std::size_t last = std::min(near.size() - 1, first + 3);
  return std::pair{near[first].step, near[last].step};
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
  return with_margin(t0, t1);
}

std::pair<std::int64_t, std::int64_t> with_margin(std::int64_t t0, std::int64_t t1) {
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

OpeningSteps::OpeningSteps(analysis::RunShape shape, const analysis::AnalysisOptions& options,
                           std::size_t count)
    : shape_(std::move(shape)), options_(options), rule_(shape_, options_, count) {}

void OpeningSteps::restart(std::size_t count) {
  rule_ = analysis::StepRule(shape_, options_, count);
  clean_ = {};
  seen_ = 0;
  prefix_.clear();
  analysed_.clear();
  tracks_.clear();
  first_step_.reset();
  first_analysed_.reset();
}

void OpeningSteps::add(const store::Step& s) {
  const bool analysed = rule_.analysed(seen_++, s.step);
  clean_.add(s);
  if (!first_step_) first_step_ = s.step;
  if (analysed && !first_analysed_) first_analysed_ = s.step;
  if (prefix_.size() < kPrefixSteps) {
    prefix_.push_back(s);
    analysed_.push_back(analysed);
  }
  if (std::find(tracks_.begin(), tracks_.end(), s.track) == tracks_.end())
    tracks_.push_back(s.track);
}

std::vector<bool> OpeningSteps::analysed() const {
  // Leaving every step out would leave nothing to say: then every step counts (select_steps()).
  return first_analysed_ ? analysed_ : std::vector<bool>(analysed_.size(), true);
}

std::optional<std::int64_t> OpeningSteps::first_analysed() const {
  return first_analysed_ ? first_analysed_ : first_step_;
}

}  // namespace ts::gui
