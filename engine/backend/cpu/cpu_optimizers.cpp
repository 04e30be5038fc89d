// Parameter updates (Keras SGD with momentum, Keras/TF Adam), all F32, split over threads for
// large parameter tensors.
#include <cmath>

#include "engine/backend/cpu/cpu_kernels.hpp"
#include "engine/backend/cpu/cpu_parallel.hpp"

namespace ts::cpu {
namespace {
// Adam does a sqrt and a division per element, so it pays to split smaller tensors than the
// memory-bound loops do.
constexpr std::int64_t kMinPerChunk = 1 << 14;
}  // namespace

// param, grad, velocity [n].
void sgd_update(float* param, const float* grad, float* velocity, std::int64_t n,
                float learning_rate, float momentum, ThreadPool& pool) {
  parallel_for(pool, n, kMinPerChunk, [&](std::int64_t b, std::int64_t e) {
    float* __restrict p = param;
    const float* __restrict g = grad;
    float* __restrict vel = velocity;
    if (momentum == 0.0f) {
      for (std::int64_t i = b; i < e; ++i) {
        const float step = -learning_rate * g[i];
        vel[i] = step;
        p[i] += step;
      }
    } else {
      for (std::int64_t i = b; i < e; ++i) {
        const float step = momentum * vel[i] - learning_rate * g[i];
        vel[i] = step;
        p[i] += step;
      }
    }
  });
}

namespace {

struct AdamStep {
  float lr_t, b1, b2, one_minus_b1, one_minus_b2, eps;
};

// Elements [b, e) of param, grad, m, v. A function of its own with restrict pointers (rather
// than the loop inline in the lambda) is what gets GCC 12 to vectorise it.
void adam_range(float* __restrict p, const float* __restrict g, float* __restrict m,
                float* __restrict v, std::int64_t b, std::int64_t e, AdamStep s) {
  for (std::int64_t i = b; i < e; ++i) {
    const float gi = g[i];
    const float mi = s.b1 * m[i] + s.one_minus_b1 * gi;
    const float vi = s.b2 * v[i] + s.one_minus_b2 * (gi * gi);
    m[i] = mi;
    v[i] = vi;
    p[i] -= s.lr_t * mi / (std::sqrt(vi) + s.eps);
  }
}

}  // namespace

// param, grad, m, v [n]; step >= 1.
void adam_update(float* param, const float* grad, float* m, float* v, std::int64_t n,
                 const AdamConfig& config, std::int64_t step, ThreadPool& pool) {
  const double t = static_cast<double>(step);
  AdamStep s;
  s.lr_t =
      static_cast<float>(config.learning_rate * std::sqrt(1.0 - std::pow(double{config.beta2}, t)) /
                         (1.0 - std::pow(double{config.beta1}, t)));
  s.b1 = config.beta1;
  s.b2 = config.beta2;
  s.one_minus_b1 = 1.0f - config.beta1;
  s.one_minus_b2 = 1.0f - config.beta2;
  s.eps = config.epsilon;
  parallel_for(pool, n, kMinPerChunk,
               [&](std::int64_t b, std::int64_t e) { adam_range(param, grad, m, v, b, e, s); });
}

}  // namespace ts::cpu
