#include <gtest/gtest.h>

#include "engine/data/pipeline/autotune.hpp"

namespace ts {
namespace {

AutotuneWindow window(double wait, double busy_per_worker, int workers) {
  AutotuneWindow w;
  w.wall_s = 1.0;
  w.wait_s = wait;
  w.workers = workers;
  w.worker_busy_s = busy_per_worker * workers;
  w.mean_ready = 0.2;
  return w;
}

TEST(Autotune, HoldsWhenTheTrainerDoesNotWait) {
  const Autotuner t(true, true, 4, 16);
  const auto d = t.observe(window(0.01, 1.0, 1), 1, 2);
  EXPECT_EQ(d.parallel, 1);
  EXPECT_EQ(d.prefetch, 2);
  EXPECT_TRUE(d.reason.empty());
}

TEST(Autotune, HoldsWhenBatchesWereReadyAndTheWaitWasScheduling) {
  const Autotuner t(true, true, 4, 16);
  AutotuneWindow w = window(0.3, 0.95, 2);
  w.mean_ready = 3.0;
  w.empty_share = 0.0;
  EXPECT_TRUE(t.observe(w, 2, 2).reason.empty());
}

TEST(Autotune, AddsAWorkerWhenBusyWorkersStarveTheTrainer) {
  const Autotuner t(true, true, 4, 16);
  const auto d = t.observe(window(0.3, 0.95, 2), 2, 2);
  EXPECT_EQ(d.parallel, 3);
  EXPECT_EQ(d.prefetch, 2);
  EXPECT_NE(d.reason.find("parallel 3"), std::string::npos);
}

TEST(Autotune, DeepensPrefetchWhenIdleWorkersStillStarveTheTrainer) {
  const Autotuner t(true, true, 4, 16);
  const auto d = t.observe(window(0.2, 0.3, 2), 2, 2);
  EXPECT_EQ(d.parallel, 2);
  EXPECT_EQ(d.prefetch, 4);
  EXPECT_NE(d.reason.find("prefetch 4"), std::string::npos);
}

// Workers half busy while the trainer waits 45 % (a 2-core run): another worker, not a deeper
// buffer; and a buffer already 4 batches per worker deep is not deepened again.
TEST(Autotune, WorkersComeBeforeDeeperPrefetch) {
  const Autotuner t(true, true, 4, 64);
  const auto half = t.observe(window(0.45, 0.55, 1), 1, 2);
  EXPECT_EQ(half.parallel, 2);
  EXPECT_EQ(half.prefetch, 2);
  const auto deep = t.observe(window(0.45, 0.3, 2), 2, 8);
  EXPECT_EQ(deep.parallel, 3);
  EXPECT_EQ(deep.prefetch, 8);
  EXPECT_NE(deep.reason.find("prefetch already deep"), std::string::npos) << deep.reason;
}

TEST(Autotune, RespectsTheBoundsAndTheFixedKnobs) {
  const Autotuner capped(true, true, 2, 4);
  EXPECT_EQ(capped.observe(window(0.3, 0.95, 2), 2, 4).reason, "");  // both at their bound
  EXPECT_EQ(capped.observe(window(0.3, 0.2, 2), 2, 3).prefetch, 4);  // doubling clamps
  const Autotuner prefetch_only(false, true, 8, 16);
  const auto d = prefetch_only.observe(window(0.3, 0.95, 1), 1, 1);
  EXPECT_EQ(d.parallel, 1);
  EXPECT_EQ(d.prefetch, 2);
  const Autotuner fixed(false, false, 8, 16);
  EXPECT_EQ(fixed.observe(window(0.9, 0.9, 1), 1, 1).reason, "");
}

}  // namespace
}  // namespace ts
