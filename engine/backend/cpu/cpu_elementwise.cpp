// Element-wise kernels, bias, dropout, reductions: plain loops the compiler vectorises, F16
// storage going through f32 blocks on the stack.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/backend/cpu/cpu_kernels.hpp"
#include "engine/backend/cpu/cpu_parallel.hpp"
#include "engine/core/rng.hpp"

namespace ts::cpu {
namespace {

// Memory-bound loops are split into chunks of at least this many elements.
constexpr std::int64_t kMinPerChunk = 1 << 16;

std::int32_t to_int32(float v) {
  if (!(v == v)) return 0;
  if (v >= 2147483648.0f) return std::numeric_limits<std::int32_t>::max();
  if (v <= -2147483648.0f) return std::numeric_limits<std::int32_t>::min();
  return static_cast<std::int32_t>(v);
}

// Elements [begin, begin+len) of any-dtype v as f32 (I32 converted exactly up to 2^24).
const float* load_any(const View& v, std::int64_t begin, std::int64_t len, float* tmp) {
  if (v.dtype != DType::I32) return load_f32(v, begin, len, tmp);
  const std::int32_t* p = v.i32() + begin;
  for (std::int64_t i = 0; i < len; ++i) tmp[i] = static_cast<float>(p[i]);
  return tmp;
}

// Sum of p[0, len) with 16 independent partial sums (vectorised).
float block_sum(const float* p, std::int64_t len) {
  float acc[16] = {};
  std::int64_t i = 0;
  for (; i + 16 <= len; i += 16)
    for (int j = 0; j < 16; ++j) acc[j] += p[i + j];
  float s = 0.0f;
  for (; i < len; ++i) s += p[i];
  for (float a : acc) s += a;
  return s;
}

// x [begin, end) *= factor; true if any of them is then inf or NaN (all exponent bits set),
// found with an integer OR-reduction that vectorises.
bool scale_range(float* __restrict x, std::int64_t begin, std::int64_t end, float factor) {
  std::uint32_t non_finite = 0;
  for (std::int64_t i = begin; i < end; ++i) {
    const float v = x[i] * factor;
    x[i] = v;
    non_finite |= (std::bit_cast<std::uint32_t>(v) & 0x7f800000u) == 0x7f800000u;
  }
  return non_finite != 0;
}

}  // namespace

// dst [n] = src [n], any dtypes.
void convert(const View& src, const View& dst) {
  const std::int64_t n = dst.numel;
  if (src.dtype == dst.dtype) {
    std::memmove(dst.data, src.data, static_cast<std::size_t>(n) * dtype_size(dst.dtype));
  } else if (src.dtype == DType::F32 && dst.dtype == DType::F16) {
    floats_to_halves(src.f32(), dst.f16(), n);
  } else if (src.dtype == DType::F16 && dst.dtype == DType::F32) {
    halves_to_floats(src.f16(), dst.f32(), n);
  } else {  // to or from I32
    alignas(64) float tmp[kBlock];
    alignas(64) float out[kBlock];
    for_blocks(0, n, [&](std::int64_t b, std::int64_t len) {
      const float* x = load_any(src, b, len, tmp);
      if (dst.dtype == DType::I32) {
        for (std::int64_t i = 0; i < len; ++i) dst.i32()[b + i] = to_int32(x[i]);
      } else {
        float* y = out_f32(dst, b, out);
        std::copy_n(x, len, y);
        commit_f32(dst, b, len, y);
      }
    });
  }
}

// t [n] = value.
void fill(const View& t, float value) {
  switch (t.dtype) {
    case DType::F32:
      std::fill_n(t.f32(), t.numel, value);
      break;
    case DType::F16:
      std::fill_n(t.f16(), t.numel, float_to_half(value));
      break;
    case DType::I32:
      std::fill_n(t.i32(), t.numel, to_int32(value));
      break;
  }
}

// y [rows, cols] += bias [cols].
void bias_add(const View& y, const float* bias, std::int64_t cols) {
  const std::int64_t rows = y.numel / cols;
  if (y.dtype == DType::F32) {
    for (std::int64_t r = 0; r < rows; ++r) {
      float* __restrict row = y.f32() + r * cols;
      const float* __restrict b = bias;
      for (std::int64_t c = 0; c < cols; ++c) row[c] += b[c];
    }
    return;
  }
  alignas(64) float tmp[kBlock];
  for (std::int64_t r = 0; r < rows; ++r) {
    for_blocks(r * cols, (r + 1) * cols, [&](std::int64_t b, std::int64_t len) {
      halves_to_floats(y.f16() + b, tmp, len);
      const float* bb = bias + (b - r * cols);
      for (std::int64_t c = 0; c < len; ++c) tmp[c] += bb[c];
      floats_to_halves(tmp, y.f16() + b, len);
    });
  }
}

// grad_bias [cols] (+)= sum over rows of dy [rows, cols].
void bias_grad(const View& dy, float* grad_bias, std::int64_t cols, bool accumulate) {
  const std::int64_t rows = dy.numel / cols;
  if (!accumulate) std::fill_n(grad_bias, cols, 0.0f);
  alignas(64) float tmp[kBlock];
  for (std::int64_t r = 0; r < rows; ++r) {
    for_blocks(r * cols, (r + 1) * cols, [&](std::int64_t b, std::int64_t len) {
      const float* __restrict x = load_f32(dy, b, len, tmp);
      float* __restrict g = grad_bias + (b - r * cols);
      for (std::int64_t c = 0; c < len; ++c) g[c] += x[c];
    });
  }
}

// y [n] = max(x [n], 0).
void relu(const View& x, const View& y, ThreadPool& pool) {
  parallel_for(pool, x.numel, kMinPerChunk, [&](std::int64_t begin, std::int64_t end) {
    alignas(64) float tx[kBlock];
    alignas(64) float ty[kBlock];
    for_blocks(begin, end, [&](std::int64_t b, std::int64_t len) {
      const float* in = load_f32(x, b, len, tx);
      float* out = out_f32(y, b, ty);
#pragma GCC ivdep
      for (std::int64_t i = 0; i < len; ++i) out[i] = in[i] > 0.0f ? in[i] : 0.0f;
      commit_f32(y, b, len, out);
    });
  });
}

// dx [n] = dy [n] * (y [n] > 0).
void relu_backward(const View& y, const View& dy, const View& dx, ThreadPool& pool) {
  parallel_for(pool, y.numel, kMinPerChunk, [&](std::int64_t begin, std::int64_t end) {
    alignas(64) float ty[kBlock];
    alignas(64) float tdy[kBlock];
    alignas(64) float tdx[kBlock];
    for_blocks(begin, end, [&](std::int64_t b, std::int64_t len) {
      const float* yy = load_f32(y, b, len, ty);
      const float* g = load_f32(dy, b, len, tdy);
      float* out = out_f32(dx, b, tdx);
#pragma GCC ivdep
      for (std::int64_t i = 0; i < len; ++i) out[i] = g[i] * (yy[i] > 0.0f ? 1.0f : 0.0f);
      commit_f32(dx, b, len, out);
    });
  });
}

// mask [n] = keep ? 1/(1-rate) : 0; y [n] = x [n] * mask.
void dropout(const View& x, float rate, std::uint32_t seed, float* mask, const View& y,
             ThreadPool& pool) {
  const float keep_scale = 1.0f / (1.0f - rate);
  parallel_for(pool, x.numel, kMinPerChunk, [&](std::int64_t begin, std::int64_t end) {
    alignas(64) float tx[kBlock];
    alignas(64) float ty[kBlock];
    for_blocks(begin, end, [&](std::int64_t b, std::int64_t len) {
      const float* in = load_f32(x, b, len, tx);
      float* out = out_f32(y, b, ty);
      float* __restrict mk = mask + b;
      // Locals, not the captured references: stores to out could alias those, which would stop
      // the loop from vectorising.
      const float r = rate, scale = keep_scale;
      const std::uint32_t s = seed;
#pragma GCC ivdep
      for (std::int64_t i = 0; i < len; ++i) {
        const auto index = static_cast<std::uint32_t>(b + i);
        const float m = hash_uniform(s, index) >= r ? scale : 0.0f;
        mk[i] = m;
        out[i] = in[i] * m;
      }
      commit_f32(y, b, len, out);
    });
  });
}

// dx [n] = dy [n] * mask [n].
void dropout_backward(const View& dy, const float* mask, const View& dx, ThreadPool& pool) {
  parallel_for(pool, dy.numel, kMinPerChunk, [&](std::int64_t begin, std::int64_t end) {
    alignas(64) float tdy[kBlock];
    alignas(64) float tdx[kBlock];
    for_blocks(begin, end, [&](std::int64_t b, std::int64_t len) {
      const float* g = load_f32(dy, b, len, tdy);
      float* out = out_f32(dx, b, tdx);
      const float* mk = mask + b;
#pragma GCC ivdep
      for (std::int64_t i = 0; i < len; ++i) out[i] = g[i] * mk[i];
      commit_f32(dx, b, len, out);
    });
  });
}

// Sum of x [n].
float sum(const View& x) {
  double total = 0.0;
  alignas(64) float tmp[kBlock];
  for_blocks(0, x.numel, [&](std::int64_t b, std::int64_t len) {
    total += block_sum(load_f32(x, b, len, tmp), len);
  });
  return static_cast<float>(total);
}

// x [n] *= factor; true if any element is then inf or NaN.
bool scale_and_check_finite(float* x, std::int64_t n, float factor, ThreadPool& pool) {
  std::atomic<bool> bad{false};
  parallel_for(pool, n, kMinPerChunk, [&](std::int64_t begin, std::int64_t end) {
    if (scale_range(x, begin, end, factor)) bad.store(true, std::memory_order_relaxed);
  });
  return bad.load();
}

}  // namespace ts::cpu
