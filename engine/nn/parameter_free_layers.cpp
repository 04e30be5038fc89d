#include "engine/nn/parameter_free_layers.hpp"

#include <stdexcept>

namespace ts {

namespace {
std::vector<std::int64_t> with_batch(std::int64_t batch, const Shape& s) {
  std::vector<std::int64_t> dims{batch};
  dims.insert(dims.end(), s.dims().begin(), s.dims().end());
  return dims;
}
}  // namespace

// ---- Flatten ------------------------------------------------------------------------------
Shape Flatten::build(const Shape& input) {
  input_ = input;
  return Shape{input.numel()};
}
Tensor Flatten::forward(const Tensor& x, bool) {
  return x.reshaped(Shape{x.shape[0], input_.numel()});
}
Tensor Flatten::backward(const Tensor& dy, bool need_dx) {
  if (!need_dx) return {};
  return dy.reshaped(Shape(with_batch(dy.shape[0], input_)));
}

// ---- ReLU ---------------------------------------------------------------------------------
Shape ReLU::build(const Shape& input) {
  shape_ = input;
  return input;
}
void ReLU::allocate(const LayerContext& ctx) {
  ctx_ = ctx;
  out_ = alloc_batch(ctx, shape_, ctx.storage);
  grad_in_ = alloc_batch(ctx, shape_, ctx.storage);
}
Tensor ReLU::forward(const Tensor& x, bool) {
  y_ = batch_view(out_, x.shape[0], shape_);
  ctx_.backend->relu(x, y_);
  return y_;
}
Tensor ReLU::backward(const Tensor& dy, bool need_dx) {
  if (!need_dx) return {};
  Tensor dx = batch_view(grad_in_, dy.shape[0], shape_);
  ctx_.backend->relu_backward(y_, dy, dx);
  return dx;
}

// ---- MaxPool2D ----------------------------------------------------------------------------
MaxPool2D::MaxPool2D(std::int64_t pool) : pool_(pool) {
  if (pool < 1) throw std::invalid_argument("MaxPool2D needs a pool size of at least 1");
}
std::string MaxPool2D::describe() const {
  return "MaxPool2D(" + std::to_string(pool_) + "x" + std::to_string(pool_) + ")";
}
Shape MaxPool2D::build(const Shape& input) {
  if (input.rank() != 3)
    throw std::invalid_argument("MaxPool2D expects [height, width, channels], got " + input.str());
  h_ = input[0];
  w_ = input[1];
  c_ = input[2];
  if (h_ < pool_ || w_ < pool_)
    throw std::invalid_argument("MaxPool2D(" + std::to_string(pool_) +
                                ") does not fit an input of " + input.str());
  return Shape{h_ / pool_, w_ / pool_, c_};
}
Pool2DGeometry MaxPool2D::geometry(std::int64_t batch) const {
  return {batch, h_, w_, c_, pool_};
}
void MaxPool2D::allocate(const LayerContext& ctx) {
  ctx_ = ctx;
  const Shape out{h_ / pool_, w_ / pool_, c_};
  out_ = alloc_batch(ctx, out, ctx.storage);
  argmax_ = alloc_batch(ctx, out, DType::I32);
  grad_in_ = alloc_batch(ctx, Shape{h_, w_, c_}, ctx.storage);
}
Tensor MaxPool2D::forward(const Tensor& x, bool) {
  batch_ = x.shape[0];
  const Shape out{h_ / pool_, w_ / pool_, c_};
  Tensor y = batch_view(out_, batch_, out);
  ctx_.backend->maxpool(geometry(batch_), x, y, batch_view(argmax_, batch_, out));
  return y;
}
Tensor MaxPool2D::backward(const Tensor& dy, bool need_dx) {
  if (!need_dx) return {};
  const Shape out{h_ / pool_, w_ / pool_, c_};
  Tensor dx = batch_view(grad_in_, batch_, Shape{h_, w_, c_});
  ctx_.backend->maxpool_backward(geometry(batch_), dy, batch_view(argmax_, batch_, out), dx);
  return dx;
}

// ---- Dropout ------------------------------------------------------------------------------
Dropout::Dropout(float rate, std::uint32_t seed) : rate_(rate), seed_(seed) {
  if (!(rate >= 0.0f && rate < 1.0f)) throw std::invalid_argument("Dropout rate must be in [0, 1)");
}
std::string Dropout::describe() const {
  return "Dropout(" + std::to_string(rate_) + ")";
}
Shape Dropout::build(const Shape& input) {
  shape_ = input;
  return input;
}
void Dropout::allocate(const LayerContext& ctx) {
  ctx_ = ctx;
  out_ = alloc_batch(ctx, shape_, ctx.storage);
  mask_ = alloc_batch(ctx, shape_, DType::F32);
  grad_in_ = alloc_batch(ctx, shape_, ctx.storage);
}
Tensor Dropout::forward(const Tensor& x, bool training) {
  applied_ = training && rate_ > 0.0f;
  if (!applied_) return x;
  const std::int64_t batch = x.shape[0];
  Tensor y = batch_view(out_, batch, shape_);
  const std::uint32_t step_seed = seed_ ^ (0x9E3779B9u * ++calls_);
  ctx_.backend->dropout(x, rate_, step_seed, batch_view(mask_, batch, shape_), y);
  return y;
}
Tensor Dropout::backward(const Tensor& dy, bool need_dx) {
  if (!need_dx) return {};
  if (!applied_) return dy;
  const std::int64_t batch = dy.shape[0];
  Tensor dx = batch_view(grad_in_, batch, shape_);
  ctx_.backend->dropout_backward(dy, batch_view(mask_, batch, shape_), dx);
  return dx;
}

// ---- Softmax ------------------------------------------------------------------------------
Shape Softmax::build(const Shape& input) {
  if (input.rank() != 1)
    throw std::invalid_argument("Softmax expects [classes] per sample, got " + input.str());
  shape_ = input;
  return input;
}
void Softmax::allocate(const LayerContext& ctx) {
  ctx_ = ctx;
  out_ = alloc_batch(ctx, shape_, DType::F32);
}
Tensor Softmax::forward(const Tensor& x, bool) {
  Tensor y = batch_view(out_, x.shape[0], shape_);
  ctx_.backend->softmax(x, y);
  return y;
}
Tensor Softmax::backward(const Tensor&, bool) {
  throw std::logic_error("Softmax is trained fused with categorical cross-entropy");
}

}  // namespace ts
