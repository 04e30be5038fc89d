// Device busy and idle time, each idle stretch attributed to input, host, sync or other.
#include <gtest/gtest.h>

#include "profiler/analysis/device_idle.hpp"
#include "profiler/analysis/interval_sorter.hpp"

namespace {

namespace a = ts::analysis;
using a::IdleCause;
using a::TrackRole;
using ts::trace::Category;

struct Result {
  a::WindowIdle idle;
  std::vector<a::IdleGap> gaps;
};

Result idle(const a::PartIntervals& t, a::Interval window, std::int64_t step = 7) {
  Result r;
  a::IdleScratch scratch;
  r.idle = a::device_idle(window, step, a::window_of(t, window), r.gaps, scratch);
  return r;
}

TEST(DeviceIdle, EveryCauseFirstMatchWins) {
  a::IntervalSorter b;
  b.add(TrackRole::device, Category::kernel, 10, 20);
  b.add(TrackRole::device, Category::h2d, 50, 60);  // copies make the device busy too
  b.add(TrackRole::trainer, Category::input_wait, 0, 5);
  b.add(TrackRole::trainer, Category::launch, 22, 30);
  b.add(TrackRole::trainer, Category::sync, 30, 45);
  b.add(TrackRole::trainer, Category::host_compute, 40, 48);  // host beats sync on [40,45)
  b.add(TrackRole::trainer, Category::input_wait, 70, 80);
  b.add(TrackRole::trainer, Category::launch, 75, 85);  // input beats host on [75,80)
  const Result r = idle(b.finish(), {0, 100});
  const std::vector<a::IdleGap> expected = {
      {0, 5, 7, IdleCause::input},   {5, 10, 7, IdleCause::other},   {20, 22, 7, IdleCause::other},
      {22, 30, 7, IdleCause::host},  {30, 40, 7, IdleCause::sync},   {40, 48, 7, IdleCause::host},
      {48, 50, 7, IdleCause::other}, {60, 70, 7, IdleCause::other},  {70, 80, 7, IdleCause::input},
      {80, 85, 7, IdleCause::host},  {85, 100, 7, IdleCause::other},
  };
  ASSERT_EQ(r.gaps.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(r.gaps[i].start_ns, expected[i].start_ns) << i;
    EXPECT_EQ(r.gaps[i].end_ns, expected[i].end_ns) << i;
    EXPECT_EQ(r.gaps[i].step, 7) << i;
    EXPECT_EQ(r.gaps[i].cause, expected[i].cause) << i;
  }
  EXPECT_EQ(r.idle.busy_ns, 20);
  EXPECT_EQ(r.idle.idle_ns, 80);
  EXPECT_EQ(r.idle.by_cause_ns[static_cast<int>(IdleCause::input)], 15);
  EXPECT_EQ(r.idle.by_cause_ns[static_cast<int>(IdleCause::host)], 21);
  EXPECT_EQ(r.idle.by_cause_ns[static_cast<int>(IdleCause::sync)], 10);
  EXPECT_EQ(r.idle.by_cause_ns[static_cast<int>(IdleCause::other)], 34);
}

TEST(DeviceIdle, HostStagingCopiesAndOptimizerAreHostCause) {
  a::IntervalSorter b;
  b.add(TrackRole::trainer, Category::h2d, 0, 10);
  b.add(TrackRole::trainer, Category::optimizer, 10, 30);
  b.add(TrackRole::trainer, Category::input_read, 30, 40);  // the trainer producing its batch
  b.add(TrackRole::worker, Category::launch, 40, 50);       // not the trainer: no cause
  const Result r = idle(b.finish(), {0, 50});
  EXPECT_EQ(r.idle.busy_ns, 0);
  EXPECT_EQ(r.idle.by_cause_ns[static_cast<int>(IdleCause::host)], 30);
  EXPECT_EQ(r.idle.by_cause_ns[static_cast<int>(IdleCause::input)], 10);
  EXPECT_EQ(r.idle.by_cause_ns[static_cast<int>(IdleCause::other)], 10);
}

TEST(DeviceIdle, BusyAcrossQueuesIsTheirUnion) {
  a::IntervalSorter b;
  b.add(TrackRole::device, Category::kernel, 0, 60);
  b.add(TrackRole::device, Category::h2d, 40, 80);  // another queue, overlapping
  const Result r = idle(b.finish(), {0, 100});
  EXPECT_EQ(r.idle.busy_ns, 80);
  EXPECT_EQ(r.idle.idle_ns, 20);
  ASSERT_EQ(r.gaps.size(), 1u);
  EXPECT_EQ(r.gaps[0].cause, IdleCause::other);
  EXPECT_EQ(a::idle_cause_name(IdleCause::input), "input");
  EXPECT_EQ(a::idle_cause_name(IdleCause::host), "host");
  EXPECT_EQ(a::idle_cause_name(IdleCause::sync), "sync");
  EXPECT_EQ(a::idle_cause_name(IdleCause::other), "other");
}

}  // namespace
