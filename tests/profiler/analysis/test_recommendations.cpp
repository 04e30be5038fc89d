// Recommendations fire on measured figures and quote them.
#include <gtest/gtest.h>

#include "profiler/analysis/recommendations.hpp"
#include "profiler/analysis/step_breakdown.hpp"

namespace {

namespace a = ts::analysis;
using a::IdleCause;
using a::Part;

bool any_contains(const std::vector<std::string>& v, const std::string& needle) {
  for (const auto& s : v)
    if (s.find(needle) != std::string::npos) return true;
  return false;
}

// 100 steps of 10 ms; 63 % input (60 % waiting, 3 % exposed copies); the map stage on one
// worker; the device idle 41 % of the time, mostly waiting for input.
a::Report input_bound_report() {
  a::Report r;
  r.steps = 100;
  r.step_time_total_ns = 1'000'000'000;
  r.breakdown[Part::input_wait] = 600'000'000;
  r.breakdown[Part::h2d] = 30'000'000;
  r.breakdown[Part::device_compute] = 370'000'000;
  r.h2d_total_ns = 30'000'000;
  r.input_pct = 63.0;
  r.verdict = a::Verdict::high;
  r.pipeline.workers = 1;
  r.pipeline.prefetch = 2;
  r.pipeline.cache = "none";
  r.pipeline.bottleneck_stage = "map";
  a::StageStat map;
  map.stage = "map";
  map.ns_per_sample = 1'200;
  map.threads = 1;
  r.pipeline.stages.push_back(map);
  r.device.has_device = true;
  r.device.idle_ns = 410'000'000;
  r.device.idle_pct = 41.0;
  r.device.idle_by_cause_ns[static_cast<int>(IdleCause::input)] = 300'000'000;
  r.device.idle_by_cause_ns[static_cast<int>(IdleCause::host)] = 110'000'000;
  r.idle_cost_per_1000_steps = a::idle_cost_per_1000_steps(r.device.idle_ns, r.steps, 2.5);
  return r;
}

TEST(Recommendations, IdleCostIsIdleTimePerStepPricedPerHour) {
  // One hour of idle device over 1 000 steps: exactly one hour's price per 1 000 steps.
  EXPECT_DOUBLE_EQ(a::idle_cost_per_1000_steps(3'600'000'000'000, 1000, 2.5), 2.5);
  EXPECT_DOUBLE_EQ(a::idle_cost_per_1000_steps(3'600'000'000'000, 2000, 4.0), 2.0);
  EXPECT_DOUBLE_EQ(a::idle_cost_per_1000_steps(0, 10, 2.5), 0.0);
  EXPECT_DOUBLE_EQ(a::idle_cost_per_1000_steps(10, 0, 2.5), 0.0);
}

TEST(Recommendations, InputBoundRunGetsPipelineAdviceQuotingTheFigures) {
  const a::Report r = input_bound_report();
  const auto recs = a::recommend(r, {});
  ASSERT_FALSE(recs.empty());
  const std::string& first = recs[0];
  EXPECT_NE(first.find("Input is 63.0 % of step time"), std::string::npos) << first;
  EXPECT_NE(first.find("the map stage"), std::string::npos) << first;
  EXPECT_NE(first.find("1.20 µs per sample on 1 thread"), std::string::npos) << first;
  EXPECT_NE(first.find("raise --parallel (now 1)"), std::string::npos) << first;
  EXPECT_NE(first.find("--prefetch (now 2)"), std::string::npos) << first;
  EXPECT_NE(first.find("--cache memory"), std::string::npos) << first;
  // 3 % of step time in copies, none hidden: the exposed-copy rule fires and quotes it.
  EXPECT_TRUE(any_contains(recs, "Host-to-device copies take 3.0 % of step time")) << recs[1];
  // 4.1 ms idle per step = 4.1 s per 1 000 steps at $2.50/hour = $0.0028, written at the scale
  // that shows cents: $2.85 per 1 M steps; 41 % of every $2.50 device-hour = $1.02.
  EXPECT_TRUE(any_contains(recs, "Device idle 41.0 % of step time")) << recs.back();
  EXPECT_TRUE(any_contains(recs, "$1.02 of every $2.50 device-hour pays for an idle device"))
      << recs.back();
  EXPECT_TRUE(any_contains(recs, "($2.85 per 1 M steps)")) << recs.back();
  EXPECT_TRUE(any_contains(recs, "mostly waiting for input (73.2 % of the idle time)"));
  EXPECT_FALSE(any_contains(recs, "waits on the host"));
}

TEST(Recommendations, HiddenCopiesAndACachedPipelineAreNotFlagged) {
  a::Report r = input_bound_report();
  r.h2d_total_ns = 100'000'000;  // 30 of 100 ms exposed: mostly hidden behind compute
  r.pipeline.cache = "memory";
  const auto recs = a::recommend(r, {});
  EXPECT_FALSE(any_contains(recs, "Host-to-device"));
  EXPECT_FALSE(any_contains(recs, "--cache"));
}

TEST(Recommendations, HostBoundAndSyncBoundIdleTime) {
  a::Report r;
  r.steps = 10;
  r.step_time_total_ns = 1'000'000;
  r.breakdown[Part::device_compute] = 500'000;
  r.device.has_device = true;
  r.device.idle_ns = 500'000;
  r.device.idle_pct = 50;
  r.device.idle_by_cause_ns[static_cast<int>(IdleCause::host)] = 300'000;
  r.device.idle_by_cause_ns[static_cast<int>(IdleCause::sync)] = 200'000;
  a::KernelStat k;
  k.name = "tiny";
  k.count = 400;
  k.total_ns = 500'000;
  r.kernels.push_back(k);
  auto recs = a::recommend(r, {});
  EXPECT_TRUE(any_contains(recs, "waits on the host (launching work or computing) for 30.0 %"));
  EXPECT_TRUE(any_contains(recs, "40.0 kernels per step averaging 1.25 µs"));
  EXPECT_TRUE(any_contains(recs, "mostly waiting on the host (60.0 % of the idle time)"));
  EXPECT_FALSE(any_contains(recs, "blocked on the device"));
  std::swap(r.device.idle_by_cause_ns[static_cast<int>(IdleCause::host)],
            r.device.idle_by_cause_ns[static_cast<int>(IdleCause::sync)]);
  recs = a::recommend(r, {});
  EXPECT_TRUE(any_contains(recs, "blocked on the device while the device is idle for 30.0 %"));
  EXPECT_FALSE(any_contains(recs, "waits on the host"));
}

TEST(Recommendations, DroppedEventsWarnAndAHealthyRunGetsNone) {
  a::Report r;
  r.steps = 10;
  r.step_time_total_ns = 1'000'000;
  r.breakdown[Part::device_compute] = 950'000;
  r.device.has_device = true;
  r.device.idle_ns = 50'000;
  r.device.idle_pct = 5;
  EXPECT_TRUE(a::recommend(r, {}).empty());
  r.dropped_events = 1234;
  const auto recs = a::recommend(r, {});
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_NE(recs[0].find("1234 events were dropped"), std::string::npos) << recs[0];
}

TEST(Recommendations, PriceAndCurrencyComeFromTheOptions) {
  a::Report r = input_bound_report();
  a::AnalysisOptions o;
  o.gpu_hour_price = 10;
  o.currency = "€";
  r.idle_cost_per_1000_steps = a::idle_cost_per_1000_steps(r.device.idle_ns, r.steps, 10);
  EXPECT_TRUE(any_contains(a::recommend(r, o), "€4.10 of every €10.00 device-hour"));
  EXPECT_TRUE(any_contains(a::recommend(r, o), "(€0.011 per 1 000 steps)"));
}

}  // namespace
