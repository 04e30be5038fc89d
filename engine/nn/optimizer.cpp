#include "engine/nn/optimizer.hpp"

#include <stdexcept>

namespace ts {

void Sgd::allocate(Backend& backend, std::int64_t count) {
  backend_ = &backend;
  velocity_ = backend.alloc(Shape{count}, DType::F32);
  backend.fill(velocity_, 0.0f);
}

void Sgd::apply(const Tensor& params, const Tensor& grads) {
  backend_->sgd_update(params, grads, velocity_, learning_rate_, momentum_);
  ++iterations_;
}

void Adam::allocate(Backend& backend, std::int64_t count) {
  backend_ = &backend;
  m_ = backend.alloc(Shape{count}, DType::F32);
  v_ = backend.alloc(Shape{count}, DType::F32);
  backend.fill(m_, 0.0f);
  backend.fill(v_, 0.0f);
}

void Adam::apply(const Tensor& params, const Tensor& grads) {
  ++iterations_;
  backend_->adam_update(params, grads, m_, v_, config_, iterations_);
}

std::unique_ptr<Optimizer> make_optimizer(const std::string& name, float learning_rate) {
  if (name == "adam") {
    AdamConfig config;
    if (learning_rate > 0.0f) config.learning_rate = learning_rate;
    return std::make_unique<Adam>(config);
  }
  if (name == "sgd")
    return std::make_unique<Sgd>(learning_rate > 0.0f ? learning_rate : 0.01f, 0.9f);
  throw std::invalid_argument("--optimizer must be adam or sgd, not '" + name + "'");
}

}  // namespace ts
