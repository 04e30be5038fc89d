// Dense (fully connected) layer: y = act(x W + b), W [in, out] as in Keras.
#pragma once

#include "engine/nn/layer.hpp"

namespace ts {

enum class Activation { None, Relu };

class Dense : public Layer {
 public:
  Dense(std::int64_t units, Activation activation = Activation::None);

  std::string type() const override { return "Dense"; }
  std::string describe() const override;
  Shape build(const Shape& input) override;  // input [in] -> [units]
  std::vector<ParamSpec> params() const override;
  void bind_params(const std::vector<Tensor>& weights, const std::vector<Tensor>& grads) override;
  void allocate(const LayerContext& ctx) override;
  // x [batch, in] -> y [batch, units]
  Tensor forward(const Tensor& x, bool training) override;
  // dy [batch, units] -> dx [batch, in]; grads: dW [in, units], db [units]
  Tensor backward(const Tensor& dy, bool need_dx) override;

 private:
  std::int64_t units_, in_ = 0;
  Activation activation_;
  LayerContext ctx_;
  Tensor kernel_, bias_, grad_kernel_, grad_bias_;
  Tensor out_, grad_in_, grad_pre_;  // [max_batch, units], [max_batch, in], [max_batch, units]
  Tensor x_;                         // the last forward input [batch, in]
};

}  // namespace ts
