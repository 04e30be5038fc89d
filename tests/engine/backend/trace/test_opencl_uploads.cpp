// Prefetch to device: upload_async copies on the copy queue, wait_upload orders compute after
// them on the device. Values are checked against downloads; the trace shows where they ran.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <vector>

#include "tests/engine/backend/trace/opencl_trace_fixture.hpp"
#include "tests/engine/backend/trace/trace_test_util.hpp"

namespace ts::test {
namespace {

using ts::trace::Category;

// Integers, half of them negative: relu of them is exact.
std::vector<float> batch(std::size_t n, int iteration) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(
        static_cast<int>((i * 7 + static_cast<std::size_t>(iteration) * 13) % 17) - 8);
  return v;
}

TEST(OpenClUploads, ComputeAfterWaitUploadSeesTheNewData) {
  TS_TRACE_REQUIRE_OPENCL();
  ocl::OpenClBackend& backend = *traced_opencl_backend();
  constexpr std::int64_t n = std::int64_t{1} << 22;  // 16 MB: a copy long enough to race with
  const Tensor x = backend.alloc(Shape{n}, DType::F32);
  const Tensor total = backend.alloc(Shape{1}, DType::F32);
  backend.fill(x, 0.0f);
  backend.finish();
  std::vector<float> host(static_cast<std::size_t>(n), 1.0f);
  const UploadTicket ticket = backend.upload_async(x, host.data());
  EXPECT_NE(ticket.id, 0u);
  std::fill(host.begin(), host.end(), 3.0f);  // staged: the copy still sends ones
  backend.wait_upload(ticket);
  backend.sum(x, total);  // reads x on the compute queue, after the copy on the device
  EXPECT_EQ(download_f32(backend, total)[0], static_cast<float>(n));
  const std::vector<float> back = download_f32(backend, x);
  EXPECT_EQ(std::count(back.begin(), back.end(), 1.0f), n);
}

TEST(OpenClUploads, EmptyZeroAndRepeatedTicketsAreNoOps) {
  TS_TRACE_REQUIRE_OPENCL();
  ocl::OpenClBackend& backend = *traced_opencl_backend();
  const Tensor empty = backend.alloc(Shape{0}, DType::F32);
  EXPECT_EQ(backend.upload_async(empty, nullptr).id, 0u);
  backend.wait_upload({});
  const Tensor x = backend.alloc(Shape{4}, DType::F32);
  const float v[4] = {1, -2, 3, -4};
  const UploadTicket t = backend.upload_async(x, v);
  backend.wait_upload(t);
  backend.wait_upload(t);  // already waited for
  backend.relu(x, x);
  EXPECT_EQ(download_f32(backend, x), (std::vector<float>{1, 0, 3, 0}));
}

// The double-buffered prefetch loop a trainer runs: while step i computes on buffer i % 2, the
// batch of step i + 1 is copied into the other buffer on the copy queue.
TEST(OpenClUploads, DoubleBufferedPrefetchGivesTheRightResults) {
  TS_TRACE_REQUIRE_OPENCL();
  ocl::OpenClBackend& backend = *traced_opencl_backend();
  constexpr int kIterations = 50;
  constexpr std::int64_t n = 4096;
  const std::array<Tensor, 2> x = {backend.alloc(Shape{n}, DType::F32),
                                   backend.alloc(Shape{n}, DType::F32)};
  const Tensor y = backend.alloc(Shape{n}, DType::F32);
  std::array<UploadTicket, 2> ticket;
  std::vector<float> out(static_cast<std::size_t>(n));

  TraceRun run;
  for (int it = 0; it < kIterations; ++it) {
    TS_STEP(it);
    const int cur = it % 2, next = 1 - cur;
    if (it == 0) ticket[cur] = backend.upload_async(x[cur], batch(n, 0).data());
    // x[next] was last read in step it - 1, whose download waited for it.
    if (it + 1 < kIterations) ticket[next] = backend.upload_async(x[next], batch(n, it + 1).data());
    backend.wait_upload(ticket[cur]);
    backend.relu(x[cur], y);
    backend.download(y, out.data());
    const std::vector<float> in = batch(n, it);
    int wrong = 0;
    for (std::size_t i = 0; i < out.size(); ++i) wrong += out[i] != std::max(in[i], 0.0f) ? 1 : 0;
    ASSERT_EQ(wrong, 0) << "iteration " << it;
  }
  backend.finish();
  run.read();

  const std::string device = backend.device_name();
  const ts::store::Track* copy = run.track_named(device + " copy");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->kind, ts::trace::TrackKind::device_queue);
  EXPECT_EQ(copy->id, backend.copy_track());
  const std::vector<TraceEvent> copies = run.of(Category::h2d, "upload_async");
  ASSERT_EQ(copies.size(), static_cast<std::size_t>(kIterations));
  for (const TraceEvent& c : copies) {
    EXPECT_EQ(c.event.track, copy->id) << "an async upload ran on " << c.track;
    EXPECT_EQ(c.bytes(), n * 4);
  }
  expect_correlated_with_launches(run, copies);
  const std::vector<TraceEvent> copy_queue = run.on_track(copy->id);
  const std::vector<TraceEvent> compute_queue = run.on_track(backend.compute_track());
  expect_disjoint(copy_queue, "copy queue");
  expect_disjoint(compute_queue, "compute queue");
  expect_device_inside_host_span(run);
  // The device's two queues share one calibration per session.
  EXPECT_LE(run.of(Category::sync, "calibrate device clock").size(), 1u);
  // Both queues share one clock fit, so the device-side order survives conversion: each relu
  // starts after the copy of its batch ended (the i-th copy holds batch i: the queue is in order).
  std::vector<TraceEvent> relus;
  for (const TraceEvent& e : compute_queue)
    if (e.name == "relu") relus.push_back(e);
  ASSERT_EQ(relus.size(), static_cast<std::size_t>(kIterations));
  for (int i = 0; i < kIterations; ++i) {
    EXPECT_EQ(relus[i].step(), i);
    EXPECT_GE(relus[i].start(), copy_queue[i].end()) << "iteration " << i;
  }
}

}  // namespace
}  // namespace ts::test
