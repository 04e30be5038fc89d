// Softmax over the last axis, fused with categorical cross-entropy, and its gradient.
// GCC 12 warns about the deliberately undefined registers in its own AVX-512 intrinsics
// (GCC PR 105593, fixed in GCC 13); the pragmas must precede the first intrinsics include.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#define EIGEN_DONT_PARALLELIZE
#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "engine/backend/cpu/cpu_kernels.hpp"

namespace ts::cpu {
namespace {

// probs [classes] = softmax(row [classes]); row may equal probs. Returns the index of the first
// maximum of row.
std::int64_t softmax_row(const float* row, float* probs, std::int64_t classes) {
  std::int64_t best = 0;
  for (std::int64_t c = 1; c < classes; ++c)
    if (row[c] > row[best]) best = c;
  const float max = row[best];
  Eigen::Map<const Eigen::ArrayXf> x(row, classes);
  Eigen::Map<Eigen::ArrayXf> p(probs, classes);
  p = (x - max).exp();
  p /= p.sum();
  return best;
}

// Row r of storage x [n, classes] as f32: a pointer into x (F32) or into out (F16, converted).
const float* row_f32(const View& x, std::int64_t r, std::int64_t classes, float* out) {
  if (x.dtype == DType::F32) return x.f32() + r * classes;
  halves_to_floats(x.f16() + r * classes, out, classes);
  return out;
}

}  // namespace

// logits [n, classes] -> probs [n, classes], loss [n], correct [n].
void softmax_xent(const View& logits, const std::int32_t* labels, float* probs, float* loss,
                  float* correct, std::int64_t n, std::int64_t classes) {
  for (std::int64_t r = 0; r < n; ++r) {
    float* p = probs + r * classes;
    const std::int64_t best = softmax_row(row_f32(logits, r, classes, p), p, classes);
    const std::int32_t label = labels[r];
    const bool valid = label >= 0 && label < classes;
    const float p_label = valid ? p[label] : 0.0f;
    loss[r] = -std::log(std::max(p_label, 1e-12f));
    correct[r] = valid && best == label ? 1.0f : 0.0f;
  }
}

// dlogits [n, classes] = scale * (probs [n, classes] - onehot(labels [n])).
void softmax_xent_backward(const float* probs, const std::int32_t* labels, float scale,
                           const View& dlogits, std::int64_t n, std::int64_t classes) {
  alignas(64) float tmp[kBlock];
  for (std::int64_t r = 0; r < n; ++r) {
    const std::int32_t label = labels[r];
    for_blocks(r * classes, (r + 1) * classes, [&](std::int64_t b, std::int64_t len) {
      const float* __restrict p = probs + b;
      float* __restrict out = out_f32(dlogits, b, tmp);
      for (std::int64_t i = 0; i < len; ++i) out[i] = scale * p[i];
      const std::int64_t at = r * classes + label - b;  // the label's column in this block
      if (label >= 0 && label < classes && at >= 0 && at < len) out[at] = scale * (p[at] - 1.0f);
      commit_f32(dlogits, b, len, out);
    });
  }
}

// y [n, classes] F32 = softmax(x [n, classes]).
void softmax(const View& x, float* y, std::int64_t n, std::int64_t classes) {
  for (std::int64_t r = 0; r < n; ++r) {
    float* out = y + r * classes;
    softmax_row(row_f32(x, r, classes, out), out, classes);
  }
}

}  // namespace ts::cpu
