#include "engine/nn/conv2d.hpp"

#include <stdexcept>

namespace ts {

Conv2D::Conv2D(std::int64_t filters, std::int64_t kernel_size, Activation activation,
               std::int64_t stride, std::int64_t pad)
    : filters_(filters),
      kernel_size_(kernel_size),
      stride_(stride),
      pad_(pad),
      activation_(activation) {
  if (filters <= 0 || kernel_size <= 0 || stride <= 0 || pad < 0)
    throw std::invalid_argument("Conv2D needs positive filters, kernel size and stride");
}

std::string Conv2D::describe() const {
  return "Conv2D(" + std::to_string(filters_) + ", " + std::to_string(kernel_size_) + "x" +
         std::to_string(kernel_size_) + (activation_ == Activation::Relu ? ", relu)" : ")");
}

Shape Conv2D::build(const Shape& input) {
  if (input.rank() != 3)
    throw std::invalid_argument("Conv2D expects [height, width, channels] per sample, got " +
                                input.str());
  in_h_ = input[0];
  in_w_ = input[1];
  in_c_ = input[2];
  if (geometry(1).out_h() <= 0 || geometry(1).out_w() <= 0)
    throw std::invalid_argument("Conv2D " + std::to_string(kernel_size_) + "x" +
                                std::to_string(kernel_size_) + " does not fit an input of " +
                                input.str());
  return out_shape();
}

Conv2DGeometry Conv2D::geometry(std::int64_t batch) const {
  return {batch, in_h_, in_w_, in_c_, kernel_size_, kernel_size_, stride_, pad_};
}

Shape Conv2D::out_shape() const {
  const auto g = geometry(1);
  return Shape{g.out_h(), g.out_w(), filters_};
}

std::vector<ParamSpec> Conv2D::params() const {
  const std::int64_t k = kernel_size_ * kernel_size_;
  return {{"kernel", Shape{k * in_c_, filters_}, Init::GlorotUniform, k * in_c_, k * filters_},
          {"bias", Shape{filters_}, Init::Zeros, k * in_c_, k * filters_, false}};
}

void Conv2D::bind_params(const std::vector<Tensor>& weights, const std::vector<Tensor>& grads) {
  kernel_ = weights.at(0);
  bias_ = weights.at(1);
  grad_kernel_ = grads.at(0);
  grad_bias_ = grads.at(1);
}

void Conv2D::allocate(const LayerContext& ctx) {
  ctx_ = ctx;
  const auto g = geometry(ctx.max_batch);
  cols_ = ctx.backend->alloc(Shape{g.col_rows(), g.col_cols()}, ctx.storage);
  grad_cols_ = ctx.backend->alloc(Shape{g.col_rows(), g.col_cols()}, ctx.storage);
  out_ = alloc_batch(ctx, out_shape(), ctx.storage);
  grad_pre_ =
      activation_ == Activation::None ? Tensor{} : alloc_batch(ctx, out_shape(), ctx.storage);
  grad_in_ = alloc_batch(ctx, Shape{in_h_, in_w_, in_c_}, ctx.storage);
}

Tensor Conv2D::forward(const Tensor& x, bool /*training*/) {
  batch_ = x.shape[0];
  const auto g = geometry(batch_);
  Backend& be = *ctx_.backend;
  Tensor cols = cols_.view(0, Shape{g.col_rows(), g.col_cols()});
  be.im2col(g, x, cols);
  Tensor y = batch_view(out_, batch_, out_shape());
  // y [rows, filters] = cols [rows, K] * kernel [K, filters]
  be.gemm(false, false, g.col_rows(), filters_, g.col_cols(), 1.0f, cols, kernel_, 0.0f, y);
  be.bias_add(y, bias_);
  if (activation_ == Activation::Relu) be.relu(y, y);
  return y;
}

Tensor Conv2D::backward(const Tensor& dy, bool need_dx) {
  const auto g = geometry(batch_);
  Backend& be = *ctx_.backend;
  Tensor dz = dy;
  if (activation_ == Activation::Relu) {
    dz = batch_view(grad_pre_, batch_, out_shape());
    be.relu_backward(batch_view(out_, batch_, out_shape()), dy, dz);
  }
  Tensor cols = cols_.view(0, Shape{g.col_rows(), g.col_cols()});
  // dW [K, filters] = cols^T [K, rows] * dz [rows, filters]
  be.gemm(true, false, g.col_cols(), filters_, g.col_rows(), 1.0f, cols, dz, 0.0f, grad_kernel_);
  be.bias_grad(dz, grad_bias_, false);
  if (!need_dx) return {};
  Tensor dcols = grad_cols_.view(0, Shape{g.col_rows(), g.col_cols()});
  // dcols [rows, K] = dz [rows, filters] * kernel^T [filters, K]
  be.gemm(false, true, g.col_rows(), g.col_cols(), filters_, 1.0f, dz, kernel_, 0.0f, dcols);
  Tensor dx = batch_view(grad_in_, batch_, Shape{in_h_, in_w_, in_c_});
  be.col2im(g, dcols, dx);
  return dx;
}

}  // namespace ts
