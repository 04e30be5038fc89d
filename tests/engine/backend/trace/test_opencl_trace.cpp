// The OpenCL backend's timeline: device events of kernels and copies on "<device> compute",
// each tied to its host launch zone by a correlation id, host waits as `sync` zones, device
// times converted into the host's span, and the device memory counter.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "tests/engine/backend/trace/opencl_trace_fixture.hpp"
#include "tests/engine/backend/trace/trace_test_util.hpp"

namespace ts::test {
namespace {

using ts::trace::Category;

constexpr std::int64_t kM = 48, kK = 72, kN = 40;
constexpr int kSteps = 3;

std::vector<float> pattern(std::size_t n, int seed) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(static_cast<int>((i * 7 + static_cast<std::size_t>(seed) * 5) % 11) -
                              5) /
           4;
  return v;
}

TEST(OpenClTrace, StepsRecordKernelsCopiesLaunchesAndSyncs) {
  TS_TRACE_REQUIRE_OPENCL();
  ocl::OpenClBackend& backend = *traced_opencl_backend();
  const std::string device = backend.device_name();
  const std::vector<float> ha = pattern(kM * kK, 1), hb = pattern(kK * kN, 2);
  std::vector<float> hc;

  TraceRun run;
  run_gemm_steps(backend, kSteps, kM, kK, kN, ha, hb, hc);
  run.read();
  const std::uint64_t a_bytes = kM * kK * sizeof(float), b_bytes = kK * kN * sizeof(float),
                      c_bytes = kM * kN * sizeof(float);

  // The numbers are still right with tracing on.
  for (std::int64_t i = 0; i < kM; i += 7)
    for (std::int64_t j = 0; j < kN; j += 5) {
      double sum = 0;
      for (std::int64_t k = 0; k < kK; ++k) sum += double{ha[i * kK + k]} * hb[k * kN + j];
      EXPECT_NEAR(hc[i * kN + j], std::max(sum, 0.0), 1e-4) << i << "," << j;
    }

  const ts::store::Track* compute = run.track_named(device + " compute");
  ASSERT_NE(compute, nullptr);
  EXPECT_EQ(compute->kind, ts::trace::TrackKind::device_queue);
  EXPECT_EQ(compute->id, backend.compute_track());
  const std::vector<TraceEvent> queue = run.on_track(compute->id);

  for (int step = 0; step < kSteps; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    std::vector<TraceEvent> uploads, gemms, relus, downloads;
    for (const TraceEvent& e : queue) {
      if (e.step() != step) continue;
      if (e.category() == Category::h2d && e.name == "upload") uploads.push_back(e);
      if (e.category() == Category::kernel && e.name == "sgemm_NN") gemms.push_back(e);
      if (e.category() == Category::kernel && e.name == "relu") relus.push_back(e);
      if (e.category() == Category::d2h && e.name == "download") downloads.push_back(e);
    }
    ASSERT_EQ(uploads.size(), 2u);
    EXPECT_EQ(uploads[0].bytes(), static_cast<std::int64_t>(a_bytes));
    EXPECT_EQ(uploads[1].bytes(), static_cast<std::int64_t>(b_bytes));
    ASSERT_EQ(gemms.size(), 1u);
    EXPECT_EQ(gemms[0].work_size, kM * kN);
    ASSERT_EQ(relus.size(), 1u);
    EXPECT_GE(relus[0].work_size, kM * kN);  // rounded up to the work-group size
    ASSERT_EQ(downloads.size(), 1u);
    EXPECT_EQ(downloads[0].bytes(), static_cast<std::int64_t>(c_bytes));
    // In queue order.
    EXPECT_LE(uploads[1].end(), gemms[0].start());
    EXPECT_LE(gemms[0].end(), relus[0].start());
    EXPECT_LE(relus[0].end(), downloads[0].start());

    // Host side: each upload's staging copy (h2d, bytes) and enqueue (launch, bytes); the
    // download's enqueue and the wait for it, which ends after the copy did.
    std::vector<TraceEvent> staged, upload_launches, waits;
    for (const TraceEvent& e : run.of(Category::h2d, "stage upload"))
      if (e.step() == step) staged.push_back(e);
    for (const TraceEvent& e : run.of(Category::launch, "enqueue upload"))
      if (e.step() == step) upload_launches.push_back(e);
    for (const TraceEvent& e : run.of(Category::sync, "wait for download"))
      if (e.step() == step) waits.push_back(e);
    ASSERT_EQ(staged.size(), 2u);
    EXPECT_EQ(staged[0].kind, ts::trace::TrackKind::thread);
    EXPECT_EQ(staged[0].bytes() + staged[1].bytes(), static_cast<std::int64_t>(a_bytes + b_bytes));
    ASSERT_EQ(upload_launches.size(), 2u);
    EXPECT_EQ(upload_launches[0].bytes() + upload_launches[1].bytes(),
              static_cast<std::int64_t>(a_bytes + b_bytes));
    ASSERT_EQ(waits.size(), 1u);
    EXPECT_LE(downloads[0].end(), waits[0].end()) << "the wait returned before the copy ended";
  }

  std::vector<TraceEvent> device_events;
  for (const TraceEvent& e : queue)
    if (e.step() != ts::store::kNull) device_events.push_back(e);
  EXPECT_EQ(device_events.size(), static_cast<std::size_t>(5 * kSteps));
  expect_correlated_with_launches(run, device_events);
  expect_disjoint(queue, device + " compute");
  expect_device_inside_host_span(run);

  EXPECT_EQ(run.meta("device.opencl.name"), device);
  EXPECT_FALSE(run.meta("device.opencl.version").empty());
  const std::string clock = "clock.device." + device + ".";
  EXPECT_NE(run.meta(clock + "method"), "");
  EXPECT_NE(run.meta(clock + "method"), "none");
  EXPECT_FALSE(run.meta(clock + "offset_ns").empty());
  EXPECT_GE(std::stoll(run.meta(clock + "pairs")), 1);
  const std::string clamped = run.meta("clock.clamped_events." + device + " compute");
  // Moving an event to keep it physically possible is the exception: with a wrong fit (say,
  // the raw device clock, or an offset off by milliseconds) every event would be moved.
  EXPECT_LE(clamped.empty() ? 0 : std::stoul(clamped), queue.size() / 2);
  std::printf("clock alignment on %s: method %s, bracket %s ns; %s of %zu events moved > 1 us\n",
              device.c_str(), run.meta(clock + "method").c_str(),
              run.meta(clock + "bracket_ns").c_str(), clamped.empty() ? "0" : clamped.c_str(),
              queue.size());
}

TEST(OpenClTrace, DeviceMemoryCounterFollowsAllocations) {
  TS_TRACE_REQUIRE_OPENCL();
  ocl::OpenClBackend& backend = *traced_opencl_backend();
  const std::int64_t before = backend.device_memory_bytes();
  EXPECT_GT(before, 0);  // CLBlast's warm-up scratch, at least
  TraceRun run;
  {
    const Tensor t = backend.alloc(Shape{1000}, DType::F32);
    EXPECT_EQ(backend.device_memory_bytes(), before + 4000);
    backend.fill(t, 1.0f);
    backend.finish();
  }
  EXPECT_EQ(backend.device_memory_bytes(), before);
  run.read();
  const ts::store::Track* track = run.track_named("device memory " + backend.device_name());
  ASSERT_NE(track, nullptr);
  EXPECT_EQ(track->kind, ts::trace::TrackKind::counter);
  // The allocation precedes every event: ask for all of time.
  const auto samples = run.reader().counter(track->id, 0, std::numeric_limits<std::int64_t>::max());
  ASSERT_GE(samples.size(), 2u);
  EXPECT_EQ(samples.front().value, static_cast<double>(before + 4000));  // the allocation
  EXPECT_EQ(samples.back().value, static_cast<double>(before));          // its release
}

TEST(OpenClTrace, ASessionWithoutDeviceEventsRecordsTheHostSideOnly) {
  TS_TRACE_REQUIRE_OPENCL();
  ocl::OpenClBackend& backend = *traced_opencl_backend();
  const std::vector<float> ha = pattern(kM * kK, 1), hb = pattern(kK * kN, 2);
  std::vector<float> hc;
  ts::trace::SessionOptions options;
  options.device_events = false;
  TraceRun run(options);
  EXPECT_TRUE(ts::trace::recording());
  EXPECT_FALSE(ts::trace::device_events());
  run_gemm_steps(backend, kSteps, kM, kK, kN, ha, hb, hc);
  EXPECT_EQ(backend.pending_trace_records(), 0u) << "commands kept for their device times";
  run.read();
  EXPECT_EQ(run.meta("capture.device_events"), "off");
  // The host side as in a session with device events: launches, staging copies, waits ...
  for (const auto& [launch, per_step] :
       {std::pair{"enqueue upload", 2}, std::pair{"enqueue library call", 1},  // the GEMM
        std::pair{"enqueue kernel", 1}})                                       // relu
    EXPECT_EQ(run.of(Category::launch, launch).size(), static_cast<std::size_t>(per_step * kSteps))
        << launch;
  EXPECT_EQ(run.of(Category::h2d, "stage upload").size(), static_cast<std::size_t>(2 * kSteps));
  EXPECT_EQ(run.of(Category::sync, "wait for download").size(), static_cast<std::size_t>(kSteps));
  // ... and nothing on the device's queues.
  for (const TraceEvent& e : run.events())
    EXPECT_NE(e.kind, ts::trace::TrackKind::device_queue) << e.name;
  // The numbers are still right.
  for (std::int64_t j = 0; j < kN; j += 5) {
    double sum = 0;
    for (std::int64_t k = 0; k < kK; ++k) sum += double{ha[k]} * hb[k * kN + j];
    EXPECT_NEAR(hc[j], std::max(sum, 0.0), 1e-4) << j;
  }
  // The next session with device events records them again.
  TraceRun again;
  EXPECT_TRUE(ts::trace::device_events());
  const Tensor t = backend.alloc(Shape{8}, DType::F32);
  backend.relu(t, t);
  backend.finish();
  again.read();
  EXPECT_EQ(again.meta("capture.device_events"), "");
  EXPECT_EQ(again.of(Category::kernel, "relu").size(), 1u);
}

TEST(OpenClTrace, DeviceEventsOnOneStepInFourAndTheMeasuredEventCost) {
  TS_TRACE_REQUIRE_OPENCL();
  ocl::OpenClBackend& backend = *traced_opencl_backend();
  const std::string device = backend.device_name();
  const std::vector<float> ha = pattern(kM * kK, 1), hb = pattern(kK * kN, 2);
  std::vector<float> hc;
  {
    // A command outside any session: the session below is noticed afresh (calibration, cost).
    const Tensor t = backend.alloc(Shape{8}, DType::F32);
    backend.fill(t, 1.0f);
    backend.finish();
  }
  constexpr int kSampledSteps = 12;
  ts::trace::SessionOptions options;
  options.device_event_every = 4;
  TraceRun run(options);
  run_gemm_steps(backend, kSampledSteps, kM, kK, kN, ha, hb, hc);
  EXPECT_EQ(backend.pending_trace_records(), 0u) << "commands kept past the last wait";
  run.read();

  const ts::store::Track* compute = run.track_named(device + " compute");
  ASSERT_NE(compute, nullptr);
  std::map<std::int64_t, int> per_step;
  std::vector<TraceEvent> device_events;
  for (const TraceEvent& e : run.on_track(compute->id)) {
    if (e.step() == ts::store::kNull) continue;  // outside the steps
    ++per_step[e.step()];
    device_events.push_back(e);
  }
  EXPECT_EQ(per_step, (std::map<std::int64_t, int>{{0, 5}, {4, 5}, {8, 5}}));
  expect_correlated_with_launches(run, device_events);
  // Every step keeps its host side: 2 uploads, the GEMM and relu launched, the download waited.
  EXPECT_EQ(run.of(Category::launch, "enqueue upload").size(), 2u * kSampledSteps);
  EXPECT_EQ(run.of(Category::launch, "enqueue kernel").size(), 1u * kSampledSteps);
  EXPECT_EQ(run.of(Category::sync, "wait for download").size(), 1u * kSampledSteps);
  // An unsampled step's launch zones carry no correlation id.
  for (const TraceEvent& e : run.of(Category::launch, "enqueue kernel"))
    EXPECT_EQ(e.correlation != ts::store::kNull, e.step() % 4 == 0) << e.step();

  EXPECT_EQ(run.meta("capture.device_event_every"), "4");
  const std::string cost = run.meta("capture.device_event_cost_ns");
  ASSERT_FALSE(cost.empty());
  EXPECT_GE(std::stoll(cost), 0);
  EXPECT_EQ(run.of(Category::sync, "measure device event cost").size(), 1u);
  std::printf("device event cost on %s: %s ns per command\n", device.c_str(), cost.c_str());

  // The numbers are still right.
  for (std::int64_t j = 0; j < kN; j += 5) {
    double sum = 0;
    for (std::int64_t k = 0; k < kK; ++k) sum += double{ha[k]} * hb[k * kN + j];
    EXPECT_NEAR(hc[j], std::max(sum, 0.0), 1e-4) << j;
  }
}

TEST(OpenClTrace, UntracedCommandsLeaveNothingPending) {
  TS_TRACE_REQUIRE_OPENCL();
  ocl::OpenClBackend& backend = *traced_opencl_backend();
  const Tensor t = backend.alloc(Shape{256}, DType::F32);
  {
    TraceRun run;
    backend.fill(t, 2.0f);  // recorded, and maybe still pending when the session stops
    run.read();
  }
  backend.relu(t, t);  // no session: released at once, nothing read from the device
  EXPECT_EQ(backend.pending_trace_records(), 0u);
  const std::vector<float> v = download_f32(backend, t);
  EXPECT_EQ(v[0], 2.0f);
  EXPECT_EQ(backend.pending_trace_records(), 0u);
}

}  // namespace
}  // namespace ts::test
