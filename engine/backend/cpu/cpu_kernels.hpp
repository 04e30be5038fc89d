// The CPU backend's numeric kernels over checked views (cpu_backend.cpp validates tensors,
// dtypes and sizes before calling them). "Storage" views are F32 or F16; every kernel computes
// in f32 and rounds to f16 on store. Large kernels split their work over `pool`.
#pragma once

#include <cstdint>

#include "engine/backend/backend.hpp"
#include "engine/backend/cpu/cpu_thread_pool.hpp"
#include "engine/backend/cpu/cpu_view.hpp"

namespace ts::cpu {

// ---- cpu_elementwise.cpp ------------------------------------------------------------------
// dst[i] = src[i] for i < dst.numel, converting between any of F32, F16, I32 (to I32: truncated).
void convert(const View& src, const View& dst);
// t[i] = value (F32/F16: rounded; I32: truncated, NaN -> 0, saturated to the int32 range).
void fill(const View& t, float value);
// y [rows, cols] += bias [cols] broadcast over rows; y storage, rows = y.numel / cols.
void bias_add(const View& y, const float* bias, std::int64_t cols);
// grad_bias [cols] (+)= column sums of dy [rows, cols] (storage).
void bias_grad(const View& dy, float* grad_bias, std::int64_t cols, bool accumulate);
// y = max(x, 0) with fmax semantics (NaN -> 0); x, y storage of the same numel, may alias.
void relu(const View& x, const View& y, ThreadPool& pool);
// dx = dy * (y > 0 ? 1 : 0); all storage of the same numel; dx may alias dy.
void relu_backward(const View& y, const View& dy, const View& dx, ThreadPool& pool);
// keep = hash_uniform(seed, i) >= rate; mask [n] F32 = keep ? 1/(1-rate) : 0; y = x * mask.
void dropout(const View& x, float rate, std::uint32_t seed, float* mask, const View& y,
             ThreadPool& pool);
// dx = dy * mask; dy, dx storage [n], mask [n] F32.
void dropout_backward(const View& dy, const float* mask, const View& dx, ThreadPool& pool);
// Sum of all elements of storage x (f32 blocks, accumulated in double).
float sum(const View& x);
// x [n] F32 *= factor; returns true when any element is inf or NaN afterwards.
bool scale_and_check_finite(float* x, std::int64_t n, float factor, ThreadPool& pool);

// ---- cpu_softmax.cpp ----------------------------------------------------------------------
// Per row of logits [n, classes] (storage): probs [n, classes] = softmax; loss [n] =
// -log(max(probs[label], 1e-12)); correct [n] = 1 if the first maximum is at label. A label
// outside [0, classes) gives probability 0 (loss 27.63...) and correct 0.
void softmax_xent(const View& logits, const std::int32_t* labels, float* probs, float* loss,
                  float* correct, std::int64_t n, std::int64_t classes);
// dlogits [n, classes] (storage) = scale * (probs - onehot(labels)); probs [n, classes] F32.
void softmax_xent_backward(const float* probs, const std::int32_t* labels, float scale,
                           const View& dlogits, std::int64_t n, std::int64_t classes);
// y [n, classes] F32 = softmax over the last axis of x [n, classes] (storage).
void softmax(const View& x, float* y, std::int64_t n, std::int64_t classes);

// ---- cpu_conv_pool.cpp (NHWC) ---------------------------------------------------------------
// cols [g.col_rows(), g.col_cols()] from x [batch, in_h, in_w, in_c]; both storage.
void im2col(const Conv2DGeometry& g, const View& x, const View& cols, ThreadPool& pool);
// dx [batch, in_h, in_w, in_c] = gathered sum of dcols [g.col_rows(), g.col_cols()].
void col2im(const Conv2DGeometry& g, const View& dcols, const View& dx, ThreadPool& pool);
// y [batch, out_h, out_w, c] = window max of x [batch, in_h, in_w, c]; argmax [like y] = flat
// index into x of the first maximum.
void maxpool(const Pool2DGeometry& g, const View& x, const View& y, std::int32_t* argmax,
             ThreadPool& pool);
// dx [like x] = dy [like y] at argmax positions inside each window, 0 elsewhere.
void maxpool_backward(const Pool2DGeometry& g, const View& dy, const std::int32_t* argmax,
                      const View& dx, ThreadPool& pool);

// ---- cpu_optimizers.cpp (all [n] F32) -------------------------------------------------------
// velocity = momentum * velocity - lr * grad; param += velocity. With momentum == 0 the old
// velocity is not read (so an uninitialised one cannot poison param).
void sgd_update(float* param, const float* grad, float* velocity, std::int64_t n,
                float learning_rate, float momentum, ThreadPool& pool);
// Keras Adam at step >= 1 (see backend.hpp).
void adam_update(float* param, const float* grad, float* m, float* v, std::int64_t n,
                 const AdamConfig& config, std::int64_t step, ThreadPool& pool);

}  // namespace ts::cpu
