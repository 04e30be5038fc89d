// CPU backend SGD (momentum 0 and 0.9) and Adam: hand-computed values for three steps, plus a
// large tensor (split over threads) against a plain loop.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/engine/backend/cpu/cpu_test_util.hpp"

namespace ts {
namespace {

using test::cpu;
using test::make;
using test::read;

const float kGrads[3] = {0.5f, -1.0f, 0.25f};

TEST(Sgd, PlainIgnoresOldVelocity) {
  // momentum 0: param -= lr * grad; the velocity's old contents (NaN here) are not read.
  const Tensor p = make(cpu(), Shape{1}, DType::F32, {1.0f});
  const Tensor vel = make(cpu(), Shape{1}, DType::F32, {std::numeric_limits<float>::quiet_NaN()});
  const float want[3] = {0.95f, 1.05f, 1.025f};  // 1 - .05, + .1, - .025
  for (int s = 0; s < 3; ++s) {
    cpu().sgd_update(p, make(cpu(), Shape{1}, DType::F32, {kGrads[s]}), vel, 0.1f, 0.0f);
    EXPECT_NEAR(read(cpu(), p)[0], want[s], 1e-6) << "step " << s + 1;
    EXPECT_NEAR(read(cpu(), vel)[0], -0.1f * kGrads[s], 1e-7);
  }
  EXPECT_TRUE(test::guards_intact(cpu(), p));
}

TEST(Sgd, MomentumByHand) {
  // v = 0.9 v - 0.1 g; p += v:  v = -0.05, 0.055, 0.0245;  p = 0.95, 1.005, 1.0295.
  const Tensor p = make(cpu(), Shape{1}, DType::F32, {1.0f});
  const Tensor vel = make(cpu(), Shape{1}, DType::F32, {0.0f});
  const float want_p[3] = {0.95f, 1.005f, 1.0295f}, want_v[3] = {-0.05f, 0.055f, 0.0245f};
  for (int s = 0; s < 3; ++s) {
    cpu().sgd_update(p, make(cpu(), Shape{1}, DType::F32, {kGrads[s]}), vel, 0.1f, 0.9f);
    EXPECT_NEAR(read(cpu(), p)[0], want_p[s], 1e-6) << "step " << s + 1;
    EXPECT_NEAR(read(cpu(), vel)[0], want_v[s], 1e-7) << "step " << s + 1;
  }
  EXPECT_TRUE(test::guards_intact(cpu(), vel));
}

TEST(Adam, ThreeStepsByHand) {
  // lr 0.1, b1 0.9, b2 0.999, eps 1e-7, p0 = 1, grads 0.5, -1, 0.25 (values from the formula in
  // backend.hpp evaluated in double):
  //   t=1: m = 0.05,    v = 0.00025,     lr_t = 0.1*sqrt(0.001)/0.1,    p = 0.90000063245
  //   t=2: m = -0.055,  v = 0.00124975,  lr_t = 0.1*sqrt(1-b2^2)/0.19,  p = 0.93661088160
  //   t=3: m = -0.0245, v = 0.00131100,  lr_t = 0.1*sqrt(1-b2^3)/0.271, p = 0.95027991015
  AdamConfig cfg;
  cfg.learning_rate = 0.1f;
  const Tensor p = make(cpu(), Shape{1}, DType::F32, {1.0f});
  const Tensor m = make(cpu(), Shape{1}, DType::F32, {0.0f});
  const Tensor v = make(cpu(), Shape{1}, DType::F32, {0.0f});
  const double want_p[3] = {0.9000006324515321, 0.9366108815953381, 0.9502799101487422};
  const double want_m[3] = {0.05, -0.055, -0.0245};
  const double want_v[3] = {0.00025, 0.00124975, 0.00131100025};
  for (int s = 0; s < 3; ++s) {
    cpu().adam_update(p, make(cpu(), Shape{1}, DType::F32, {kGrads[s]}), m, v, cfg, s + 1);
    EXPECT_NEAR(read(cpu(), p)[0], want_p[s], 2e-6) << "step " << s + 1;
    EXPECT_NEAR(read(cpu(), m)[0], want_m[s], 1e-7) << "step " << s + 1;
    // 1 - 0.999f is 0.00100005 in f32, so v carries a relative error of 5e-5.
    EXPECT_NEAR(read(cpu(), v)[0], want_v[s], 1e-4 * want_v[s]) << "step " << s + 1;
  }
  for (const Tensor& t : {p, m, v}) EXPECT_TRUE(test::guards_intact(cpu(), t));
}

TEST(Optimizers, LargeTensorsMatchPlainLoops) {
  const std::int64_t n = 100003;  // odd, and split over threads
  const auto p0 = test::random_values(n, 50), g0 = test::random_values(n, 51);
  const auto m0 = test::random_values(n, 52, -0.1f, 0.1f),
             v0 = test::random_values(n, 53, 0.0f, 0.01f);
  AdamConfig cfg;
  const Tensor p = make(cpu(), Shape{n}, DType::F32, p0), g = make(cpu(), Shape{n}, DType::F32, g0);
  const Tensor m = make(cpu(), Shape{n}, DType::F32, m0), v = make(cpu(), Shape{n}, DType::F32, v0);
  cpu().adam_update(p, g, m, v, cfg, 7);
  const double lr_t = cfg.learning_rate * std::sqrt(1.0 - std::pow(double{cfg.beta2}, 7)) /
                      (1.0 - std::pow(double{cfg.beta1}, 7));
  const auto p1 = read(cpu(), p), m1 = read(cpu(), m), v1 = read(cpu(), v);
  for (std::int64_t i = 0; i < n; ++i) {
    const double mi = cfg.beta1 * double{m0[i]} + (1.0 - cfg.beta1) * g0[i];
    const double vi = cfg.beta2 * double{v0[i]} + (1.0 - cfg.beta2) * g0[i] * g0[i];
    ASSERT_NEAR(m1[i], mi, 1e-7) << i;
    ASSERT_NEAR(v1[i], vi, 1e-8) << i;
    ASSERT_NEAR(p1[i], p0[i] - lr_t * mi / (std::sqrt(vi) + cfg.epsilon), 1e-6) << i;
  }
  const Tensor vel = make(cpu(), Shape{n}, DType::F32, m0);
  cpu().sgd_update(p, g, vel, 0.01f, 0.9f);
  const auto p2 = read(cpu(), p), vel1 = read(cpu(), vel);
  for (std::int64_t i = 0; i < n; ++i) {
    const double want_v = 0.9 * double{m0[i]} - 0.01 * g0[i];
    ASSERT_NEAR(vel1[i], want_v, 1e-7) << i;
    ASSERT_NEAR(p2[i], p1[i] + want_v, 1e-6) << i;
  }
  for (const Tensor& t : {p, m, v, vel}) EXPECT_TRUE(test::guards_intact(cpu(), t));
}

}  // namespace
}  // namespace ts
