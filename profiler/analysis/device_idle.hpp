// Device busy and idle time inside steps (profiler/analysis/README.md). Busy = the union of kernel
// and copy events on all device queues; idle = the rest of the step. Each idle stretch is
// attributed to a cause, first match wins, per nanosecond:
//   input       the trainer thread was waiting for (or producing) its batch (input_wait)
//   collective  the trainer was in a collective (an allreduce waiting for the other ranks)
//   host   the trainer was launching work, computing or staging a copy  (PartIntervals host_busy)
//   sync   the trainer was blocked on the device                        (PartIntervals sync)
//   other  none of these was recorded
// so a gap during which the host first launches and then waits for input becomes two pieces,
// "host" then "input", and idle_by_cause sums exactly to the idle time.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "profiler/analysis/interval_sorter.hpp"
#include "profiler/analysis/intervals.hpp"
#include "profiler/analysis/report.hpp"

namespace ts::analysis {

struct IdleScratch {
  IntervalSet gaps, clipped, fresh, claimed, merged, rest;
  std::vector<IdleGap> pieces;
};

struct WindowIdle {
  std::int64_t busy_ns = 0;
  std::int64_t idle_ns = 0;
  std::array<std::int64_t, kIdleCauseCount> by_cause_ns{};
};

// Appends the idle gaps of `window` (step number `step`), split by cause and in time order, to
// `gaps_out` and returns the window's busy and idle time. busy + idle == window.length().
WindowIdle device_idle(Interval window, std::int64_t step, const PartIntervalsWindow& intervals,
                       std::vector<IdleGap>& gaps_out, IdleScratch& scratch);

}  // namespace ts::analysis
