// Layers without parameters: Flatten, ReLU, MaxPool2D, Dropout, Softmax.
#pragma once

#include "engine/nn/layer.hpp"

namespace ts {

// [batch, d1, d2, ...] -> [batch, d1*d2*...]; no copy, a reshaped view.
class Flatten : public Layer {
 public:
  std::string type() const override { return "Flatten"; }
  Shape build(const Shape& input) override;
  void allocate(const LayerContext&) override {}
  Tensor forward(const Tensor& x, bool training) override;
  Tensor backward(const Tensor& dy, bool need_dx) override;

 private:
  Shape input_;
};

// y = max(x, 0), any shape.
class ReLU : public Layer {
 public:
  std::string type() const override { return "ReLU"; }
  Shape build(const Shape& input) override;
  void allocate(const LayerContext& ctx) override;
  Tensor forward(const Tensor& x, bool training) override;
  Tensor backward(const Tensor& dy, bool need_dx) override;

 private:
  Shape shape_;
  LayerContext ctx_;
  Tensor out_, grad_in_, y_;
};

// Max pooling with window = stride = pool: [h, w, c] -> [h/pool, w/pool, c].
class MaxPool2D : public Layer {
 public:
  explicit MaxPool2D(std::int64_t pool = 2);
  std::string type() const override { return "MaxPool2D"; }
  std::string describe() const override;
  Shape build(const Shape& input) override;
  void allocate(const LayerContext& ctx) override;
  Tensor forward(const Tensor& x, bool training) override;
  Tensor backward(const Tensor& dy, bool need_dx) override;

 private:
  Pool2DGeometry geometry(std::int64_t batch) const;
  std::int64_t pool_, h_ = 0, w_ = 0, c_ = 0, batch_ = 0;
  LayerContext ctx_;
  Tensor out_, argmax_, grad_in_;
};

// Inverted dropout during training (identity at inference). The mask seed changes every step.
class Dropout : public Layer {
 public:
  Dropout(float rate, std::uint32_t seed);
  std::string type() const override { return "Dropout"; }
  std::string describe() const override;
  Shape build(const Shape& input) override;
  void allocate(const LayerContext& ctx) override;
  Tensor forward(const Tensor& x, bool training) override;
  Tensor backward(const Tensor& dy, bool need_dx) override;

 private:
  float rate_;
  std::uint32_t seed_, calls_ = 0;
  bool applied_ = false;
  Shape shape_;
  LayerContext ctx_;
  Tensor out_, mask_, grad_in_;
};

// Softmax over the last axis. As the last layer of a model trained with categorical
// cross-entropy it is fused into the loss (the model feeds the loss its input, the logits);
// forward() is used for inference.
class Softmax : public Layer {
 public:
  std::string type() const override { return "Softmax"; }
  Shape build(const Shape& input) override;
  void allocate(const LayerContext& ctx) override;
  // x [batch, classes] -> probabilities [batch, classes] (F32)
  Tensor forward(const Tensor& x, bool training) override;
  // Only reachable when not fused with the loss, which the model never does.
  Tensor backward(const Tensor& dy, bool need_dx) override;

 private:
  Shape shape_;
  LayerContext ctx_;
  Tensor out_;
};

}  // namespace ts
