// Parameter updates (Keras SGD with momentum, Keras/TF Adam), all F32, split over threads for
// large parameter tensors.
#include <cmath>

#include "engine/backend/cpu/cpu_kernels.hpp"
#include "engine/backend/cpu/cpu_parallel.hpp"

namespace ts::cpu {
namespace {
// Adam does a sqrt and a division per element, so it pays to split smaller tensors than the
// memory-bound loops do.
constexpr std::int64_t kMinPerThread = 1 << 14;
}  // namespace

// param, grad, velocity [n].
void sgd_update(float* param, const float* grad, float* velocity, std::int64_t n,
                float learning_rate, float momentum, int threads) {
  parallel_for(threads, n, kMinPerThread, [&](std::int64_t b, std::int64_t e) {
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

// param, grad, m, v [n]; step >= 1.
void adam_update(float* param, const float* grad, float* m, float* v, std::int64_t n,
                 const AdamConfig& config, std::int64_t step, int threads) {
  const double t = static_cast<double>(step);
  const float lr_t = static_cast<float>(config.learning_rate *
                                        std::sqrt(1.0 - std::pow(double{config.beta2}, t)) /
                                        (1.0 - std::pow(double{config.beta1}, t)));
  const float b1 = config.beta1, b2 = config.beta2, eps = config.epsilon;
  const float one_minus_b1 = 1.0f - b1, one_minus_b2 = 1.0f - b2;
  parallel_for(threads, n, kMinPerThread, [&](std::int64_t b, std::int64_t e) {
    float* __restrict p = param;
    const float* __restrict g = grad;
    float* __restrict mm = m;
    float* __restrict vv = v;
    for (std::int64_t i = b; i < e; ++i) {
      const float gi = g[i];
      const float mi = b1 * mm[i] + one_minus_b1 * gi;
      const float vi = b2 * vv[i] + one_minus_b2 * (gi * gi);
      mm[i] = mi;
      vv[i] = vi;
      p[i] -= lr_t * mi / (std::sqrt(vi) + eps);
    }
  });
}

}  // namespace ts::cpu
