// Numeric gradient checks of every layer and of the loss, on every backend.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>

#include "backends.hpp"
#include "engine/nn/conv2d.hpp"
#include "engine/nn/dense.hpp"
#include "engine/nn/loss.hpp"
#include "engine/nn/parameter_free_layers.hpp"
#include "engine/nn/parameters.hpp"

namespace ts {
namespace {

std::vector<float> random_values(std::size_t n, std::uint64_t seed, float lo = -1, float hi = 1) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = rng.uniform(lo, hi);
  return v;
}

std::vector<float> download(Backend& be, const Tensor& t) {
  std::vector<float> out(static_cast<std::size_t>(t.numel()));
  be.download(t, out.data());
  return out;
}

double dot(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

// Checks a layer's input and parameter gradients against central differences of
// f(x, params) = sum(r * layer(x)) for a fixed random r.
void check_layer(Backend& be, Layer& layer, const Shape& in_shape, std::int64_t batch,
                 float input_lo = -1.0f, float input_hi = 1.0f) {
  const Shape out_shape = layer.build(in_shape);
  ParameterStore params;
  params.build(be, {layer.params()}, DType::F32, 7);
  if (!layer.params().empty()) layer.bind_params(params.compute_views(0), params.gradient_views(0));
  LayerContext ctx{&be, DType::F32, batch};
  layer.allocate(ctx);

  std::vector<std::int64_t> in_dims{batch}, out_dims{batch};
  in_dims.insert(in_dims.end(), in_shape.dims().begin(), in_shape.dims().end());
  out_dims.insert(out_dims.end(), out_shape.dims().begin(), out_shape.dims().end());
  Tensor x = be.alloc(Shape(in_dims), DType::F32);
  Tensor dy = be.alloc(Shape(out_dims), DType::F32);
  auto host_x = random_values(static_cast<std::size_t>(x.numel()), 11, input_lo, input_hi);
  const auto r = random_values(static_cast<std::size_t>(dy.numel()), 13);
  be.upload(dy, r.data());

  auto objective = [&](const std::vector<float>& xs) {
    be.upload(x, xs.data());
    return dot(download(be, layer.forward(x, true)), r);
  };
  objective(host_x);
  const Tensor dx_t = layer.backward(dy, true);
  const auto dx = download(be, dx_t);
  const auto grads = params.read_gradients();
  auto weights = params.read_master();

  const float eps = 1e-2f;
  auto expect_close = [](double numeric, double analytic, const std::string& what) {
    EXPECT_NEAR(numeric, analytic, 2e-3 + 2e-2 * std::max(std::abs(numeric), std::abs(analytic)))
        << what;
  };
  const std::size_t x_stride = std::max<std::size_t>(1, host_x.size() / 23);
  for (std::size_t i = 0; i < host_x.size(); i += x_stride) {
    auto xp = host_x, xm = host_x;
    xp[i] += eps;
    xm[i] -= eps;
    expect_close((objective(xp) - objective(xm)) / (2 * eps), dx[i],
                 layer.describe() + " input " + std::to_string(i));
  }
  const std::size_t w_stride = std::max<std::size_t>(1, weights.size() / 29);
  for (std::size_t i = 0; i < weights.size(); i += w_stride) {
    auto wp = weights, wm = weights;
    wp[i] += eps;
    wm[i] -= eps;
    params.write_master(wp);
    const double fp = objective(host_x);
    params.write_master(wm);
    const double fm = objective(host_x);
    expect_close((fp - fm) / (2 * eps), grads[i],
                 layer.describe() + " weight " + std::to_string(i));
  }
  params.write_master(weights);
}

class Gradients : public ::testing::TestWithParam<std::string> {};

TEST_P(Gradients, Dense) {
  TS_BACKEND_OR_SKIP(be, GetParam());
  Dense dense(7);
  check_layer(*be, dense, Shape{13}, 5);
}

TEST_P(Gradients, DenseRelu) {
  TS_BACKEND_OR_SKIP(be, GetParam());
  Dense dense(9, Activation::Relu);
  check_layer(*be, dense, Shape{6}, 4);
}

TEST_P(Gradients, Conv2DValid) {
  TS_BACKEND_OR_SKIP(be, GetParam());
  Conv2D conv(4, 3);
  check_layer(*be, conv, Shape{7, 6, 2}, 2);
}

TEST_P(Gradients, Conv2DPaddedStridedRelu) {
  TS_BACKEND_OR_SKIP(be, GetParam());
  Conv2D conv(3, 3, Activation::Relu, 2, 1);
  check_layer(*be, conv, Shape{7, 7, 3}, 2);
}

TEST_P(Gradients, MaxPool) {
  TS_BACKEND_OR_SKIP(be, GetParam());
  MaxPool2D pool(2);
  check_layer(*be, pool, Shape{6, 5, 3}, 2);  // odd width: the last column is dropped
}

TEST_P(Gradients, ReluLayer) {
  TS_BACKEND_OR_SKIP(be, GetParam());
  ReLU relu;
  check_layer(*be, relu, Shape{17}, 3);
}

TEST_P(Gradients, FlattenPassesGradientsThrough) {
  TS_BACKEND_OR_SKIP(be, GetParam());
  Flatten flatten;
  check_layer(*be, flatten, Shape{3, 4, 2}, 2);
}

TEST_P(Gradients, DropoutScalesKeptUnitsAndZeroesDropped) {
  TS_BACKEND_OR_SKIP(be, GetParam());
  Dropout dropout(0.4f, 5);
  const Shape s{50};
  dropout.build(s);
  dropout.allocate({be, DType::F32, 4});
  Tensor x = be->alloc(Shape{4, 50}, DType::F32), dy = be->alloc(Shape{4, 50}, DType::F32);
  const auto hx = random_values(200, 3, 0.5f, 1.5f), hdy = random_values(200, 4);
  be->upload(x, hx.data());
  be->upload(dy, hdy.data());
  const auto y = download(*be, dropout.forward(x, true));
  const auto dx = download(*be, dropout.backward(dy, true));
  int dropped = 0;
  for (std::size_t i = 0; i < 200; ++i) {
    if (y[i] == 0.0f) {
      ++dropped;
      EXPECT_EQ(dx[i], 0.0f);
    } else {
      EXPECT_NEAR(y[i], hx[i] / 0.6f, 1e-5);
      EXPECT_NEAR(dx[i], hdy[i] / 0.6f, 1e-5);
    }
  }
  EXPECT_GT(dropped, 50);
  EXPECT_LT(dropped, 110);
  // At inference dropout is the identity.
  EXPECT_EQ(download(*be, dropout.forward(x, false)), hx);
}

TEST_P(Gradients, SoftmaxCrossEntropy) {
  TS_BACKEND_OR_SKIP(be, GetParam());
  const std::int64_t n = 6, classes = 5;
  CategoricalCrossentropy loss;
  loss.allocate({be, DType::F32, n}, classes);
  Tensor logits = be->alloc(Shape{n, classes}, DType::F32);
  Tensor labels = be->alloc(Shape{n}, DType::I32);
  Tensor totals = be->alloc(Shape{2}, DType::F32);
  const std::vector<std::int32_t> host_labels{0, 4, 2, 2, 1, 3};
  be->upload(labels, host_labels.data());
  auto host_logits = random_values(n * classes, 21, -3, 3);
  auto mean_loss = [&](const std::vector<float>& l) {
    be->upload(logits, l.data());
    loss.forward(logits, labels);
    loss.totals(totals);
    return download(*be, totals)[0] / static_cast<double>(n);
  };
  mean_loss(host_logits);
  const auto grad = download(*be, loss.backward(1.0f));
  for (std::size_t i = 0; i < host_logits.size(); ++i) {
    auto p = host_logits, m = host_logits;
    p[i] += 1e-2f;
    m[i] -= 1e-2f;
    EXPECT_NEAR((mean_loss(p) - mean_loss(m)) / 2e-2, grad[i], 1e-3) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Gradients, ::testing::Values("cpu", "opencl"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace ts
