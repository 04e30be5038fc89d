#include "engine/data/pipeline/autotune.hpp"

#include <algorithm>
#include <cstdio>

namespace ts {

Autotuner::Autotuner(bool tune_parallel, bool tune_prefetch, int max_parallel, int max_prefetch)
    : tune_parallel_(tune_parallel),
      tune_prefetch_(tune_prefetch),
      max_parallel_(std::max(1, max_parallel)),
      max_prefetch_(std::max(1, max_prefetch)) {}

AutotuneDecision Autotuner::observe(const AutotuneWindow& w, int parallel, int prefetch) const {
  AutotuneDecision d{parallel, prefetch, {}};
  if (w.wall_s <= 0) return d;
  const double wait = w.wait_s / w.wall_s;
  if (wait < kWaitThreshold) return d;
  // A batch was (nearly) always ready when the trainer asked: the input keeps up, and the time
  // in next() went to scheduling on a busy machine, which more workers or prefetch won't fix.
  if (w.empty_share < kEmptyThreshold) return d;
  const double busy = w.workers > 0 ? w.worker_busy_s / (w.workers * w.wall_s) : 0.0;
  char why[160];
  const bool deep = prefetch >= kDeepPrefetchPerWorker * std::max(1, parallel);
  if (tune_parallel_ && (busy >= kBusyThreshold || deep || !tune_prefetch_) &&
      parallel < max_parallel_) {
    d.parallel = parallel + 1;
    std::snprintf(why, sizeof why, "trainer waited %.0f%% with workers %.0f%% busy%s: parallel %d",
                  100 * wait, 100 * std::min(busy, 1.0),
                  busy < kBusyThreshold && deep ? " and prefetch already deep" : "", d.parallel);
  } else if (tune_prefetch_ && prefetch < max_prefetch_) {
    d.prefetch = std::min(max_prefetch_, std::max(prefetch + 1, prefetch * 2));
    std::snprintf(why, sizeof why,
                  "trainer waited %.0f%% with workers %.0f%% busy, %.1f batches ready: prefetch %d",
                  100 * wait, 100 * std::min(busy, 1.0), w.mean_ready, d.prefetch);
  } else {
    return d;
  }
  d.reason = why;
  return d;
}

}  // namespace ts
