// Device events on a sample of steps (SessionOptions::device_event_every): which steps hold
// device events, the meta written, the automatic choice of K and the flag's parser.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "profiler/capture/core/device_sampling.hpp"
#include "profiler/store/reader.hpp"
#include "tests/profiler/test_util.hpp"
#include "trainscope/trace.hpp"

namespace {

namespace tt = ts::trace;
using ts::store::Reader;
using ts::test::TempDir;

// One step as a device backend drives it: a launch zone per command, and a device event for
// the commands enqueued while device_events() says so (carrying the step current at enqueue).
void backend_step(std::int64_t step, std::uint32_t track, std::uint32_t name, int commands) {
  TS_STEP(step);
  for (int c = 0; c < commands; ++c) {
    TS_ZONE("enqueue kernel", launch);
    if (!tt::device_events()) continue;
    const std::int64_t t = tt::now_ns();
    tt::device_event(track, tt::Category::kernel, name, t, t + 1000, 0, 64, tt::current_step());
  }
}

// Step numbers of the device events, and how many launch zones each step holds.
struct Recorded {
  std::set<std::int64_t> device_steps;
  std::size_t device_events = 0;
  std::map<std::int64_t, int> launches;
};
Recorded recorded(const Reader& r) {
  Recorded out;
  const ts::store::TimeRange range = r.time_range();
  for (const ts::store::Event& e : r.events(range.start_ns, range.end_ns + 1)) {
    if (e.category == tt::Category::kernel) {
      ++out.device_events;
      out.device_steps.insert(e.step);
    }
    if (e.category == tt::Category::launch) ++out.launches[e.step];
  }
  return out;
}

TEST(DeviceSampling, OneStepInKHoldsDeviceEventsTheOthersHostZonesOnly) {
  TempDir dir;
  const std::uint32_t track = tt::register_track("sampled gpu", tt::TrackKind::device_queue);
  const std::uint32_t name = tt::intern("gemm");
  tt::SessionOptions options;
  options.device_event_every = 4;
  const std::string path = dir.file("every4.db");
  tt::start(path, {}, options);
  tt::set_device_event_cost(12345.4);  // as the OpenCL backend does at the session's start
  EXPECT_TRUE(tt::device_events()) << "before the first step: recorded";
  for (std::int64_t step = 0; step < 12; ++step) {
    backend_step(step, track, name, 3);
    // Between steps the choice of the step before holds; the session never pauses.
    EXPECT_TRUE(tt::device_event_session());
  }
  tt::stop();
  EXPECT_TRUE(tt::device_events() == false && tt::recording() == false);

  const Reader r(path);
  const Recorded got = recorded(r);
  EXPECT_EQ(got.device_steps, (std::set<std::int64_t>{0, 4, 8}));
  EXPECT_EQ(got.device_events, 9u);
  for (std::int64_t step = 0; step < 12; ++step) EXPECT_EQ(got.launches.at(step), 3) << step;
  EXPECT_EQ(r.meta("capture.device_event_every"), "4");
  EXPECT_EQ(r.meta("capture.device_event_cost_ns"), "12345");

  // The next session, every step again: no key, events on every step.
  const std::string again = dir.file("every1.db");
  tt::start(again, {}, {});
  for (std::int64_t step = 0; step < 3; ++step) backend_step(step, track, name, 1);
  tt::stop();
  const Reader r2(again);
  EXPECT_EQ(recorded(r2).device_steps, (std::set<std::int64_t>{0, 1, 2}));
  EXPECT_FALSE(r2.meta("capture.device_event_every").has_value());
  EXPECT_FALSE(r2.meta("capture.device_event_cost_ns").has_value());
}

TEST(DeviceSampling, AutoMeasuresTheSecondStepThenSamplesOneStepInK) {
  TempDir dir;
  const std::uint32_t track = tt::register_track("auto gpu", tt::TrackKind::device_queue);
  const std::uint32_t name = tt::intern("relu");
  tt::SessionOptions options;
  options.device_event_every = tt::SessionOptions::kDeviceEventEveryAuto;
  const std::string path = dir.file("auto.db");
  tt::start(path, {}, options);
  // 10 commands at 10 ms each cost 100 ms a step; step 1 lasts at least 20 ms, so at a 1 %
  // target K = ceil(100 ms / (1 % x step time)) lies between 2 (a step of 10 s) and 500.
  tt::set_device_event_cost(10e6);
  backend_step(0, track, name, 10);
  {
    TS_STEP(1);
    for (int c = 0; c < 10; ++c) {
      const std::int64_t t = tt::now_ns();
      ASSERT_TRUE(tt::device_events());
      tt::device_event(track, tt::Category::kernel, name, t, t + 1000, 0, 64, tt::current_step());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::int64_t step = 2;
  backend_step(step++, track, name, 1);  // K is chosen as this step begins
  tt::flush();
  const Reader during(path);
  const std::string chosen = during.meta("capture.device_event_every").value_or("");
  ASSERT_FALSE(chosen.empty());
  const std::int64_t k = std::stoll(chosen);
  EXPECT_GE(k, 2);
  EXPECT_LE(k, 500);
  for (; step < 2 * k + 2; ++step) backend_step(step, track, name, 1);
  tt::stop();

  const Recorded got = recorded(Reader(path));
  std::set<std::int64_t> expected{0, 1};
  for (std::int64_t s = 2; s < 2 * k + 2; ++s)
    if (s % k == 0) expected.insert(s);
  EXPECT_EQ(got.device_steps, expected);
}

TEST(DeviceSampling, AutoWithoutAMeasuredCostRecordsEveryStep) {
  TempDir dir;
  const std::uint32_t track = tt::register_track("cpu-like", tt::TrackKind::device_queue);
  const std::uint32_t name = tt::intern("add");
  tt::SessionOptions options;
  options.device_event_every = tt::SessionOptions::kDeviceEventEveryAuto;
  const std::string path = dir.file("auto_cpu.db");
  tt::start(path, {}, options);
  for (std::int64_t step = 0; step < 6; ++step) backend_step(step, track, name, 2);
  tt::stop();
  const Reader r(path);
  EXPECT_EQ(recorded(r).device_steps.size(), 6u);
  EXPECT_EQ(r.meta("capture.device_event_every"), "1");
}

TEST(DeviceSampling, ChoosesTheSmallestKWithinTheTarget) {
  using ts::trace::core::choose_device_event_every;
  // 100 commands x 12 us = 1.2 ms of events on a 1 ms step: 1 % needs K = 120.
  EXPECT_EQ(choose_device_event_every(100, 12'000, 1e6, 1.0), 120u);
  // Exactly on the target: that K, not the next.
  EXPECT_EQ(choose_device_event_every(10, 1'000, 1e6, 1.0), 1u);
  EXPECT_EQ(choose_device_event_every(20, 1'000, 1e6, 1.0), 2u);
  EXPECT_EQ(choose_device_event_every(21, 1'000, 1e6, 1.0), 3u);
  // Cheap events: every step.
  EXPECT_EQ(choose_device_event_every(10, 100, 1e6, 1.0), 1u);
  // Nothing measured: every step.
  EXPECT_EQ(choose_device_event_every(0, 12'000, 1e6, 1.0), 1u);
  EXPECT_EQ(choose_device_event_every(100, 0, 1e6, 1.0), 1u);
  EXPECT_EQ(choose_device_event_every(100, 12'000, 0, 1.0), 1u);
  // Bounded.
  EXPECT_EQ(choose_device_event_every(1e9, 1e9, 1, 1.0), 1u << 20);
}

TEST(DeviceSampling, ParsesTheDeviceEventChoice) {
  tt::SessionOptions o;
  ASSERT_TRUE(tt::parse_device_event_choice("every:4", o));
  EXPECT_TRUE(o.device_events);
  EXPECT_EQ(o.device_event_every, 4u);
  ASSERT_TRUE(tt::parse_device_event_choice("off", o));
  EXPECT_FALSE(o.device_events);
  ASSERT_TRUE(tt::parse_device_event_choice("auto", o));
  EXPECT_TRUE(o.device_events);
  EXPECT_EQ(o.device_event_every, tt::SessionOptions::kDeviceEventEveryAuto);
  ASSERT_TRUE(tt::parse_device_event_choice("on", o));
  EXPECT_EQ(o.device_event_every, 1u);
  for (const char* bad : {"every:0", "every:", "every:4x", "every:-1", "every:1048577", "sometimes",
                          "", "ON", "every4"}) {
    tt::SessionOptions untouched;
    untouched.device_event_every = 7;
    EXPECT_FALSE(tt::parse_device_event_choice(bad, untouched)) << bad;
    EXPECT_EQ(untouched.device_event_every, 7u) << bad;
  }
}

}  // namespace
