// The steps as analysis sees them, shared by analyse() and the viewer's early look at the first
// steps, so both take exactly the same step boundaries.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
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

// The tracks the steps were recorded on (the trainer threads), in order of first appearance.
std::vector<std::uint32_t> step_tracks(std::span<const store::Step> steps);

}  // namespace ts::analysis
