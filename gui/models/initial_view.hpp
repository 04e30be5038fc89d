// Where the timeline opens: a few steps around the first input-bound step past the warm-up (or
// from the first step past the warm-up, the first the figures cover, when none is found), so the
// first frame shows exact events of a small window instead of waiting for the whole-trace summary.
// The first input-bound step is found by analysing the steps from the start (analysis::EventPass
// over a range query) until one is input-bound or a budget of events is spent, so opening costs a
// bounded amount of reading.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "profiler/analysis/phases.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/analysis/steps.hpp"
#include "profiler/store/reader.hpp"

namespace ts::gui {

// Events the search for the first input-bound step reads at most when a trace is opened.
inline constexpr std::uint64_t kInputBoundSearchEvents = 200'000;

// The number of the first input-bound step (in time order) among the steps analyse() with
// `options` analyses (past the warm-up: first calls and compilation, or the cache-filling first
// epoch, are not what a run is like), as analyse() would mark it, looking only at the steps whose
// events lie within the first `max_events` events from the first step's start; nullopt when none
// is input-bound there. Throws store::Error.
std::optional<std::int64_t> first_input_bound_step(const store::Reader& reader,
                                                   std::span<const store::Step> steps,
                                                   std::uint64_t max_events,
                                                   const analysis::AnalysisOptions& options = {});
// The same from the first steps of a trace whose steps need no cleaning (OpeningSteps): `steps`
// the first of them, `analysed` whether analyse() analyses each, `step_tracks` the tracks of all.
std::optional<std::int64_t> first_input_bound_step(const store::Reader& reader,
                                                   std::span<const store::Step> steps,
                                                   const std::vector<bool>& analysed,
                                                   std::span<const std::uint32_t> step_tracks,
                                                   std::uint64_t max_events,
                                                   const analysis::AnalysisOptions& options);

// What the initial view needs of a trace's steps, taken from the opening's one pass over them so
// that none is held (a 100 M-event trace has 2.2 M steps): the first kPrefixSteps steps, whether
// analyse() analyses each, the tracks holding steps, the first analysed step, and whether the
// steps need cleaning (then the initial view reads them all again, cleaned).
class OpeningSteps {
 public:
  // More than the steps of kInputBoundSearchEvents events in any real trace.
  static constexpr std::size_t kPrefixSteps = std::size_t{1} << 16;

  // count: how many steps the pass will see (Reader::step_count()).
  OpeningSteps(analysis::RunShape shape, const analysis::AnalysisOptions& options,
               std::size_t count);
  OpeningSteps(const OpeningSteps&) = delete;  // its rule refers to its shape
  OpeningSteps& operator=(const OpeningSteps&) = delete;
  void add(const store::Step& s);
  void restart(std::size_t count);

  bool clean() const { return clean_.clean(); }
  std::span<const store::Step> prefix() const { return prefix_; }
  // Whether analyse() analyses each prefix() step.
  std::vector<bool> analysed() const;
  const std::vector<std::uint32_t>& tracks() const { return tracks_; }
  std::optional<std::int64_t> first_analysed() const;

 private:
  analysis::RunShape shape_;
  analysis::AnalysisOptions options_;
  analysis::StepRule rule_;
  analysis::CleanStepsCheck clean_;
  std::size_t seen_ = 0;
  std::vector<store::Step> prefix_;
  std::vector<bool> analysed_;
  std::vector<std::uint32_t> tracks_;
  std::optional<std::int64_t> first_step_, first_analysed_;
};

// The steps (first, last step number) to show around near[centre]: one before, two after, never
// before step number `not_before` (the warm-up); `near` in time order. Nullopt when empty.
std::optional<std::pair<std::int64_t, std::int64_t>> typical_steps(
    std::span<const store::Step> near, std::size_t centre,
    std::int64_t not_before = std::numeric_limits<std::int64_t>::min());

// The number of the first step analyse() with `options` analyses (the first past the
// warm-up); nullopt without steps.
std::optional<std::int64_t> first_analysed_step(const store::Reader& reader,
                                                std::span<const store::Step> steps,
                                                const analysis::AnalysisOptions& options = {});

// The time range [t0, t1) showing steps first..last with a small margin either side; nullopt
// when no step is in that range.
std::optional<std::pair<std::int64_t, std::int64_t>> steps_time_range(
    std::span<const store::Step> steps, std::pair<std::int64_t, std::int64_t> numbers);
// [t0, t1) with steps_time_range()'s margin either side.
std::pair<std::int64_t, std::int64_t> with_margin(std::int64_t t0, std::int64_t t1);

}  // namespace ts::gui
