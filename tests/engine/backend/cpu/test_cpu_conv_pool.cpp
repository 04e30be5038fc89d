// CPU backend im2col/col2im and max pooling (NHWC) against plain loops, for F32 and F16
// storage: odd geometries, padding, stride, many channels, ties, and hand-checked cases.
#include <gtest/gtest.h>

#include "tests/engine/backend/cpu/cpu_test_util.hpp"

namespace ts {
namespace {

using test::cpu;
using test::make;
using test::read;

std::int64_t input_size(const Conv2DGeometry& g) {
  return g.batch * g.in_h * g.in_w * g.in_c;
}

// Calls f(col_index, x_index or -1 for padding) for every im2col entry.
template <class F>
void for_each_col_entry(const Conv2DGeometry& g, F f) {
  const std::int64_t oh = g.out_h(), ow = g.out_w(), cols = g.col_cols();
  for (std::int64_t b = 0; b < g.batch; ++b)
    for (std::int64_t oy = 0; oy < oh; ++oy)
      for (std::int64_t ox = 0; ox < ow; ++ox)
        for (std::int64_t kh = 0; kh < g.kernel_h; ++kh)
          for (std::int64_t kw = 0; kw < g.kernel_w; ++kw)
            for (std::int64_t c = 0; c < g.in_c; ++c) {
              const std::int64_t iy = oy * g.stride - g.pad + kh;
              const std::int64_t ix = ox * g.stride - g.pad + kw;
              const bool inside = iy >= 0 && iy < g.in_h && ix >= 0 && ix < g.in_w;
              const std::int64_t row = (b * oh + oy) * ow + ox;
              f(row * cols + (kh * g.kernel_w + kw) * g.in_c + c,
                inside ? ((b * g.in_h + iy) * g.in_w + ix) * g.in_c + c : -1);
            }
}

class ConvPool : public ::testing::TestWithParam<DType> {};

// clang-format off
const Conv2DGeometry kConvCases[] = {
    // batch, in_h, in_w, in_c, kernel_h, kernel_w, stride, pad
    {2, 7, 6, 3, 3, 3, 1, 1},
    {1, 5, 5, 1, 2, 3, 2, 0},
    {3, 6, 7, 5, 3, 2, 2, 2},
    {1, 4, 4, 2, 1, 1, 1, 0},
    {2, 7, 7, 3, 1, 2, 3, 1},    // stride > kernel: some pixels are in no window
    {2, 9, 8, 300, 3, 3, 2, 1},  // channels beyond one chunk
    {4, 28, 28, 8, 3, 3, 1, 1},  // large enough to split over threads
};
// clang-format on

TEST_P(ConvPool, Im2colCol2imMatchLoopsAndAreAdjoint) {
  const DType dt = GetParam();
  std::uint64_t seed = 30;
  for (const Conv2DGeometry& g : kConvCases) {
    SCOPED_TRACE(::testing::Message()
                 << "geometry " << g.batch << "x" << g.in_h << "x" << g.in_w << "x" << g.in_c
                 << " k" << g.kernel_h << "x" << g.kernel_w << " s" << g.stride << " p" << g.pad);
    const std::int64_t nx = input_size(g), ncols = g.col_rows() * g.col_cols();
    const Tensor x =
        make(cpu(), Shape{g.batch, g.in_h, g.in_w, g.in_c}, dt, test::random_values(nx, seed++));
    const Tensor cols = make(cpu(), Shape{g.col_rows(), g.col_cols()}, dt,
                             std::vector<float>(ncols, 99.0f));  // must be overwritten
    cpu().im2col(g, x, cols);
    const auto x0 = read(cpu(), x), c0 = read(cpu(), cols);
    std::vector<double> want(ncols);
    for_each_col_entry(g,
                       [&](std::int64_t ci, std::int64_t xi) { want[ci] = xi < 0 ? 0 : x0[xi]; });
    test::expect_near_all(c0, want, dt, 0.0);
    EXPECT_TRUE(test::guards_intact(cpu(), cols));

    const Tensor dcols =
        make(cpu(), Shape{g.col_rows(), g.col_cols()}, dt, test::random_values(ncols, seed++));
    const Tensor dx = make(cpu(), Shape{g.batch, g.in_h, g.in_w, g.in_c}, dt,
                           std::vector<float>(nx, 99.0f));  // must be overwritten
    cpu().col2im(g, dcols, dx);
    const auto dc0 = read(cpu(), dcols), dx0 = read(cpu(), dx);
    std::vector<double> scatter(nx, 0.0);
    for_each_col_entry(g, [&](std::int64_t ci, std::int64_t xi) {
      if (xi >= 0) scatter[xi] += dc0[ci];
    });
    test::expect_near_all(dx0, scatter, dt, 1e-5);
    EXPECT_TRUE(test::guards_intact(cpu(), dx));

    // <im2col(x), dcols> == <x, col2im(dcols)>.
    double lhs = 0.0, rhs = 0.0;
    for (std::int64_t i = 0; i < ncols; ++i) lhs += double{c0[i]} * dc0[i];
    for (std::int64_t i = 0; i < nx; ++i) rhs += double{x0[i]} * scatter[i];
    EXPECT_NEAR(lhs, rhs, 1e-9 * ncols + 1e-6);
    double rhs_backend = 0.0;
    for (std::int64_t i = 0; i < nx; ++i) rhs_backend += double{x0[i]} * dx0[i];
    EXPECT_NEAR(lhs, rhs_backend, (dt == DType::F16 ? 2e-3 : 1e-5) * std::sqrt(double(nx)) + 1e-4);
  }
}

TEST_P(ConvPool, Im2colHandCheckedPaddingAndStride2) {
  const DType dt = GetParam();
  // x = 1..9 as a 3x3 image; 2x2 kernel, stride 2, pad 1 -> 2x2 outputs.
  const Conv2DGeometry g{1, 3, 3, 1, 2, 2, 2, 1};
  ASSERT_EQ(g.out_h(), 2);
  const Tensor x = make(cpu(), Shape{1, 3, 3, 1}, dt, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const Tensor cols = make(cpu(), Shape{4, 4}, dt);
  cpu().im2col(g, x, cols);
  EXPECT_EQ(read(cpu(), cols),
            (std::vector<float>{0, 0, 0, 1, 0, 0, 2, 3, 0, 4, 0, 7, 5, 6, 8, 9}));
  // Stride 1, no padding: each pixel is counted once per window that covers it.
  const Conv2DGeometry g1{1, 3, 3, 1, 2, 2, 1, 0};
  const Tensor ones = make(cpu(), Shape{4, 4}, dt, std::vector<float>(16, 1.0f));
  const Tensor dx = make(cpu(), Shape{1, 3, 3, 1}, dt);
  cpu().col2im(g1, ones, dx);
  EXPECT_EQ(read(cpu(), dx), (std::vector<float>{1, 2, 1, 2, 4, 2, 1, 2, 1}));
}

// clang-format off
const Pool2DGeometry kPoolCases[] = {
    // batch, in_h, in_w, channels, pool
    {2, 7, 6, 5, 2},       // odd height: the last row belongs to no window
    {1, 4, 4, 3, 2},
    {3, 5, 7, 2, 3},
    {2, 6, 6, 300, 3},     // channels beyond one chunk
    {8, 28, 28, 16, 2},    // large enough to split over threads
};
// clang-format on

TEST_P(ConvPool, MaxpoolFirstMaximumWinsAndBackwardRoutes) {
  const DType dt = GetParam();
  std::uint64_t seed = 40;
  for (const Pool2DGeometry& g : kPoolCases) {
    SCOPED_TRACE(::testing::Message() << "pool " << g.batch << "x" << g.in_h << "x" << g.in_w << "x"
                                      << g.channels << " p" << g.pool);
    const std::int64_t nx = g.batch * g.in_h * g.in_w * g.channels;
    const std::int64_t oh = g.out_h(), ow = g.out_w(), ny = g.batch * oh * ow * g.channels;
    // Values from {0, 1, 2}: windows are full of ties.
    std::vector<float> v = test::random_values(nx, seed++, 0.0f, 3.0f);
    for (auto& e : v) e = std::floor(e);
    const Tensor x = make(cpu(), Shape{g.batch, g.in_h, g.in_w, g.channels}, dt, v);
    const Tensor y = make(cpu(), Shape{g.batch, oh, ow, g.channels}, dt);
    const Tensor arg = make(cpu(), Shape{g.batch, oh, ow, g.channels}, DType::I32);
    cpu().maxpool(g, x, y, arg);
    const auto y0 = read(cpu(), y);
    const auto a0 = test::read_i32(cpu(), arg);
    for (std::int64_t b = 0; b < g.batch; ++b)
      for (std::int64_t oy = 0; oy < oh; ++oy)
        for (std::int64_t ox = 0; ox < ow; ++ox)
          for (std::int64_t c = 0; c < g.channels; ++c) {
            std::int64_t best = -1;
            for (std::int64_t i = 0; i < g.pool; ++i)
              for (std::int64_t j = 0; j < g.pool; ++j) {
                const std::int64_t xi =
                    ((b * g.in_h + oy * g.pool + i) * g.in_w + ox * g.pool + j) * g.channels + c;
                if (best < 0 || v[xi] > v[best]) best = xi;
              }
            const std::int64_t yi = ((b * oh + oy) * ow + ox) * g.channels + c;
            ASSERT_EQ(a0[yi], best) << "output " << yi;
            ASSERT_EQ(y0[yi], v[best]);
          }
    EXPECT_TRUE(test::guards_intact(cpu(), y));
    EXPECT_TRUE(test::guards_intact(cpu(), arg));

    const Tensor dy =
        make(cpu(), Shape{g.batch, oh, ow, g.channels}, dt, test::random_values(ny, seed++));
    const Tensor dx = make(cpu(), Shape{g.batch, g.in_h, g.in_w, g.channels}, dt,
                           std::vector<float>(nx, 99.0f));  // must be overwritten everywhere
    cpu().maxpool_backward(g, dy, arg, dx);
    const auto dy0 = read(cpu(), dy);
    std::vector<float> want(nx, 0.0f);
    for (std::int64_t k = 0; k < ny; ++k) want[a0[k]] = dy0[k];
    EXPECT_EQ(read(cpu(), dx), want);
    EXPECT_TRUE(test::guards_intact(cpu(), dx));
  }
}

TEST(Maxpool, HandCheckedTie) {
  // One 2x2 window, one channel: 3 appears at positions 1 and 2; the first (1) wins.
  const Pool2DGeometry g{1, 2, 2, 1, 2};
  const Tensor x = make(cpu(), Shape{1, 2, 2, 1}, DType::F32, {1, 3, 3, -1});
  const Tensor y = make(cpu(), Shape{1, 1, 1, 1}, DType::F32);
  const Tensor arg = make(cpu(), Shape{1, 1, 1, 1}, DType::I32);
  cpu().maxpool(g, x, y, arg);
  EXPECT_EQ(read(cpu(), y)[0], 3.0f);
  EXPECT_EQ(test::read_i32(cpu(), arg)[0], 1);
  const Tensor dx = make(cpu(), Shape{1, 2, 2, 1}, DType::F32);
  cpu().maxpool_backward(g, make(cpu(), Shape{1}, DType::F32, {0.5f}), arg, dx);
  EXPECT_EQ(read(cpu(), dx), (std::vector<float>{0, 0.5f, 0, 0}));
}

INSTANTIATE_TEST_SUITE_P(Storage, ConvPool, ::testing::Values(DType::F32, DType::F16),
                         [](const auto& info) { return test::dtype_label(info.param); });

}  // namespace
}  // namespace ts
