// The timeline's rows that come from the steps and the analysis rather than from track events:
// the step lane (with which steps are input-bound and where each epoch starts) and the
// device-idle lane (gaps with their cause). A prefix sum lets a merged run of steps say how many
// were input-bound without visiting each one; a merged run of gaps samples its cause.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "gui/models/packed_steps.hpp"
#include "gui/models/zone.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/store/reader.hpp"

namespace ts::gui {

struct StepRow {
  Row row;  // zone i is step steps[i]; zones[i].label = i
  std::vector<std::int64_t> numbers;
  std::vector<float> input_pct;  // -1 until the analysis is done
  std::vector<std::uint8_t> input_bound;
  std::vector<std::uint32_t> bound_cum;  // input-bound steps in zones[0, i)
  // Where the epochs start, when the trace records two or more: the zone of each epoch's first
  // step and the epoch's number (1-based), in time order.
  struct EpochStart {
    std::size_t zone = 0;
    int epoch = 0;
  };
  std::vector<EpochStart> epochs;
  // The epoch of zone i (0: the trace records no epochs).
  int epoch_of(std::size_t zone) const;
  std::uint32_t bound_in(std::size_t first, std::size_t last) const {
    return bound_cum.empty() ? 0 : bound_cum[last] - bound_cum[first];
  }
};

// Either the idle gaps themselves (zone i is gap i, zones[i].label its cause), or, for a trace too
// long to hold every gap (gap_windows.hpp loads those of what is shown), one zone per step that
// had idle time: the whole step, labelled with its commonest cause, idle_ns[i] its idle time.
struct GapRow {
  Row row;
  std::vector<std::int64_t> steps;  // the step zone i lies in (per_step: is)
  bool per_step = false;
  std::vector<std::int64_t> idle_ns;  // per_step: the device's idle time in step i
  // The cause with the most idle time among up to 16 gaps sampled over zones[first, last): a
  // 10 M-event trace has millions of gaps, so no per-gap bookkeeping beyond the zone itself.
  analysis::IdleCause dominant(std::size_t first, std::size_t last) const;
};

// Steps in time order (the store's step_span rows); `figures` (the analysis's per-step figures,
// null until it is done) adds the input-bound flags; epoch_first_steps (trace_meta.hpp) the step
// number each epoch starts at, ascending.
StepRow make_step_row(const std::vector<store::Step>& steps, const PackedSteps* figures,
                      const std::vector<std::int64_t>& epoch_first_steps = {});
// Sets the input-bound flags and input shares of `row`'s steps from `figures` (null: unknown), in
// place: a report arriving after the row was built does not build it again.
void mark_step_row(StepRow& row, const PackedSteps* figures);
GapRow make_gap_row(const std::vector<analysis::IdleGap>& gaps);
// One zone per step (the analysis's per-step figures) with idle device time, in time order (of the
// overlapping steps of several ranks, the first to start: the idle lane is one lane).
GapRow make_step_idle_row(const PackedSteps& steps);

}  // namespace ts::gui
