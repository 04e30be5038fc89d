// Optimizers over the model's single contiguous parameter/gradient buffers.
#pragma once

#include <memory>
#include <string>

#include "engine/backend/backend.hpp"

namespace ts {

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  virtual std::string name() const = 0;
  // Reserve state for `count` parameters (zero-initialised).
  virtual void allocate(Backend& backend, std::int64_t count) = 0;
  // params [count] F32 updated in place from grads [count] F32.
  virtual void apply(const Tensor& params, const Tensor& grads) = 0;
  virtual std::int64_t iterations() const = 0;
};

// Keras SGD: velocity = momentum*velocity - lr*g; param += velocity.
class Sgd : public Optimizer {
 public:
  explicit Sgd(float learning_rate = 0.01f, float momentum = 0.0f)
      : learning_rate_(learning_rate), momentum_(momentum) {}
  std::string name() const override { return "sgd"; }
  void allocate(Backend& backend, std::int64_t count) override;
  void apply(const Tensor& params, const Tensor& grads) override;
  std::int64_t iterations() const override { return iterations_; }

 private:
  float learning_rate_, momentum_;
  Backend* backend_ = nullptr;
  Tensor velocity_;
  std::int64_t iterations_ = 0;
};

// Keras Adam (bias correction folded into the step size).
class Adam : public Optimizer {
 public:
  explicit Adam(AdamConfig config = {}) : config_(config) {}
  std::string name() const override { return "adam"; }
  void allocate(Backend& backend, std::int64_t count) override;
  void apply(const Tensor& params, const Tensor& grads) override;
  std::int64_t iterations() const override { return iterations_; }

 private:
  AdamConfig config_;
  Backend* backend_ = nullptr;
  Tensor m_, v_;
  std::int64_t iterations_ = 0;
};

// "adam", or "sgd" (with momentum 0.9). learning_rate <= 0 picks the Keras defaults
// (adam 1e-3, sgd 1e-2).
std::unique_ptr<Optimizer> make_optimizer(const std::string& name, float learning_rate);

}  // namespace ts
