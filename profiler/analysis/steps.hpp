// The steps as analysis sees them, shared by analyse() and the viewer's early look at the first
// steps, so both take exactly the same step boundaries.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "profiler/store/reader.hpp"

namespace ts::analysis {

// Steps in time order, clamped (event_interval) and made disjoint: a step starting before the
// previous one ended (only a damaged or hostile file has those) starts at that end instead, so
// no time is counted twice and every sum over steps stays within the trace's span.
std::vector<store::Step> clean_steps(std::span<const store::Step> steps);
void clean_steps_in_place(std::vector<store::Step>& steps);
// Whether clean_steps() returns `steps` as they are (every real trace's steps: in time order,
// disjoint, within the clamped range).
bool already_clean(std::span<const store::Step> steps);
// already_clean() one step at a time, for a pass that holds no list of the steps.
class CleanStepsCheck {
 public:
  void add(const store::Step& s);
  bool clean() const { return clean_; }

 private:
  bool clean_ = true, any_ = false;
  std::int64_t last_start_ = 0;
  std::int64_t end_ = std::numeric_limits<std::int64_t>::min();
};

// A trace with no step structure (no step markers, DataLoader calls or repeating top-level
// annotation: Reader::steps() is empty) is analysed as ONE step over its whole profiled window,
// as HTA and XProf analyse a window without steps: from its first to its last event, on the
// host thread holding the most events. nullopt when the trace holds steps, or no events, or
// only events of no duration.
std::optional<store::Step> whole_window_step(const store::Reader& reader);
// steps.source of such an analysis (Report::steps_source, "steps from" in the text report).
inline constexpr std::string_view kWholeWindowSource =
    "no step markers: the figures cover the whole profiled window as one step";

// The tracks the steps were recorded on (the trainer threads), in order of first appearance.
std::vector<std::uint32_t> step_tracks(std::span<const store::Step> steps);

// How a range of step numbers asked for (--steps A-B) meets the steps a trace holds, so that every
// command and the viewer refuse a range the trace does not hold and say what they took of one it
// holds in part. The held extent is read only when the range is not wholly held (a step-number
// index read otherwise, whatever the trace's size).
struct StepRangeFit {
  std::int64_t asked_first = 0, asked_last = 0;
  std::int64_t taken = 0, taken_first = 0, taken_last = 0;  // step rows numbered in the range
  std::int64_t held = 0, held_first = 0, held_last = 0;     // every step row (when read)
  bool whole() const { return taken > 0 && taken_first == asked_first && taken_last == asked_last; }
};
StepRangeFit fit_step_range(const store::Reader& reader,
                            std::pair<std::int64_t, std::int64_t> range);
// One sentence for a range holding no step of the trace ("--steps 5000-6000: run.db holds steps
// 0-1564, none in that range"); empty when it holds some.
std::string step_range_error(const StepRangeFit& fit, const std::string& file);
// One sentence for a range the trace holds in part ("--steps 1500-2000: run.db holds steps
// 0-1564; analysing steps 1500-1564"); empty when it holds all of it or none.
std::string step_range_note(const StepRangeFit& fit, const std::string& file);

}  // namespace ts::analysis
