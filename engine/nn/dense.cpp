#include "engine/nn/dense.hpp"

#include <stdexcept>

namespace ts {

Dense::Dense(std::int64_t units, Activation activation) : units_(units), activation_(activation) {
  if (units <= 0) throw std::invalid_argument("Dense needs at least one unit");
}

std::string Dense::describe() const {
  return "Dense(" + std::to_string(units_) + (activation_ == Activation::Relu ? ", relu)" : ")");
}

Shape Dense::build(const Shape& input) {
  if (input.rank() != 1)
    throw std::invalid_argument("Dense expects a flat input per sample, got " + input.str() +
                                " (add a Flatten layer first)");
  in_ = input[0];
  return Shape{units_};
}

std::vector<ParamSpec> Dense::params() const {
  return {{"kernel", Shape{in_, units_}, Init::GlorotUniform, in_, units_},
          {"bias", Shape{units_}, Init::Zeros, in_, units_, false}};
}

void Dense::bind_params(const std::vector<Tensor>& weights, const std::vector<Tensor>& grads) {
  kernel_ = weights.at(0);
  bias_ = weights.at(1);
  grad_kernel_ = grads.at(0);
  grad_bias_ = grads.at(1);
}

void Dense::allocate(const LayerContext& ctx) {
  ctx_ = ctx;
  out_ = alloc_batch(ctx, Shape{units_}, ctx.storage);
  grad_in_ = alloc_batch(ctx, Shape{in_}, ctx.storage);
  grad_pre_ =
      activation_ == Activation::None ? Tensor{} : alloc_batch(ctx, Shape{units_}, ctx.storage);
}

Tensor Dense::forward(const Tensor& x, bool /*training*/) {
  const std::int64_t batch = x.shape[0];
  x_ = x;
  Tensor y = batch_view(out_, batch, Shape{units_});
  Backend& be = *ctx_.backend;
  be.gemm(false, false, batch, units_, in_, 1.0f, x, kernel_, 0.0f, y);
  be.bias_add(y, bias_);
  if (activation_ == Activation::Relu) be.relu(y, y);
  return y;
}

Tensor Dense::backward(const Tensor& dy, bool need_dx) {
  const std::int64_t batch = dy.shape[0];
  Backend& be = *ctx_.backend;
  Tensor dz = dy;  // gradient before the activation [batch, units]
  if (activation_ == Activation::Relu) {
    dz = batch_view(grad_pre_, batch, Shape{units_});
    be.relu_backward(batch_view(out_, batch, Shape{units_}), dy, dz);
  }
  be.gemm(true, false, in_, units_, batch, 1.0f, x_, dz, 0.0f, grad_kernel_);  // x^T dz
  be.bias_grad(dz, grad_bias_, false);
  if (!need_dx) return {};
  Tensor dx = batch_view(grad_in_, batch, Shape{in_});
  be.gemm(false, true, batch, in_, units_, 1.0f, dz, kernel_, 0.0f, dx);  // dz W^T
  return dx;
}

}  // namespace ts
