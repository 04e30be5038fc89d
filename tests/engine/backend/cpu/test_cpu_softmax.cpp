// CPU backend softmax + cross-entropy, its backward, and standalone softmax, against plain loops.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/engine/backend/cpu/cpu_test_util.hpp"

namespace ts {
namespace {

using test::cpu;
using test::make;
using test::read;

// Softmax of one row in double.
std::vector<double> softmax_ref(const float* x, std::int64_t classes) {
  double max = x[0];
  for (std::int64_t c = 1; c < classes; ++c) max = std::max(max, double{x[c]});
  std::vector<double> p(classes);
  double s = 0.0;
  for (std::int64_t c = 0; c < classes; ++c) s += p[c] = std::exp(x[c] - max);
  for (auto& v : p) v /= s;
  return p;
}

class Softmax : public ::testing::TestWithParam<DType> {};

TEST_P(Softmax, XentLossProbsAndCorrect) {
  const DType dt = GetParam();
  for (const std::int64_t classes : {std::int64_t{13}, std::int64_t{1100}}) {
    const std::int64_t n = 7;
    std::vector<float> logits = test::random_values(n * classes, 20, -4.0f, 4.0f);
    std::vector<std::int32_t> labels(n);
    for (std::int64_t i = 0; i < n; ++i) labels[i] = static_cast<std::int32_t>((i * 5) % classes);
    // Row 0: make the label the clear maximum so at least one row is correct.
    logits[labels[0]] = 9.0f;
    const Tensor x = make(cpu(), Shape{n, classes}, dt, logits);
    const Tensor lab = test::make_i32(cpu(), Shape{n}, labels);
    const Tensor probs = make(cpu(), Shape{n, classes}, DType::F32);
    const Tensor loss = make(cpu(), Shape{n}, DType::F32);
    const Tensor correct = make(cpu(), Shape{n}, DType::F32);
    cpu().softmax_xent(x, lab, probs, loss, correct);
    const auto x0 = read(cpu(), x), p = read(cpu(), probs), l = read(cpu(), loss),
               ok = read(cpu(), correct);
    for (std::int64_t i = 0; i < n; ++i) {
      const auto want = softmax_ref(&x0[i * classes], classes);
      double row_sum = 0.0;
      std::int64_t arg = 0;
      for (std::int64_t c = 0; c < classes; ++c) {
        ASSERT_NEAR(p[i * classes + c], want[c], 1e-6 + 1e-5 * want[c]);
        row_sum += p[i * classes + c];
        if (x0[i * classes + c] > x0[i * classes + arg]) arg = c;
      }
      EXPECT_NEAR(row_sum, 1.0, 1e-5);
      EXPECT_NEAR(l[i], -std::log(std::max(want[labels[i]], 1e-12)), 1e-5);
      EXPECT_EQ(ok[i], arg == labels[i] ? 1.0f : 0.0f) << "row " << i;
    }
    EXPECT_EQ(ok[0], 1.0f);
    for (const Tensor& t : {probs, loss, correct}) EXPECT_TRUE(test::guards_intact(cpu(), t));
  }
}

TEST_P(Softmax, XentBackward) {
  const DType dt = GetParam();
  const std::int64_t n = 7, classes = 13;
  const Tensor x = make(cpu(), Shape{n, classes}, dt, test::random_values(n * classes, 21));
  std::vector<std::int32_t> labels{0, 12, 5, 5, 3, 7, 11};
  const Tensor lab = test::make_i32(cpu(), Shape{n}, labels);
  const Tensor probs = make(cpu(), Shape{n, classes}, DType::F32);
  const Tensor loss = make(cpu(), Shape{n}, DType::F32);
  const Tensor correct = make(cpu(), Shape{n}, DType::F32);
  cpu().softmax_xent(x, lab, probs, loss, correct);
  const Tensor dlogits = make(cpu(), Shape{n, classes}, dt);
  const float scale = 1.0f / 7.0f;
  cpu().softmax_xent_backward(probs, lab, scale, dlogits);
  const auto p = read(cpu(), probs);
  std::vector<double> want(n * classes);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t c = 0; c < classes; ++c)
      want[i * classes + c] = scale * (double{p[i * classes + c]} - (c == labels[i] ? 1.0 : 0.0));
  test::expect_near_all(read(cpu(), dlogits), want, dt, 1e-6);
  EXPECT_TRUE(test::guards_intact(cpu(), dlogits));
  // The gradient of each row sums to 0.
  const auto g = read(cpu(), dlogits);
  for (std::int64_t i = 0; i < n; ++i) {
    double s = 0.0;
    for (std::int64_t c = 0; c < classes; ++c) s += g[i * classes + c];
    EXPECT_NEAR(s, 0.0, dt == DType::F16 ? 2e-3 : 1e-6);
  }
}

TEST_P(Softmax, Standalone) {
  const DType dt = GetParam();
  const std::int64_t n = 7, classes = 13;
  std::vector<float> v = test::random_values(n * classes, 22, -30.0f, 30.0f);
  const Tensor x = make(cpu(), Shape{n, classes}, dt, v);
  const Tensor y = make(cpu(), Shape{n, classes}, DType::F32);
  cpu().softmax(x, y);
  const auto x0 = read(cpu(), x), y0 = read(cpu(), y);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto want = softmax_ref(&x0[i * classes], classes);
    for (std::int64_t c = 0; c < classes; ++c)
      ASSERT_NEAR(y0[i * classes + c], want[c], 1e-6 + 1e-5 * want[c]);
  }
  EXPECT_TRUE(test::guards_intact(cpu(), y));
}

INSTANTIATE_TEST_SUITE_P(Storage, Softmax, ::testing::Values(DType::F32, DType::F16),
                         [](const auto& info) { return test::dtype_label(info.param); });

TEST(SoftmaxXent, TiesPickTheFirstMaximumAndLossIsClamped) {
  // Row 0: tie between classes 1 and 2, label 2 -> not correct. Row 1: label 1 -> correct.
  // Row 2: probability of the label underflows -> loss = -log(1e-12).
  const Tensor x = make(cpu(), Shape{3, 3}, DType::F32, {0, 5, 5, 0, 5, 5, 0, 200, 0});
  const Tensor lab = test::make_i32(cpu(), Shape{3}, {2, 1, 0});
  const Tensor probs = make(cpu(), Shape{3, 3}, DType::F32);
  const Tensor loss = make(cpu(), Shape{3}, DType::F32);
  const Tensor correct = make(cpu(), Shape{3}, DType::F32);
  cpu().softmax_xent(x, lab, probs, loss, correct);
  EXPECT_EQ(read(cpu(), correct), (std::vector<float>{0, 1, 0}));
  const auto l = read(cpu(), loss);
  EXPECT_NEAR(l[0], std::log(2.0 + std::exp(-5.0)), 1e-5);
  EXPECT_NEAR(l[2], -std::log(1e-12), 1e-4);
}

}  // namespace
}  // namespace ts
