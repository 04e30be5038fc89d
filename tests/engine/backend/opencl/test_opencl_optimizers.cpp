// SGD (with and without momentum) and Adam on the OpenCL backend, several steps, against the
// CPU backend within 1e-6 relative.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tests/engine/backend/opencl/opencl_test_util.hpp"

namespace ts::test {
namespace {

class OpenClOptimizers : public ::testing::Test {
 protected:
  void SetUp() override { TS_REQUIRE_OPENCL(); }
};

constexpr std::int64_t kParams = 10007;

// Expects agreement within 1e-6 relative, measured against the tensor's largest magnitude so
// that elements near zero (where a product-minus-product cancels) are judged on the same scale.
// With identical rounding (explicit fma on both sides) the results are in fact bit-identical.
void expect_within_1e6(const Mirrored& t, const std::string& what) {
  double scale = 0.0;
  for (float v : read(cpu_backend(), t.cpu)) scale = std::max(scale, std::fabs(double{v}));
  expect_close(t, 1e-6, 1e-6 * scale, what);
}

TEST_F(OpenClOptimizers, SgdSeveralSteps) {
  for (float momentum : {0.0f, 0.9f}) {
    SCOPED_TRACE(momentum);
    Mirrored param = mirror(Shape{kParams}, DType::F32, random_values(kParams, 40));
    // Momentum 0 must not read the velocity: start it at NaN.
    Mirrored velocity = mirror(Shape{kParams}, DType::F32,
                               momentum == 0.0f ? std::vector<float>(kParams, NAN)
                                                : random_values(kParams, 41, -0.01f, 0.01f),
                               2);
    for (int step = 0; step < 5; ++step) {
      Mirrored grad = mirror(Shape{kParams}, DType::F32, random_values(kParams, 42 + step), 1);
      cpu_backend().sgd_update(param.cpu, grad.cpu, velocity.cpu, 0.01f, momentum);
      opencl_backend()->sgd_update(param.ocl, grad.ocl, velocity.ocl, 0.01f, momentum);
    }
    expect_within_1e6(param, "sgd param");
    expect_within_1e6(velocity, "sgd velocity");
  }
}

TEST_F(OpenClOptimizers, AdamSeveralSteps) {
  const AdamConfig config{};
  Mirrored param = mirror(Shape{kParams}, DType::F32, random_values(kParams, 50));
  Mirrored m = mirror(Shape{kParams}, DType::F32, std::vector<float>(kParams, 0.0f), 4);
  Mirrored v = mirror(Shape{kParams}, DType::F32, std::vector<float>(kParams, 0.0f), 6);
  for (std::int64_t step = 1; step <= 6; ++step) {
    Mirrored grad = mirror(Shape{kParams}, DType::F32, random_values(kParams, 51 + step), 1);
    cpu_backend().adam_update(param.cpu, grad.cpu, m.cpu, v.cpu, config, step);
    opencl_backend()->adam_update(param.ocl, grad.ocl, m.ocl, v.ocl, config, step);
  }
  expect_within_1e6(param, "adam param");
  expect_within_1e6(m, "adam m");
  expect_within_1e6(v, "adam v");
}

}  // namespace
}  // namespace ts::test
