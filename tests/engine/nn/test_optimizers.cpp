// Adam and SGD updates through the Optimizer classes against values worked out by hand.
#include <gtest/gtest.h>

#include "backends.hpp"
#include "engine/nn/optimizer.hpp"

namespace ts {
namespace {

struct Buffers {
  Tensor param, grad;
};

Buffers make(Backend& be, float p) {
  Buffers b{be.alloc(Shape{1}, DType::F32), be.alloc(Shape{1}, DType::F32)};
  be.upload(b.param, &p);
  return b;
}

float step(Backend& be, Optimizer& opt, Buffers& b, float g) {
  be.upload(b.grad, &g);
  opt.apply(b.param, b.grad);
  float p = 0;
  be.download(b.param, &p);
  return p;
}

class Optimizers : public ::testing::TestWithParam<std::string> {};

TEST_P(Optimizers, AdamMatchesHandComputedSteps) {
  TS_BACKEND_OR_SKIP(be, GetParam());
  AdamConfig c;
  c.learning_rate = 0.1f;
  Adam adam(c);
  adam.allocate(*be, 1);
  Buffers b = make(*be, 1.0f);
  // t=1, g=0.5: m=0.05, v=0.00025, lr_t=0.1*sqrt(0.001)/0.1=0.0316228,
  //   p = 1 - 0.0316228*0.05/(0.0158114+1e-7) = 0.90000063
  EXPECT_NEAR(step(*be, adam, b, 0.5f), 0.90000063f, 2e-6);
  // t=2, g=-0.25: m=0.02, v=0.00031225, lr_t=0.1*sqrt(0.001999)/0.19=0.0235317,
  //   p = 0.90000063 - 0.0235317*0.02/(0.0176706+1e-7) = 0.8733671
  EXPECT_NEAR(step(*be, adam, b, -0.25f), 0.8733671f, 2e-6);
  EXPECT_EQ(adam.iterations(), 2);
}

TEST_P(Optimizers, SgdWithAndWithoutMomentum) {
  TS_BACKEND_OR_SKIP(be, GetParam());
  Sgd momentum(0.1f, 0.9f);
  momentum.allocate(*be, 1);
  Buffers b = make(*be, 1.0f);
  EXPECT_NEAR(step(*be, momentum, b, 0.5f), 0.95f, 1e-6);    // v = -0.05
  EXPECT_NEAR(step(*be, momentum, b, -0.25f), 0.93f, 1e-6);  // v = -0.045 + 0.025 = -0.02
  Sgd plain(0.1f, 0.0f);
  plain.allocate(*be, 1);
  Buffers c = make(*be, 1.0f);
  EXPECT_NEAR(step(*be, plain, c, 0.5f), 0.95f, 1e-6);
  EXPECT_NEAR(step(*be, plain, c, -0.25f), 0.975f, 1e-6);
}

INSTANTIATE_TEST_SUITE_P(Backends, Optimizers, ::testing::Values("cpu", "opencl"),
                         [](const auto& info) { return info.param; });

TEST(MakeOptimizer, NamesAndDefaults) {
  EXPECT_EQ(make_optimizer("adam", 0)->name(), "adam");
  EXPECT_EQ(make_optimizer("sgd", 0.5f)->name(), "sgd");
  EXPECT_THROW(make_optimizer("rmsprop", 0), std::invalid_argument);
}

}  // namespace
}  // namespace ts
