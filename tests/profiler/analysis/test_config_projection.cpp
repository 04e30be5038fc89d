// Projections of a configuration change (profiler/analysis/config_projection.hpp) on hand-built
// reports, against figures computed by hand.
#include <gtest/gtest.h>

#include "profiler/analysis/config_projection.hpp"

namespace ts::analysis {
namespace {

using Kind = ConfigChange::Kind;

KernelStat kernel(std::string name, std::int64_t total_ns) {
  KernelStat k;
  k.name = std::move(name);
  k.total_ns = total_ns;
  return k;
}

// 10 steps of 1 ms: 600 µs compute (of which 100 µs Adam's update, 400 µs GEMMs), 300 µs input
// wait, 50 µs exposed copies, 50 µs hand-over; batch 32.
Report report() {
  Report r;
  r.steps = 10;
  r.batch = 32;
  r.step_time.mean_ms = 1.0;
  r.breakdown[Part::device_compute] = 6'000'000;
  r.breakdown[Part::input_wait] = 3'000'000;
  r.breakdown[Part::h2d] = 500'000;
  r.breakdown[Part::input_handoff] = 500'000;
  r.kernels = {kernel("gemm", 4'000'000), kernel("adam_update", 1'000'000),
               kernel("relu", 1'000'000)};
  return r;
}

TEST(ConfigProjection, TunedPipelineHidesInputBehindADevice) {
  const ConfigProjection p = project_change(report(), {Kind::pipeline_tuned, 1, ""}, {});
  EXPECT_EQ(p.kind, ConfigProjection::Kind::estimate);
  EXPECT_NEAR(p.step_ms, 1.0 - 0.35, 1e-9);
  EXPECT_NEAR(p.per_sample_ms, 0.65 / 32, 1e-9);
}

TEST(ConfigProjection, TunedPipelineOnTheHostsCoresStillCostsThem) {
  // Compute on both of 2 cores: (0.6 × 2 + 0.35) / 2 = 0.775 ms of cores per step, 0.175 ms more
  // than the compute alone.
  ProjectionContext host;
  host.host_cores = 2;
  host.compute_threads = 2;
  const ConfigProjection p = project_change(report(), {Kind::pipeline_tuned, 1, ""}, host);
  EXPECT_NEAR(p.step_ms, 0.65 + 0.175, 1e-9);
  // One compute thread of 4 cores leaves room: (0.6 + 0.35) / 4 < 0.6, all hidden.
  host.host_cores = 4;
  host.compute_threads = 1;
  EXPECT_NEAR(project_change(report(), {Kind::pipeline_tuned, 1, ""}, host).step_ms, 0.65, 1e-9);
}

TEST(ConfigProjection, BatchScalesPerSampleWorkAndKeepsPerStepWork) {
  // Per sample: compute but the update (0.5) and input (0.35) = 0.85 ms; per step: 0.15 ms.
  const ConfigProjection twice = project_change(report(), {Kind::batch_scale, 2, ""}, {});
  EXPECT_NEAR(twice.step_ms, 0.15 + 1.7, 1e-9);
  EXPECT_NEAR(twice.per_sample_ms, 1.85 / 64, 1e-9);
  const ConfigProjection half = project_change(report(), {Kind::batch_scale, 0.5, ""}, {});
  EXPECT_NEAR(half.step_ms, 0.15 + 0.425, 1e-9);
  EXPECT_NEAR(half.per_sample_ms, 0.575 / 16, 1e-9);
}

TEST(ConfigProjection, OptimizerScalesTheUpdateByTheMemoryItMoves) {
  EXPECT_NEAR(project_change(report(), {Kind::optimizer, 1, "sgd"}, {}).step_ms,
              1.0 - 0.1 * (1 - 5.0 / 7.0), 1e-9);
  Report sgd = report();
  sgd.kernels[1].name = "sgd_update";
  EXPECT_NEAR(project_change(sgd, {Kind::optimizer, 1, "adam"}, {}).step_ms,
              1.0 + 0.1 * (7.0 / 5.0 - 1), 1e-9);
}

TEST(ConfigProjection, MixedPrecisionIsABoundWithoutFasterF16) {
  const ConfigProjection cpu = project_change(report(), {Kind::precision, 1, "mixed"}, {});
  EXPECT_EQ(cpu.kind, ConfigProjection::Kind::at_most);
  EXPECT_NEAR(cpu.step_ms, 1.0, 1e-9);
  ProjectionContext gpu;
  gpu.fp16_faster = true;
  const ConfigProjection faster = project_change(report(), {Kind::precision, 1, "mixed"}, gpu);
  EXPECT_EQ(faster.kind, ConfigProjection::Kind::estimate);
  EXPECT_NEAR(faster.step_ms, 1.0 - 0.2, 1e-9);
}

TEST(ConfigProjection, Fp32TakesTheConversionsOff) {
  Report mixed = report();
  mixed.kernels.push_back(kernel("convert", 500'000));
  mixed.breakdown[Part::host_compute] = 1'000'000;
  EXPECT_NEAR(project_change(mixed, {Kind::precision, 1, "fp32"}, {}).step_ms, 1.0 - 0.05 - 0.1,
              1e-9);
}

TEST(ConfigProjection, AnotherBackendIsNotProjected) {
  const ConfigProjection p = project_change(report(), {Kind::backend, 1, "opencl"}, {});
  EXPECT_EQ(p.kind, ConfigProjection::Kind::none);
  EXPECT_FALSE(p.how.empty());
}

}  // namespace
}  // namespace ts::analysis
