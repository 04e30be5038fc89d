// The device clock alignment and the CommandQueue choke point on a queue of the test's own:
// the fitted offset against a known truth on PoCL, library calls covering every command they
// enqueue, and the bounded list of commands awaiting harvest.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <thread>

#include "engine/backend/opencl/cl_buffer.hpp"
#include "engine/backend/opencl/cl_clock.hpp"
#include "engine/backend/opencl/cl_context.hpp"
#include "engine/backend/opencl/cl_device.hpp"
#include "engine/backend/opencl/cl_enqueue.hpp"
#include "tests/engine/backend/trace/trace_test_util.hpp"

namespace ts::test {
namespace {

using ts::trace::Category;

std::int64_t clock_ns(clockid_t id) {
  timespec t{};
  clock_gettime(id, &t);
  return std::int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

std::int64_t profiling(cl_event e, cl_profiling_info what) {
  cl_ulong v = 0;
  EXPECT_EQ(clGetEventProfilingInfo(e, what, sizeof(v), &v, nullptr), CL_SUCCESS);
  return static_cast<std::int64_t>(v);
}

// A context with its queues on device 0, the device's clock and a traced compute queue.
struct OwnQueue {
  std::unique_ptr<ocl::ClContext> ctx;
  std::unique_ptr<ocl::DeviceClock> clock;
  std::unique_ptr<ocl::CommandQueue> queue;
};

std::unique_ptr<OwnQueue> own_queue(const std::string& name) {
  const auto handles = ocl::enumerate_devices();
  if (handles.empty()) return nullptr;
  auto q = std::make_unique<OwnQueue>();
  q->ctx = std::make_unique<ocl::ClContext>(handles[0], ocl::describe_device(0, handles[0]));
  q->clock = std::make_unique<ocl::DeviceClock>(q->ctx->device(), q->ctx->queue(), name);
  q->queue =
      std::make_unique<ocl::CommandQueue>(q->ctx->queue(), q->clock.get(), name + " compute");
  return q;
}

#define TS_OWN_QUEUE(var, name)     \
  const auto var = own_queue(name); \
  if (!var) GTEST_SKIP() << "no OpenCL device: nothing to test here"

// PoCL's device timestamps are CLOCK_MONOTONIC_RAW, and now_ns() outside a session is
// CLOCK_MONOTONIC: the true offset is measurable, and the fit must be within its own stated
// uncertainty of it.
TEST(OpenClClock, MarkerFitMatchesTheKnownOffsetOnPocl) {
  TS_OWN_QUEUE(q, "clock test device");
  ASSERT_FALSE(ts::trace::recording());
  cl_event marker = nullptr;
  const std::int64_t raw0 = clock_ns(CLOCK_MONOTONIC_RAW);
  ASSERT_EQ(clEnqueueMarkerWithWaitList(q->ctx->queue(), 0, nullptr, &marker), CL_SUCCESS);
  ASSERT_EQ(clWaitForEvents(1, &marker), CL_SUCCESS);
  const std::int64_t raw1 = clock_ns(CLOCK_MONOTONIC_RAW);
  const std::int64_t end = profiling(marker, CL_PROFILING_COMMAND_END);
  clReleaseEvent(marker);
  if (end < raw0 || end > raw1)
    GTEST_SKIP() << "this device's clock is not CLOCK_MONOTONIC_RAW (not PoCL's CPU device)";

  q->clock->start_session();
  const std::int64_t r0 = clock_ns(CLOCK_MONOTONIC_RAW);
  const std::int64_t mono = clock_ns(CLOCK_MONOTONIC);
  const std::int64_t r1 = clock_ns(CLOCK_MONOTONIC_RAW);
  const std::int64_t truth = mono - (r0 + r1) / 2;
  const ts::trace::ClockFit fit = q->clock->fit();
  EXPECT_NE(q->clock->method(), ocl::DeviceClock::Method::none);
  EXPECT_EQ(fit.pairs, 1);
  ASSERT_GT(q->clock->bracket_ns(), 0);
  // The pair is good to half its bracket; the truth to half of (r1 - r0); 1 us more covers
  // CLOCK_MONOTONIC's NTP slew (< 500 ppm) over the milliseconds since the calibration.
  const double tolerance = q->clock->bracket_ns() / 2.0 + (r1 - r0) / 2.0 + 1000;
  EXPECT_NEAR(static_cast<double>(fit.offset_ns()), static_cast<double>(truth), tolerance);
  std::printf("PoCL clock: method %s, bracket %lld ns, offset error %lld ns\n",
              ocl::DeviceClock::method_name(q->clock->method()),
              static_cast<long long>(q->clock->bracket_ns()),
              static_cast<long long>(fit.offset_ns() - truth));
}

// Long runs: the clock is re-measured at sync points, first 250 ms after the calibration, and
// each new pair refits the line; a queue with work in flight is never made to wait for it.
TEST(OpenClClock, RefreshAddsPairsOnlyWhenDueAndIdle) {
  TS_OWN_QUEUE(q, "refresh device");
  q->clock->start_session();
  ASSERT_EQ(q->clock->fit().pairs, 1);
  q->clock->refresh(true);  // not due yet
  EXPECT_EQ(q->clock->fit().pairs, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  if (q->clock->method() != ocl::DeviceClock::Method::timer) {
    q->clock->refresh(false);  // due, but a marker would wait behind queued work
    EXPECT_EQ(q->clock->fit().pairs, 1);
  }
  q->clock->refresh(true);
  const ts::trace::ClockFit fit = q->clock->fit();
  // A sample far noisier than the session's best is skipped (a loaded machine): then no pair.
  EXPECT_LE(fit.pairs, 2);
  if (fit.pairs == 2) {
    EXPECT_LT(std::abs(fit.drift_ppm()), 1000.0);  // two pairs 300 ms apart: a sane slope
    EXPECT_LE(fit.max_residual_ns, 1.0);           // a line through two points fits them
  }
  q->clock->refresh(true);  // the next one is 500 ms away
  EXPECT_EQ(q->clock->fit().pairs, fit.pairs);
}

// CLBlast returns the event of its last kernel only: the marker enqueued before the call
// supplies the start, so the stored interval covers every command of the routine.
TEST(OpenClClock, LibraryCallIntervalCoversAllItsCommands) {
  TS_OWN_QUEUE(q, "library call device");
  constexpr std::size_t kBytes = std::size_t{16} << 20;  // copies of milliseconds on PoCL
  ocl::ClBuffer x(q->ctx->context(), kBytes), y(q->ctx->context(), kBytes);
  TraceRun run;
  q->queue->copy("warm", x.mem(), 0, y.mem(), 0, 4);  // starts the session's calibration
  cl_event first = nullptr, last = nullptr;
  q->queue->library_call({ocl::CommandCategory::kernel, "two_copies", 0, 0}, [&](cl_event* out) {
    ocl::check_cl(
        clEnqueueCopyBuffer(q->queue->handle(), x.mem(), y.mem(), 0, 0, kBytes, 0, nullptr, &first),
        "first copy");
    ocl::check_cl(
        clEnqueueCopyBuffer(q->queue->handle(), y.mem(), x.mem(), 0, 0, kBytes, 0, nullptr, out),
        "second copy");
    last = *out;
    clRetainEvent(last);  // the queue takes the caller's reference
  });
  q->queue->finish();
  const ts::trace::ClockFit fit = q->clock->fit();
  const double u = q->clock->bracket_ns() / 2.0 + 1000;
  run.read();
  const std::int64_t first_start = fit.to_host(profiling(first, CL_PROFILING_COMMAND_START));
  const std::int64_t last_start = fit.to_host(profiling(last, CL_PROFILING_COMMAND_START));
  const std::int64_t last_end = fit.to_host(profiling(last, CL_PROFILING_COMMAND_END));
  clReleaseEvent(first);
  clReleaseEvent(last);

  const auto calls = run.of(Category::kernel, "two_copies");
  ASSERT_EQ(calls.size(), 1u);
  const TraceEvent& call = calls[0];
  EXPECT_LE(call.start(), first_start + u) << "the interval misses the first command";
  EXPECT_GE(call.end(), last_end - u);
  EXPECT_GT(first_start + u, 0);
  EXPECT_LT(call.start(), last_start) << "the interval is only the last command's";
  expect_correlated_with_launches(run, calls);
  EXPECT_EQ(run.of(Category::launch, "enqueue library call").size(), 1u);
}

// Host far ahead of the device (the queue held by a user event): past kMaxPending commands
// the oldest is waited for, and every command still gets its event.
TEST(OpenClClock, PendingRecordsAreBounded) {
  TS_OWN_QUEUE(q, "backlog device");
  ocl::ClBuffer x(q->ctx->context(), 64), y(q->ctx->context(), 64);
  TraceRun run;
  q->queue->copy("tiny", x.mem(), 0, y.mem(), 0, 4);  // calibrates (clFinish) before the gate
  cl_int err = CL_SUCCESS;
  cl_event gate = clCreateUserEvent(q->ctx->context(), &err);
  ASSERT_EQ(err, CL_SUCCESS);
  q->queue->wait_on_device(gate);
  // Opens the gate later: the host must have filled the list by then (1024 enqueues of ~10 us).
  std::thread opener([gate] {
    std::this_thread::sleep_for(std::chrono::seconds(2));
    clSetUserEventStatus(gate, CL_COMPLETE);
  });
  constexpr std::size_t kCommands = ocl::QueueTrace::kMaxPending + 200;
  std::size_t most = 0;
  for (std::size_t i = 0; i < kCommands; ++i) {
    q->queue->copy("tiny", x.mem(), 0, y.mem(), 4 * (i % 16), 4);
    most = std::max(most, q->queue->pending_records());
  }
  opener.join();
  q->queue->finish();
  clReleaseEvent(gate);
  EXPECT_EQ(q->queue->pending_records(), 0u);
  run.read();
  EXPECT_EQ(most, ocl::QueueTrace::kMaxPending);
  EXPECT_EQ(run.of(Category::kernel, "tiny").size(), kCommands + 1);
  EXPECT_GE(run.of(Category::sync, "wait for trace backlog").size(), 1u);
  expect_disjoint(run.on_track(q->queue->track()), "backlog queue");
  expect_device_inside_host_span(run);
}

}  // namespace
}  // namespace ts::test
