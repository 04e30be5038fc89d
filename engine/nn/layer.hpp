// The Layer interface of the Sequential model.
//
// Life cycle: build() fixes the per-sample input shape and returns the output shape;
// params() lists the trainable tensors; the model binds views of its contiguous parameter and
// gradient buffers with bind_params(); allocate() reserves activation buffers for the largest
// batch; then forward()/backward() run once per step.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/backend/backend.hpp"

namespace ts {

enum class Init { GlorotUniform, HeUniform, Zeros };

struct ParamSpec {
  std::string name;  // e.g. "kernel", "bias"
  Shape shape;
  Init init = Init::Zeros;
  std::int64_t fan_in = 0, fan_out = 0;  // for Glorot/He scaling
  // Under mixed precision, forward/backward read an f16 copy of this parameter (GEMM operands:
  // kernels). Parameters that element-wise ops take (biases) stay f32, as the Backend requires.
  bool f16_copy = true;
};

struct LayerContext {
  Backend* backend = nullptr;
  DType storage = DType::F32;  // activations and their gradients (F16 under mixed precision)
  std::int64_t max_batch = 0;
};

class Layer {
 public:
  virtual ~Layer() = default;

  virtual std::string type() const = 0;  // "Dense", "Conv2D", ...
  // One line for model summaries, e.g. "Dense(128, relu)".
  virtual std::string describe() const { return type(); }

  // Per-sample input shape (no batch dimension) -> per-sample output shape.
  // Throws std::invalid_argument when the input does not fit the layer.
  virtual Shape build(const Shape& input) = 0;

  // Trainable tensors, in the order bind_params() receives them.
  virtual std::vector<ParamSpec> params() const { return {}; }
  // weights: the tensors forward/backward compute with (F32, or an F16 copy under mixed
  // precision for specs with f16_copy); grads: F32 gradient views, written (not accumulated)
  // by backward().
  virtual void bind_params(const std::vector<Tensor>& weights, const std::vector<Tensor>& grads) {
    (void)weights;
    (void)grads;
  }

  // Reserve activation buffers for up to ctx.max_batch samples.
  virtual void allocate(const LayerContext& ctx) = 0;

  // x [batch, input...] -> y [batch, output...]. y stays valid until the next forward().
  virtual Tensor forward(const Tensor& x, bool training) = 0;
  // dy [batch, output...] -> dx [batch, input...]; writes this layer's parameter gradients.
  // Returns an undefined Tensor when need_dx is false (the first layer).
  virtual Tensor backward(const Tensor& dy, bool need_dx) = 0;
};

// A view of the first `batch` samples of a buffer allocated for max_batch samples.
inline Tensor batch_view(const Tensor& buffer, std::int64_t batch, const Shape& per_sample) {
  std::vector<std::int64_t> dims{batch};
  dims.insert(dims.end(), per_sample.dims().begin(), per_sample.dims().end());
  return buffer.view(0, Shape(std::move(dims)));
}

// Allocates [max_batch, per_sample...] storage.
inline Tensor alloc_batch(const LayerContext& ctx, const Shape& per_sample, DType dtype) {
  std::vector<std::int64_t> dims{ctx.max_batch};
  dims.insert(dims.end(), per_sample.dims().begin(), per_sample.dims().end());
  return ctx.backend->alloc(Shape(std::move(dims)), dtype);
}

}  // namespace ts
