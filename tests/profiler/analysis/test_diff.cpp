// Two runs side by side: deltas per step, kernels in one run only, valid JSON.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "profiler/analysis/diff.hpp"

namespace {

namespace a = ts::analysis;

a::KernelStat kernel(const char* name, std::int64_t count, std::int64_t total_ns) {
  a::KernelStat k;
  k.name = name;
  k.count = count;
  k.total_ns = total_ns;
  k.mean_ns = total_ns / count;
  return k;
}

// A: 100 steps of 10 ms, 30 % input. B: 50 steps of 12 ms, 2 % input.
std::pair<a::Report, a::Report> two_runs() {
  a::Report x, y;
  x.file = "a.db";
  y.file = "b.db";
  x.steps = 100;
  y.steps = 50;
  x.step_time.mean_ms = 10;
  y.step_time.mean_ms = 12;
  x.breakdown[a::Part::input_wait] = 300'000'000;  // 3 ms per step
  y.breakdown[a::Part::input_wait] = 12'000'000;   // 0.24 ms per step
  x.input_pct = 30;
  y.input_pct = 2;
  x.verdict = a::Verdict::high;
  x.pipeline.bottleneck_stage = "decode";
  x.kernels = {kernel("gemm", 200, 1'000'000'000), kernel("relu", 100, 10'000'000)};
  y.kernels = {kernel("gemm", 100, 250'000'000), kernel("softmax", 50, 100'000'000)};
  return {x, y};
}

TEST(Diff, FiguresPerStepAndTheirChange) {
  const auto [x, y] = two_runs();
  const a::RunDiff d = a::diff(x, y);
  EXPECT_EQ(d.file_a, "a.db");
  EXPECT_DOUBLE_EQ(d.steps.delta(), -50);
  EXPECT_DOUBLE_EQ(d.step_mean_ms.delta(), 2);
  EXPECT_DOUBLE_EQ(*d.step_mean_ms.change_pct(), 20);
  const a::Delta& input = d.breakdown_ms_per_step[static_cast<int>(a::Part::input_wait)];
  EXPECT_DOUBLE_EQ(input.a, 3.0);
  EXPECT_DOUBLE_EQ(input.b, 0.24);
  EXPECT_DOUBLE_EQ(d.input_pct.delta(), -28);
  EXPECT_EQ(d.verdict_a, a::Verdict::high);
  EXPECT_EQ(d.verdict_b, a::Verdict::none);
  EXPECT_EQ(d.bottleneck_a, "decode");
  EXPECT_FALSE(d.bottleneck_b.has_value());
  EXPECT_FALSE(d.samples_per_s.change_pct().has_value());  // 0 in A: no relative change
}

TEST(Diff, KernelTableDeltasIncludeKernelsOfOneRunOnly) {
  const auto [x, y] = two_runs();
  const a::RunDiff d = a::diff(x, y);
  ASSERT_EQ(d.kernels.size(), 3u);
  // gemm: 10 -> 5 ms per step; softmax: 0 -> 2; relu: 0.1 -> 0. Largest change first.
  EXPECT_EQ(d.kernels[0].name, "gemm");
  EXPECT_DOUBLE_EQ(d.kernels[0].ms_per_step.a, 10);
  EXPECT_DOUBLE_EQ(d.kernels[0].ms_per_step.b, 5);
  EXPECT_DOUBLE_EQ(d.kernels[0].count_per_step.b, 2);
  EXPECT_EQ(d.kernels[1].name, "softmax");
  EXPECT_FALSE(d.kernels[1].in_a);
  EXPECT_TRUE(d.kernels[1].in_b);
  EXPECT_DOUBLE_EQ(d.kernels[1].ms_per_step.a, 0);
  EXPECT_EQ(d.kernels[2].name, "relu");
  EXPECT_TRUE(d.kernels[2].in_a);
  EXPECT_FALSE(d.kernels[2].in_b);
}

TEST(Diff, TextAndJson) {
  const auto [x, y] = two_runs();
  const a::RunDiff d = a::diff(x, y);
  const std::string t = a::to_text(d);
  EXPECT_NE(t.find("high -> none"), std::string::npos) << t;
  EXPECT_NE(t.find("softmax (only in B)"), std::string::npos) << t;
  EXPECT_NE(t.find("relu (only in A)"), std::string::npos) << t;
  EXPECT_NE(t.find("+2.00 ms (+20.0 %)"), std::string::npos) << t;
  // Times in the unit their size needs: B's 0.24 ms of input wait per step, not "0.240 ms".
  EXPECT_NE(t.find("240.0 µs"), std::string::npos) << t;
  EXPECT_EQ(t.find("0.000 ms"), std::string::npos) << t;
  const std::string j = a::to_json(d);
  ASSERT_TRUE(nlohmann::json::accept(j)) << j;
  EXPECT_NE(j.find("\"verdict\": {\n    \"a\": \"high\",\n    \"b\": \"none\""), std::string::npos)
      << j;
  EXPECT_NE(j.find("\"change_pct\": null"), std::string::npos) << j;
  EXPECT_TRUE(nlohmann::json::accept(a::to_json(a::diff(a::Report{}, a::Report{}))));
}

// The saving is priced per hour of what the run rents: the device's when it has one (with its
// idle time), else the machine's (CPU training has no device to sit idle).
TEST(Diff, SavingSentenceNamesWhatTheRunRents) {
  auto [x, y] = two_runs();
  y.step_time.mean_ms = 5;  // B twice as fast: half the time saved
  const std::string cpu = a::saving_sentence(a::diff(x, y));
  EXPECT_EQ(cpu,
            "B does A's work in 50 % less machine time: $1.25 saved of every $2.50 "
            "machine-hour A rents.");
  x.device.has_device = y.device.has_device = true;
  x.device.idle_pct = 40;
  y.device.idle_pct = 10;
  const std::string gpu = a::saving_sentence(a::diff(x, y));
  EXPECT_EQ(gpu.rfind("B does A's work in 50 % less device time: $1.25 saved of every $2.50 "
                      "device-hour A rents (idle device time 40",
                      0),
            0u)
      << gpu;
  y.step_time.mean_ms = 20;
  EXPECT_EQ(a::saving_sentence(a::diff(x, y)).rfind("B needs 100 % more device time than A", 0),
            0u);
}

}  // namespace
