// CPU backend element-wise ops against plain loops, for F32 and F16 storage on views:
// bias_add/bias_grad, relu and its backward, dropout, sum, scale_and_check_finite.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/engine/backend/cpu/cpu_test_util.hpp"

namespace ts {
namespace {

using test::cpu;
using test::make;
using test::read;

class Elementwise : public ::testing::TestWithParam<DType> {};

TEST_P(Elementwise, BiasAdd) {
  const DType dt = GetParam();
  const std::int64_t rows = 7 * 13, cols = 5;
  const Tensor y = make(cpu(), Shape{7, 13, cols}, dt, test::random_values(rows * cols, 1));
  const Tensor bias = make(cpu(), Shape{cols}, DType::F32, test::random_values(cols, 2));
  const auto y0 = read(cpu(), y), b0 = read(cpu(), bias);
  cpu().bias_add(y, bias);
  std::vector<double> want(y0.size());
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) want[r * cols + c] = double{y0[r * cols + c]} + b0[c];
  test::expect_near_all(read(cpu(), y), want, dt);
  EXPECT_TRUE(test::guards_intact(cpu(), y));
}

TEST_P(Elementwise, BiasAddWideRows) {  // rows wider than one f32 block
  const DType dt = GetParam();
  const std::int64_t rows = 3, cols = 1500;
  const Tensor y = make(cpu(), Shape{rows, cols}, dt, test::random_values(rows * cols, 3));
  const Tensor bias = make(cpu(), Shape{cols}, DType::F32, test::random_values(cols, 4));
  const auto y0 = read(cpu(), y), b0 = read(cpu(), bias);
  cpu().bias_add(y, bias);
  std::vector<double> want(y0.size());
  for (std::int64_t i = 0; i < rows * cols; ++i) want[i] = double{y0[i]} + b0[i % cols];
  test::expect_near_all(read(cpu(), y), want, dt);
}

TEST_P(Elementwise, BiasGradOverwritesOrAccumulates) {
  const DType dt = GetParam();
  const std::int64_t rows = 7 * 13, cols = 5;
  const Tensor dy = make(cpu(), Shape{7, 13, cols}, dt, test::random_values(rows * cols, 5));
  const auto d0 = read(cpu(), dy);
  std::vector<double> sums(cols, 0.0);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) sums[c] += d0[r * cols + c];
  const Tensor g = make(cpu(), Shape{cols}, DType::F32,
                        std::vector<float>(cols, std::numeric_limits<float>::quiet_NaN()));
  cpu().bias_grad(dy, g, false);  // NaN in g must be ignored
  test::expect_near_all(read(cpu(), g), sums, DType::F32, 1e-5);
  cpu().bias_grad(dy, g, true);
  std::vector<double> twice(sums);
  for (auto& s : twice) s *= 2;
  test::expect_near_all(read(cpu(), g), twice, DType::F32, 1e-5);
  EXPECT_TRUE(test::guards_intact(cpu(), g));
}

TEST_P(Elementwise, ReluAndBackward) {
  const DType dt = GetParam();
  const std::int64_t n = 7 * 13 * 5;
  const Tensor x = make(cpu(), Shape{7, 13, 5}, dt, test::random_values(n, 6));
  const Tensor y = make(cpu(), Shape{7, 13, 5}, dt);
  cpu().relu(x, y);
  const auto x0 = read(cpu(), x), y0 = read(cpu(), y);
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(y0[i], x0[i] > 0 ? x0[i] : 0.0f);
  EXPECT_TRUE(test::guards_intact(cpu(), y));

  const Tensor dy = make(cpu(), Shape{n}, dt, test::random_values(n, 7));
  const Tensor dx = make(cpu(), Shape{n}, dt);
  const auto dy0 = read(cpu(), dy);
  cpu().relu_backward(y, dy, dx);
  const auto dx0 = read(cpu(), dx);
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(dx0[i], y0[i] > 0 ? dy0[i] : 0.0f);
  EXPECT_TRUE(test::guards_intact(cpu(), dx));

  cpu().relu_backward(y, dy, dy);  // dx aliasing dy
  EXPECT_EQ(read(cpu(), dy), dx0);
  cpu().relu(x, x);  // in place
  EXPECT_EQ(read(cpu(), x), y0);
}

TEST_P(Elementwise, ReluLargeSplitOverThreads) {
  const DType dt = GetParam();
  const std::int64_t n = 300001;
  const Tensor x = make(cpu(), Shape{n}, dt, test::random_values(n, 8));
  const auto x0 = read(cpu(), x);
  cpu().relu(x, x);
  const auto y0 = read(cpu(), x);
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(y0[i], x0[i] > 0 ? x0[i] : 0.0f) << i;
  EXPECT_TRUE(test::guards_intact(cpu(), x));
}

TEST_P(Elementwise, DropoutFollowsHashRule) {
  const DType dt = GetParam();
  const std::int64_t n = 7 * 13 * 5;
  const float rate = 0.3f;
  const std::uint32_t seed = 1234;
  const Tensor x = make(cpu(), Shape{7, 13, 5}, dt, test::random_values(n, 9));
  const Tensor y = make(cpu(), Shape{7, 13, 5}, dt);
  const Tensor mask = make(cpu(), Shape{n}, DType::F32);
  cpu().dropout(x, rate, seed, mask, y);
  const auto x0 = read(cpu(), x), y0 = read(cpu(), y), m0 = read(cpu(), mask);
  std::vector<double> want(n);
  for (std::int64_t i = 0; i < n; ++i) {
    const bool keep = hash_uniform(seed, static_cast<std::uint32_t>(i)) >= rate;
    ASSERT_EQ(m0[i], keep ? 1.0f / (1.0f - rate) : 0.0f) << i;
    want[i] = double{x0[i]} * m0[i];
  }
  test::expect_near_all(y0, want, dt, 1e-6);
  EXPECT_TRUE(test::guards_intact(cpu(), y));
  EXPECT_TRUE(test::guards_intact(cpu(), mask));

  const Tensor dy = make(cpu(), Shape{n}, dt, test::random_values(n, 10));
  const Tensor dx = make(cpu(), Shape{n}, dt);
  const auto dy0 = read(cpu(), dy);
  cpu().dropout_backward(dy, mask, dx);
  for (std::int64_t i = 0; i < n; ++i) want[i] = double{dy0[i]} * m0[i];
  test::expect_near_all(read(cpu(), dx), want, dt, 1e-6);

  cpu().dropout(x, rate, seed, mask, x);  // in place
  EXPECT_EQ(read(cpu(), x), y0);
}

TEST(Dropout, MaskMeanIsAboutOneAndRateZeroKeepsAll) {
  const std::int64_t n = 200000;
  const Tensor x = make(cpu(), Shape{n}, DType::F32, std::vector<float>(n, 1.0f));
  const Tensor y = make(cpu(), Shape{n}, DType::F32);
  const Tensor mask = make(cpu(), Shape{n}, DType::F32);
  cpu().dropout(x, 0.5f, 77, mask, y);
  double mean = 0.0;
  for (float m : read(cpu(), mask)) mean += m;
  EXPECT_NEAR(mean / n, 1.0, 0.01);
  cpu().dropout(x, 0.0f, 77, mask, y);
  for (float m : read(cpu(), mask)) ASSERT_EQ(m, 1.0f);
  // Different seeds give different masks.
  const Tensor mask2 = make(cpu(), Shape{n}, DType::F32);
  cpu().dropout(x, 0.5f, 77, mask, y);
  cpu().dropout(x, 0.5f, 78, mask2, y);
  EXPECT_NE(read(cpu(), mask), read(cpu(), mask2));
}

TEST_P(Elementwise, Sum) {
  const DType dt = GetParam();
  for (std::int64_t n : {1, 7 * 13 * 5, 100003}) {
    const Tensor x = make(cpu(), Shape{n}, dt, test::random_values(n, 11));
    double want = 0.0;
    for (float v : read(cpu(), x)) want += v;
    const Tensor out = make(cpu(), Shape{1}, DType::F32);
    cpu().sum(x, out);
    EXPECT_NEAR(read(cpu(), out)[0], want, 1e-4 * std::max(1.0, std::fabs(want)) + 1e-3) << n;
    EXPECT_TRUE(test::guards_intact(cpu(), out));
  }
}

INSTANTIATE_TEST_SUITE_P(Storage, Elementwise, ::testing::Values(DType::F32, DType::F16),
                         [](const auto& info) { return test::dtype_label(info.param); });

TEST(ScaleAndCheckFinite, ScalesAndFlagsInfAndNaN) {
  for (std::int64_t n : {7 * 13 * 5, 300001}) {
    std::vector<float> v = test::random_values(n, 12);
    const Tensor x = make(cpu(), Shape{n}, DType::F32, v);
    const Tensor flag = make(cpu(), Shape{1}, DType::F32);
    cpu().scale_and_check_finite(x, 0.25f, flag);
    EXPECT_EQ(read(cpu(), flag)[0], 0.0f);
    const auto got = read(cpu(), x);
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], v[i] * 0.25f);
    EXPECT_TRUE(test::guards_intact(cpu(), x));

    for (float bad :
         {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
          std::numeric_limits<float>::quiet_NaN()}) {
      for (std::int64_t at : {std::int64_t{0}, n / 2 + 1, n - 1}) {
        std::vector<float> w = v;
        w[at] = bad;
        const Tensor y = make(cpu(), Shape{n}, DType::F32, w);
        cpu().scale_and_check_finite(y, 0.5f, flag);
        ASSERT_EQ(read(cpu(), flag)[0], 1.0f) << bad << " at " << at;
      }
    }
    // Finite values that overflow when scaled are caught too.
    const Tensor big = make(cpu(), Shape{2}, DType::F32, {3e38f, 1.0f});
    cpu().scale_and_check_finite(big, 10.0f, flag);
    EXPECT_EQ(read(cpu(), flag)[0], 1.0f);
  }
}

}  // namespace
}  // namespace ts
