// 2-D convolution over NHWC images via im2col + GEMM. Kernel stored [kh*kw*in_c, filters]
// (rows in (kh, kw, c) order, matching im2col's columns).
#pragma once

#include "engine/nn/dense.hpp"
#include "engine/nn/layer.hpp"

namespace ts {

class Conv2D : public Layer {
 public:
  Conv2D(std::int64_t filters, std::int64_t kernel_size, Activation activation = Activation::None,
         std::int64_t stride = 1, std::int64_t pad = 0);

  std::string type() const override { return "Conv2D"; }
  std::string describe() const override;
  Shape build(const Shape& input) override;  // [h, w, c] -> [out_h, out_w, filters]
  std::vector<ParamSpec> params() const override;
  void bind_params(const std::vector<Tensor>& weights, const std::vector<Tensor>& grads) override;
  void allocate(const LayerContext& ctx) override;
  // x [batch, h, w, c] -> y [batch, out_h, out_w, filters]
  Tensor forward(const Tensor& x, bool training) override;
  // dy [batch, out_h, out_w, filters] -> dx [batch, h, w, c]
  Tensor backward(const Tensor& dy, bool need_dx) override;

 private:
  Conv2DGeometry geometry(std::int64_t batch) const;
  Shape out_shape() const;

  std::int64_t filters_, kernel_size_, stride_, pad_;
  Activation activation_;
  std::int64_t in_h_ = 0, in_w_ = 0, in_c_ = 0;
  LayerContext ctx_;
  Tensor kernel_, bias_, grad_kernel_, grad_bias_;
  Tensor cols_, grad_cols_;  // [max_batch*out_h*out_w, kh*kw*in_c]
  Tensor out_, grad_pre_, grad_in_;
  std::int64_t batch_ = 0;
};

}  // namespace ts
