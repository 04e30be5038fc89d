// Sorts the events of a trace into the few interval sets the step breakdown and the device idle
// analysis work on, in one pass and without keeping the events themselves. Which track an event
// is on decides what it means (profiler/analysis/README.md, "Which events count"):
//
//   trainer thread (a thread holding step events)
//     input_wait, input_read/decode/map/batch  -> input_wait  (the trainer producing or waiting
//                                                 for its batch is time spent on input)
//     launch                                   -> launch
//     sync                                     -> sync
//     host_compute, optimizer, kernel          -> host_compute (a "kernel" zone on a host thread
//                                                 is host math)
//     h2d, d2h                                 -> h2d, d2h     (host-side staging copies)
//     collective                               -> collective   (blocked in communication)
//   device queue
//     kernel, collective, h2d, d2h             -> device_compute, collective, h2d, d2h, and
//                                                 device busy
//   any other track (input workers, the writer, counters): not part of the breakdown.
//
// Everything else (step, other) is left to the `other` part, which the breakdown computes as
// the remainder of the step.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "profiler/analysis/intervals.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/analysis/tracks.hpp"
#include "profiler/store/reader.hpp"

namespace ts::analysis {

// What the sorter gives: one interval set per breakdown part, and the busy sets.
struct PartIntervals {
  // parts[p]: where part p's events ran (any track), a set. parts[Part::other] stays empty.
  std::array<IntervalSet, kPartCount> parts;
  IntervalSet device_busy;  // kernel and copy events on device queues, a set
  IntervalSet host_busy;    // trainer launch, host compute and copy zones: the "host" idle cause
  IntervalSet input_work;   // input stages (read, decode, map, batch) running on any thread
  const IntervalSet& operator[](Part p) const { return parts[static_cast<int>(p)]; }
};

// The sets narrowed to the intervals that overlap one window (a step).
struct PartIntervalsWindow {
  std::array<std::span<const Interval>, kPartCount> parts;
  std::span<const Interval> device_busy, host_busy, input_work;
  std::span<const Interval> operator[](Part p) const { return parts[static_cast<int>(p)]; }
};

// Narrows the sets to one window by binary search.
PartIntervalsWindow window_of(const PartIntervals& intervals, Interval window);

// Sorts events, one at a time, into PartIntervals.
class IntervalSorter {
 public:
  // An event on a track of this role. Fastest with events in start order (as Reader::scan
  // delivers them); any order works.
  void add(TrackRole role, trace::Category category, std::int64_t start, std::int64_t end);
  // An input stage running on any thread (worker or trainer): is the pipeline working?
  void add_input_work(std::int64_t start, std::int64_t end) { input_work_.add(start, end); }

  // Streaming use, while events arrive in start order: once an event starting at or after a
  // window's end has arrived, nothing later can fall inside the window, so live_window() is
  // final for it; drop_before() then forgets what lies behind the next window.
  PartIntervalsWindow live_window(Interval window);
  void drop_before(std::int64_t t);
  // Whether any device work was added (dropped or not).
  bool device_seen() const { return device_seen_; }

  PartIntervals finish();

 private:
  std::array<SetBuilder, kPartCount> parts_;
  SetBuilder device_busy_, host_busy_, input_work_;
  bool device_seen_ = false;
};

}  // namespace ts::analysis
