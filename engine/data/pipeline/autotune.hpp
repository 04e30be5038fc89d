// tf.data's AUTOTUNE idea in small: from what one measurement window saw (how long the trainer
// waited for batches, how busy the workers were), decide whether to add a worker or deepen the
// prefetch buffer. Pure logic, so it is tested without threads.
#pragma once

#include <string>

namespace ts {

struct AutotuneWindow {
  double wall_s = 0;         // length of the window
  double wait_s = 0;         // trainer time blocked waiting for a batch
  double worker_busy_s = 0;  // summed over workers: time spent loading and mapping samples
  int workers = 0;           // active workers during the window
  double mean_ready = 0;     // prepared batches waiting, averaged over the window's batches
  double empty_share = 1;    // share of the window's batch requests that found none ready
};

struct AutotuneDecision {
  int parallel = 0, prefetch = 0;
  std::string reason;  // empty when nothing changed
};

class Autotuner {
 public:
  // tune_*: whether that knob is "auto"; the max_* bound it (cores, memory budget).
  Autotuner(bool tune_parallel, bool tune_prefetch, int max_parallel, int max_prefetch);

  // The trainer waiting for more than kWaitThreshold of a window, and finding no batch ready for
  // at least kEmptyThreshold of its requests, means the input is too slow. Workers come first:
  // if they were at least kBusyThreshold busy, or the prefetch buffer is already
  // kDeepPrefetchPerWorker batches per worker deep (deepening it further did not help), add a
  // worker (up to the cores); else (idle workers: they started too late) double the prefetch
  // depth (up to the memory budget).
  AutotuneDecision observe(const AutotuneWindow& w, int parallel, int prefetch) const;

  static constexpr double kWaitThreshold = 0.02;
  static constexpr double kBusyThreshold = 0.5;
  static constexpr int kDeepPrefetchPerWorker = 4;
  static constexpr double kEmptyThreshold = 0.05;

 private:
  bool tune_parallel_, tune_prefetch_;
  int max_parallel_, max_prefetch_;
};

}  // namespace ts
