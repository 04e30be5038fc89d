// The per-step breakdown: overlapping categories resolved by priority, parts summing to the
// step's wall time, input time on the critical path, and the verdict thresholds.
#include <gtest/gtest.h>

#include "profiler/analysis/interval_sorter.hpp"
#include "profiler/analysis/step_breakdown.hpp"

namespace {

namespace a = ts::analysis;
using a::Part;
using a::TrackRole;
using ts::trace::Category;

a::Breakdown breakdown(const a::PartIntervals& t, a::Interval window) {
  a::BreakdownScratch scratch;
  return a::break_down(window, a::window_of(t, window), scratch);
}

TEST(StepBreakdown, OverlapsGoToTheHigherPriorityPart) {
  a::IntervalSorter b;
  b.add(TrackRole::trainer, Category::input_wait, 0, 30);
  b.add(TrackRole::trainer, Category::launch, 25, 40);
  b.add(TrackRole::trainer, Category::optimizer, 35, 70);
  b.add(TrackRole::trainer, Category::sync, 60, 80);
  b.add(TrackRole::device, Category::h2d, 20, 35);
  b.add(TrackRole::device, Category::kernel, 30, 50);
  b.add(TrackRole::device, Category::d2h, 45, 55);
  const a::Breakdown r = breakdown(b.finish(), {0, 100});
  // Hand-computed: kernel [30,50); d2h [50,55); h2d [20,30); input [0,20); launch nothing
  // ([25,40) is all taken); sync [60,80); optimizer (host compute) [55,60); other [80,100).
  EXPECT_EQ(r[Part::device_compute], 20);
  EXPECT_EQ(r[Part::d2h], 5);
  EXPECT_EQ(r[Part::h2d], 10);
  EXPECT_EQ(r[Part::input_wait], 20);
  EXPECT_EQ(r[Part::launch], 0);
  EXPECT_EQ(r[Part::sync], 20);
  EXPECT_EQ(r[Part::host_compute], 5);
  EXPECT_EQ(r[Part::other], 20);
  EXPECT_EQ(r.total(), 100);
  EXPECT_EQ(a::input_ns(r), 30);
}

TEST(StepBreakdown, EventsAreClippedToTheStep) {
  a::IntervalSorter b;
  b.add(TrackRole::device, Category::kernel, -50, 10);
  b.add(TrackRole::device, Category::kernel, 90, 150);
  b.add(TrackRole::trainer, Category::host_compute, -10, 200);
  const a::Breakdown r = breakdown(b.finish(), {0, 100});
  EXPECT_EQ(r[Part::device_compute], 20);
  EXPECT_EQ(r[Part::host_compute], 80);
  EXPECT_EQ(r[Part::other], 0);
  EXPECT_EQ(r.total(), 100);
}

TEST(StepBreakdown, CopiesHiddenBehindKernelsAreNotInputTime) {
  a::IntervalSorter b;
  b.add(TrackRole::device, Category::h2d, 0, 50);     // copy queue, prefetching the next batch
  b.add(TrackRole::device, Category::kernel, 0, 40);  // compute queue, this batch
  b.add(TrackRole::trainer, Category::h2d, 60, 70);   // host-side staging copy: exposed
  const a::Breakdown r = breakdown(b.finish(), {0, 100});
  EXPECT_EQ(r[Part::device_compute], 40);
  EXPECT_EQ(r[Part::h2d], 10 + 10);  // [40,50) on the queue after the kernel, [60,70) staging
  EXPECT_EQ(a::input_ns(r), 20);
}

TEST(StepBreakdown, InputStagesOnTheTrainerAreInputWaitAndWorkersAreIgnored) {
  a::IntervalSorter b;
  b.add(TrackRole::trainer, Category::input_batch, 0, 10);  // a pipeline without workers
  b.add(TrackRole::trainer, Category::input_decode, 5, 20);
  b.add(TrackRole::worker, Category::input_decode, 30, 90);  // runs beside training
  b.add(TrackRole::worker, Category::host_compute, 30, 90);
  b.add(TrackRole::ignored, Category::kernel, 0, 100);
  b.add(TrackRole::device, Category::other, 0, 100);  // a marker occupies no engine
  const a::PartIntervals t = b.finish();
  const a::Breakdown r = breakdown(t, {0, 100});
  EXPECT_EQ(r[Part::input_wait], 20);
  EXPECT_EQ(r[Part::host_compute], 0);
  EXPECT_EQ(r[Part::device_compute], 0);
  EXPECT_EQ(r[Part::other], 80);
  EXPECT_TRUE(t.device_busy.empty());
}

TEST(StepBreakdown, PartsAlwaysSumToTheStepOnRandomTimelines) {
  std::uint64_t x = 12345;
  auto next = [&] { return (x = x * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
  const Category cats[] = {Category::input_wait, Category::launch,       Category::sync,
                           Category::optimizer,  Category::host_compute, Category::h2d,
                           Category::kernel,     Category::d2h};
  for (int round = 0; round < 200; ++round) {
    a::IntervalSorter b;
    for (int i = 0; i < 30; ++i) {
      const auto start = static_cast<std::int64_t>(next() % 1000);
      const auto len = static_cast<std::int64_t>(next() % 200);
      const Category c = cats[next() % 8];
      // Kernels run on a queue, copies on a queue or as host staging, the rest on the host.
      const bool copy = c == Category::h2d || c == Category::d2h;
      const bool device = c == Category::kernel || (copy && next() % 2 == 0);
      b.add(device ? TrackRole::device : TrackRole::trainer, c, start, start + len);
    }
    const a::PartIntervals t = b.finish();
    const a::Interval w{static_cast<std::int64_t>(next() % 500),
                        500 + static_cast<std::int64_t>(next() % 600)};
    const a::Breakdown r = breakdown(t, w);
    ASSERT_EQ(r.total(), w.length());
    for (std::int64_t v : r.ns) ASSERT_GE(v, 0);
    // Device compute is never reduced by anything.
    ASSERT_EQ(r[Part::device_compute], a::overlap_length(t[Part::device_compute], w));
  }
}

TEST(StepBreakdown, VerdictThresholdsAtTheBoundaries) {
  EXPECT_EQ(a::verdict_for(0), a::Verdict::none);
  EXPECT_EQ(a::verdict_for(4.999), a::Verdict::none);
  EXPECT_EQ(a::verdict_for(5.0), a::Verdict::moderate);
  EXPECT_EQ(a::verdict_for(19.999), a::Verdict::moderate);
  EXPECT_EQ(a::verdict_for(20.0), a::Verdict::high);
  EXPECT_EQ(a::verdict_for(100.0), a::Verdict::high);
  EXPECT_EQ(a::verdict_name(a::Verdict::high), "high");
  EXPECT_EQ(a::verdict_name(a::Verdict::moderate), "moderate");
  EXPECT_EQ(a::verdict_name(a::Verdict::none), "none");
  EXPECT_EQ(a::part_name(Part::device_compute), "device_compute");
  EXPECT_EQ(a::part_name(Part::other), "other");
  EXPECT_DOUBLE_EQ(a::percent(1, 4), 25.0);
  EXPECT_DOUBLE_EQ(a::percent(1, 0), 0.0);
}

}  // namespace
