// Where the timeline opens: a few steps around the first input-bound step (or around the middle
// of the run, past warm-up, when none is found), so the first frame shows exact events of a small
// window instead of waiting for the whole-trace summary. The first input-bound step is found by
// analysing the steps from the start (analysis::EventPass over a range query) until one is
// input-bound or a budget of events is spent, so opening costs a bounded amount of reading.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <utility>

#include "profiler/analysis/report.hpp"
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

// The steps (first, last step number) to show around step number `at` (one before, two after,
// never before step number `not_before`: the warm-up), or around the middle of the run when `at`
// is not given or not a step; nullopt without steps.
std::optional<std::pair<std::int64_t, std::int64_t>> typical_steps(
    std::span<const store::Step> steps, std::optional<std::int64_t> at,
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

}  // namespace ts::gui
