// The CPU backend's hot path does not touch the heap: after a warm-up call with the same sizes,
// a training step's ops (GEMMs split over threads included) and conv ops allocate nothing.
// Counted by interposing malloc, so this is its own test binary, and skipped under ASan/TSan,
// whose runtimes own malloc.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>

#include "tests/engine/backend/cpu/cpu_test_util.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TS_COUNT_MALLOC 0
#else
#define TS_COUNT_MALLOC 1
namespace {
std::atomic<long> g_allocations{0};
}  // namespace
extern "C" void* __libc_malloc(std::size_t);
extern "C" void* __libc_memalign(std::size_t, std::size_t);
extern "C" void* malloc(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(n);
}
extern "C" void* aligned_alloc(std::size_t alignment, std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(alignment, n);
}
#endif

namespace ts {
namespace {

// Allocations made by f() after one warm-up call.
template <class F>
long allocations_of(F f) {
#if TS_COUNT_MALLOC
  f();
  const long before = g_allocations.load();
  for (int i = 0; i < 20; ++i) f();
  return g_allocations.load() - before;
#else
  (void)f;
  return -1;
#endif
}

class NoAlloc : public ::testing::TestWithParam<DType> {};

TEST_P(NoAlloc, MlpStepAndConvOpsAfterWarmUp) {
  if (!TS_COUNT_MALLOC) GTEST_SKIP() << "malloc belongs to the sanitizer runtime";
  Backend& be = test::cpu();
  const DType dt = GetParam();
  const std::int64_t b = 32, in = 784, hid = 128, cls = 10;
  auto make = [&](Shape s, DType d) {
    Tensor t = be.alloc(s, d);
    be.fill(t, 0.01f);
    return t;
  };
  const Tensor x = make(Shape{b, in}, dt), w1 = make(Shape{in, hid}, DType::F32),
               w1c = make(Shape{in, hid}, dt), b1 = make(Shape{hid}, DType::F32),
               w2 = make(Shape{hid, cls}, dt), b2 = make(Shape{cls}, DType::F32),
               h = make(Shape{b, hid}, dt), dh = make(Shape{b, hid}, dt),
               mask = make(Shape{b, hid}, DType::F32), logits = make(Shape{b, cls}, dt),
               dlogits = make(Shape{b, cls}, dt), probs = make(Shape{b, cls}, DType::F32),
               loss = make(Shape{b}, DType::F32), correct = make(Shape{b}, DType::F32),
               gw1 = make(Shape{in, hid}, DType::F32), gb1 = make(Shape{hid}, DType::F32),
               gw2 = make(Shape{hid, cls}, DType::F32), m1 = make(Shape{in, hid}, DType::F32),
               v1 = make(Shape{in, hid}, DType::F32), out = make(Shape{2}, DType::F32);
  const Tensor labels = test::make_i32(be, Shape{b}, std::vector<std::int32_t>(b, 3));
  const Tensor out0 = out.view(0, Shape{1}), out1 = out.view(1, Shape{1});
  std::vector<float> host(static_cast<std::size_t>(b * in), 0.5f);
  std::int64_t step = 1;
  EXPECT_EQ(allocations_of([&] {
              be.copy(w1, w1c);
              be.gemm(false, false, b, hid, in, 1.0f, x, w1c, 0.0f, h);
              be.bias_add(h, b1);
              be.relu(h, h);
              be.dropout(h, 0.25f, 9, mask, h);
              be.gemm(false, false, b, cls, hid, 1.0f, h, w2, 0.0f, logits);
              be.bias_add(logits, b2);
              be.softmax_xent(logits, labels, probs, loss, correct);
              be.softmax_xent_backward(probs, labels, 1.0f / b, dlogits);
              be.gemm(true, false, hid, cls, b, 1.0f, h, dlogits, 0.0f, gw2);
              be.gemm(false, true, b, hid, cls, 1.0f, dlogits, w2, 0.0f, dh);
              be.dropout_backward(dh, mask, dh);
              be.relu_backward(h, dh, dh);
              be.gemm(true, false, in, hid, b, 1.0f, x, dh, 0.0f, gw1);
              be.bias_grad(dh, gb1, false);
              be.scale_and_check_finite(gw1, 0.5f, out0);
              be.adam_update(w1, gw1, m1, v1, {}, step++);
              be.sgd_update(w1, gw1, m1, 0.01f, 0.9f);
              be.sum(loss, out0);
              be.softmax(logits, probs);
              be.download(out1, host.data());
            }),
            0);

  const Conv2DGeometry g{8, 13, 13, 32, 3, 3, 1, 1};
  const Pool2DGeometry pg{8, 13, 13, 64, 2};
  const Tensor img = make(Shape{8, 13, 13, 32}, dt), cols = make(Shape{g.col_rows(), 288}, dt),
               k = make(Shape{288, 64}, dt), y = make(Shape{g.col_rows(), 64}, dt),
               gk = make(Shape{288, 64}, DType::F32), py = make(Shape{8, 6, 6, 64}, dt);
  const Tensor arg = be.alloc(Shape{8, 6, 6, 64}, DType::I32);
  EXPECT_EQ(allocations_of([&] {
              be.im2col(g, img, cols);
              be.gemm(false, false, g.col_rows(), 64, 288, 1.0f, cols, k, 0.0f, y);
              be.maxpool(pg, y, py, arg);
              be.maxpool_backward(pg, py, arg, y);
              be.gemm(true, false, 288, 64, g.col_rows(), 1.0f, cols, y, 0.0f, gk);
              be.gemm(false, true, g.col_rows(), 288, 64, 1.0f, y, k, 0.0f, cols);
              be.col2im(g, cols, img);
            }),
            0);
}

INSTANTIATE_TEST_SUITE_P(Storage, NoAlloc, ::testing::Values(DType::F32, DType::F16),
                         [](const auto& info) { return test::dtype_label(info.param); });

}  // namespace
}  // namespace ts
