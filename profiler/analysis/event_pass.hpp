// The one pass over a trace's events that analyse() makes. Every event goes, by its track's role
// and its category, into the interval sorter, the kernel table or the pipeline stages; nothing
// keeps the events themselves. Events arrive in start order, so as soon as one starts at or after a
// step's end the step is final: it is analysed then (StepFigures) and the sorter forgets what
// lies before the next step, which keeps memory bounded on traces of any length.
//
// On a large trace the pass is split by start time, at step starts, into parts that parallel
// Readers scan on their own threads (SQLite's row decoding is most of the cost). A part also
// feeds its sorter the earlier events that reach into it, so its own steps come out complete;
// the parts' figures then merge in time order into exactly what one sequential pass gives.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "profiler/analysis/interval_sorter.hpp"
#include "profiler/analysis/kernel_stats.hpp"
#include "profiler/analysis/pipeline_stats.hpp"
#include "profiler/analysis/step_figures.hpp"
#include "profiler/analysis/tracks.hpp"
#include "profiler/store/reader.hpp"

namespace ts::analysis {

class EventPass {
 public:
  // steps: this part's steps, sorted and disjoint. later_part: a part after the first.
  // analysed: the window of the analysed steps (phases.hpp): kernels count inside it, kernels
  // before it count as warm-up; stages: where input stages count.
  EventPass(std::span<const store::Step> steps, const AnalysisOptions& options, bool later_part,
            Interval analysed = {INT64_MIN / 4, INT64_MAX / 4},
            Interval stages = {INT64_MIN / 4, INT64_MAX / 4});

  void add(const store::Event& e, const TrackTable& tracks);
  // An event of an earlier part that reaches into this one: the sorter only (it is counted there).
  void add_context(const store::Event& e, const TrackTable& tracks);
  // After the last event: analyses the steps still open.
  void finish();
  // Adds the figures of the part right after this one.
  void merge(EventPass&& later);

  StepFigures figures;
  KernelTable kernels;
  StageAccumulator stages;
  std::int64_t events = 0;
  std::int64_t clamped_events = 0;  // events whose times event_interval() clamped
  std::int64_t input_batches = 0;   // input_batch zones: batches handed to the trainer
  std::int64_t first_ns = INT64_MAX, last_ns = INT64_MIN;  // earliest start, latest end
  bool device_seen = false;                                // any device work at all
  std::int64_t warmup_kernels = 0, warmup_kernel_ns = 0;   // kernels before the window
  // The step numbers device events carry (each at least once; unsorted, may repeat): which
  // steps a capture with sampled device events recorded them on (Report::device_sampling).
  std::vector<std::int64_t> device_steps;

 private:
  // Analyses every pending step that ends at or before t.
  void close_steps(std::int64_t t);
  void note_device_step(std::int64_t step);

  std::span<const store::Step> steps_;
  Interval analysed_, stages_window_;
  std::size_t next_step_ = 0;
  const AnalysisOptions* options_;
  IntervalSorter sorter_;
};

// Where a parallel pass cuts `steps`: at step starts, so the parts hold about as many steps (and
// events) each. `threads` as AnalysisOptions::threads. Empty for a single-threaded pass.
std::vector<std::int64_t> split_points(std::span<const store::Step> steps, int threads);

// Scans every event of the trace. `splits` (sorted step starts) cut it by start time into
// splits.size() + 1 parts; the first is read with `reader`, each other one with its own Reader
// of the same file on its own thread. `steps`: all steps, sorted and disjoint. Returns the merged
// pass. Rethrows the first exception of any part (store::Error as the Reader throws it).
EventPass scan_events(const store::Reader& reader, const TrackTable& tracks,
                      std::span<const store::Step> steps, std::span<const std::int64_t> splits,
                      const AnalysisOptions& options,
                      Interval analysed = {INT64_MIN / 4, INT64_MAX / 4},
                      Interval stages = {INT64_MIN / 4, INT64_MAX / 4});

// The passes of the parts of the trace cut at `cuts` (ascending step starts): part i takes the
// events starting in [cuts[i], cuts[i + 1]) (the last part: to the end) and the steps starting
// there, with the earlier events that reach into it as context. cuts[0] == kFromStart makes the
// first part the trace's first (everything before cuts[1]); otherwise the events before cuts[0]
// are left to the caller, who merges the passes after its own. Parts after the first are read by
// Readers of their own on their own threads. Rethrows the first exception of any part.
inline constexpr std::int64_t kFromStart = INT64_MIN;
std::vector<EventPass> scan_parts(const store::Reader& reader, const TrackTable& tracks,
                                  std::span<const store::Step> steps,
                                  std::span<const std::int64_t> cuts,
                                  const AnalysisOptions& options,
                                  Interval analysed = {INT64_MIN / 4, INT64_MAX / 4},
                                  Interval stages = {INT64_MIN / 4, INT64_MAX / 4});

// A trace of several groups (processes, TrackTable::group): one pass per group, each event handed
// to the pass of its track's group. group_steps[g]: group g's steps, sorted and disjoint. Events
// of ignored tracks count in the first pass only. On a large trace (split_points over every
// group's steps) the scan is cut by start time into parts read by Readers of their own on their
// own threads, each group cut at one of its step starts so that its parts merge into what one
// sequential pass gives. Rethrows the first exception of any part.
std::vector<EventPass> scan_groups(const store::Reader& reader, const TrackTable& tracks,
                                   std::span<const std::span<const store::Step>> group_steps,
                                   std::span<const Interval> analysed,
                                   std::span<const Interval> stages,
                                   const AnalysisOptions& options);

}  // namespace ts::analysis
