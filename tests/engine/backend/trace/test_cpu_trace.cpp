// The CPU backend's timeline: every op a device event on "CPU compute", copies with bytes,
// waits as `sync` zones, all inside their steps.
#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <vector>

#include "engine/backend/cpu/cpu_backend.hpp"
#include "engine/backend/cpu/cpu_backend_impl.hpp"
#include "engine/backend/cpu/cpu_memory_counter.hpp"
#include "tests/engine/backend/trace/trace_test_util.hpp"

namespace ts::test {
namespace {

using ts::trace::Category;

constexpr std::int64_t kM = 16, kK = 32, kN = 24;
constexpr int kSteps = 3;

TEST(CpuTrace, StepsRecordOpsCopiesAndWaits) {
  cpu::CpuBackend backend(2);
  const std::vector<float> ha(kM * kK, 0.5f), hb(kK * kN, -0.25f);
  std::vector<float> hc;
  const std::uint64_t a_bytes = kM * kK * sizeof(float), b_bytes = kK * kN * sizeof(float);

  TraceRun run;
  run_gemm_steps(backend, kSteps, kM, kK, kN, ha, hb, hc);
  backend.finish();
  run.read();
  EXPECT_EQ(hc[0], 0.0f);  // relu of 32 * 0.5 * -0.25 < 0

  const ts::store::Track* track = run.track_named("CPU compute");
  ASSERT_NE(track, nullptr);
  EXPECT_EQ(track->kind, ts::trace::TrackKind::device_queue);
  EXPECT_EQ(track->id, backend.trace_track());

  for (int step = 0; step < kSteps; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    std::vector<TraceEvent> uploads, gemms, relus, downloads;
    for (const TraceEvent& e : run.on_track(track->id)) {
      if (e.step() != step) continue;
      if (e.category() == Category::h2d && e.name == "upload") uploads.push_back(e);
      if (e.category() == Category::kernel && e.name == "gemm") gemms.push_back(e);
      if (e.category() == Category::kernel && e.name == "relu") relus.push_back(e);
      if (e.category() == Category::d2h && e.name == "download") downloads.push_back(e);
    }
    ASSERT_EQ(uploads.size(), 2u);
    EXPECT_EQ(uploads[0].bytes(), static_cast<std::int64_t>(a_bytes));
    EXPECT_EQ(uploads[1].bytes(), static_cast<std::int64_t>(b_bytes));
    ASSERT_EQ(gemms.size(), 1u);
    EXPECT_EQ(gemms[0].work_size, kM * kN);
    EXPECT_EQ(gemms[0].bytes(), ts::store::kNull);
    ASSERT_EQ(relus.size(), 1u);
    EXPECT_EQ(relus[0].work_size, kM * kN);
    ASSERT_EQ(downloads.size(), 1u);
    EXPECT_EQ(downloads[0].bytes(), static_cast<std::int64_t>(hc.size() * sizeof(float)));
    // In program order: the CPU runs each op before returning.
    EXPECT_LE(uploads[1].end(), gemms[0].start());
    EXPECT_LE(gemms[0].end(), relus[0].start());
    EXPECT_LE(relus[0].end(), downloads[0].start());
    std::size_t syncs = 0;
    for (const TraceEvent& e : run.of(Category::sync, "wait for device"))
      syncs += e.step() == step ? 1 : 0;
    EXPECT_EQ(syncs, 1u);  // the download's
  }
  // finish() after the last step: a sync zone outside any step.
  std::size_t outside = 0;
  for (const TraceEvent& e : run.of(Category::sync, "wait for device"))
    outside += e.step() == ts::store::kNull ? 1 : 0;
  EXPECT_EQ(outside, 1u);
  EXPECT_TRUE(run.of(Category::launch).empty());  // nothing is enqueued on the CPU
  expect_disjoint(run.on_track(track->id), "CPU compute");
  expect_device_inside_host_span(run);
  // Each step's device events lie inside the step.
  for (const ts::store::Step& s : run.reader().steps())
    for (const TraceEvent& e : run.on_track(track->id))
      if (e.step() == s.step) {
        EXPECT_GE(e.start(), s.start_ns);
        EXPECT_LE(e.end(), s.start_ns + s.dur_ns);
      }
}

TEST(CpuTrace, DeviceEventsOnOneStepInFour) {
  cpu::CpuBackend backend(2);
  const std::vector<float> ha(kM * kK, 0.5f), hb(kK * kN, -0.25f);
  std::vector<float> hc;
  ts::trace::SessionOptions options;
  options.device_event_every = 4;
  TraceRun run(options);
  run_gemm_steps(backend, 12, kM, kK, kN, ha, hb, hc);
  backend.finish();
  run.read();
  std::map<std::int64_t, int> per_step;
  for (const TraceEvent& e : run.events())
    if (e.kind == ts::trace::TrackKind::device_queue) ++per_step[e.step()];
  ASSERT_EQ(per_step.size(), 3u);
  EXPECT_TRUE(per_step.contains(0) && per_step.contains(4) && per_step.contains(8));
  EXPECT_EQ(per_step[0], per_step[4]);
  EXPECT_EQ(per_step[0], per_step[8]);
  EXPECT_EQ(run.meta("capture.device_event_every"), "4");
  EXPECT_EQ(run.meta("capture.device_event_cost_ns"), "") << "the CPU backend measures none";
  // The result is the same on every step.
  EXPECT_FLOAT_EQ(hc[0], 0.0f);  // relu of 32 x 0.5 x -0.25
}

TEST(CpuTrace, NothingIsRecordedOutsideASession) {
  cpu::CpuBackend backend(1);
  const Tensor t = backend.alloc(Shape{8}, DType::F32);
  std::vector<float> h(8, 1.0f);
  backend.upload(t, h.data());  // before the session: not in the file
  TraceRun run;
  backend.relu(t, t);
  run.read();
  backend.relu(t, t);  // after it: nowhere
  EXPECT_EQ(run.of(Category::h2d).size(), 0u);
  EXPECT_EQ(run.of(Category::kernel, "relu").size(), 1u);
}

TEST(CpuTrace, HostMemoryCounterFollowsTensorAllocations) {
  cpu::CpuBackend backend(1);
  const std::int64_t before = cpu::tensor_bytes();
  TraceRun run;
  {
    const Tensor t = backend.alloc(Shape{1000}, DType::F32);
    EXPECT_EQ(cpu::tensor_bytes(), before + 4000);
    backend.fill(t, 1.0f);
  }
  EXPECT_EQ(cpu::tensor_bytes(), before);
  run.read();
  const ts::store::Track* track = run.track_named("host memory (tensors)");
  ASSERT_NE(track, nullptr);
  EXPECT_EQ(track->kind, ts::trace::TrackKind::counter);
  const auto samples = run.reader().counter(track->id, 0, std::numeric_limits<std::int64_t>::max());
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples.front().value, static_cast<double>(before + 4000));  // the allocation
  EXPECT_EQ(samples.back().value, static_cast<double>(before));          // its release
  // The host's memory, for the batch-size lever.
  EXPECT_GT(std::stoll(run.meta("host.memory_bytes")), 0);
}

TEST(CpuTrace, AllocationsOutsideASessionAreCountedButNotRecorded) {
  cpu::CpuBackend backend(1);
  const std::int64_t before = cpu::tensor_bytes();
  const Tensor kept = backend.alloc(Shape{256}, DType::F32);  // before the session
  EXPECT_EQ(cpu::tensor_bytes(), before + 1024);
  TraceRun run;
  run.read();
  // The track may exist (another test registered it), but holds no sample of this session.
  if (const ts::store::Track* track = run.track_named("host memory (tensors)")) {
    EXPECT_TRUE(
        run.reader().counter(track->id, 0, std::numeric_limits<std::int64_t>::max()).empty());
  }
}

}  // namespace
}  // namespace ts::test
