// NHWC im2col / col2im for convolutions and non-overlapping max pooling. Work is split over
// threads by output rows (im2col, maxpool) or by input pixels (col2im, which gathers, so no two
// threads ever write the same element).
#include <algorithm>
#include <cstring>

#include "engine/backend/cpu/cpu_kernels.hpp"
#include "engine/backend/cpu/cpu_parallel.hpp"

namespace ts::cpu {
namespace {

// Channels handled at once with f32 temporaries on the stack.
constexpr std::int64_t kChunk = 256;
// Elements each thread should at least get before a loop is split.
constexpr std::int64_t kMinElementsPerThread = 1 << 15;

std::int64_t min_items(std::int64_t elements_per_item) {
  return std::max<std::int64_t>(
      1, kMinElementsPerThread / std::max<std::int64_t>(1, elements_per_item));
}

// dst[d, d+len) = src[s, s+len), converting between F32 and F16 when the dtypes differ.
void copy_elems(const View& src, std::int64_t s, const View& dst, std::int64_t d,
                std::int64_t len) {
  if (src.dtype == dst.dtype) {
    const std::size_t size = dtype_size(src.dtype);
    std::memcpy(dst.data + d * size, src.data + s * size, static_cast<std::size_t>(len) * size);
  } else if (src.dtype == DType::F32) {
    floats_to_halves(src.f32() + s, dst.f16() + d, len);
  } else {
    halves_to_floats(src.f16() + s, dst.f32() + d, len);
  }
}

// dst[d, d+len) = 0 (all-zero bits are +0 in f32 and f16).
void zero_elems(const View& dst, std::int64_t d, std::int64_t len) {
  if (len <= 0) return;
  const std::size_t size = dtype_size(dst.dtype);
  std::memset(dst.data + d * size, 0, static_cast<std::size_t>(len) * size);
}

// (image, row, column) of a flat index over [batch, h, w], stepped without divisions.
struct PixelIndex {
  std::int64_t h, w, b, y, x;
  PixelIndex(std::int64_t flat, std::int64_t height, std::int64_t width)
      : h(height), w(width), b(flat / (h * w)), y(flat / w % h), x(flat % w) {}
  void next() {
    if (++x < w) return;
    x = 0;
    if (++y < h) return;
    y = 0;
    ++b;
  }
};

// The output positions o in [0, out) whose window covers input position i, i.e. those with
// o*s - pad + k == i for some kernel offset k in [0, kernel): [*lo, *hi], empty when lo > hi.
void outputs_using(std::int64_t i, std::int64_t pad, std::int64_t kernel, std::int64_t s,
                   std::int64_t out, std::int64_t* lo, std::int64_t* hi) {
  const std::int64_t first = i + pad - kernel + 1, last = i + pad;  // o*s ranges over these
  *lo = first <= 0 ? 0 : (first + s - 1) / s;
  *hi = last < 0 ? -1 : std::min(out - 1, last / s);
}

}  // namespace

// cols [batch*out_h*out_w, kernel_h*kernel_w*in_c] from x [batch, in_h, in_w, in_c].
void im2col(const Conv2DGeometry& g, const View& x, const View& cols, ThreadPool& pool) {
  const std::int64_t oh = g.out_h(), ow = g.out_w(), c = g.in_c, kw = g.kernel_w;
  const std::int64_t ncols = g.col_cols();
  parallel_for(pool, g.col_rows(), min_items(ncols), [&](std::int64_t r0, std::int64_t r1) {
    PixelIndex at(r0, oh, ow);
    for (std::int64_t r = r0; r < r1; ++r, at.next()) {
      const std::int64_t b = at.b, oy = at.y, ox = at.x;
      const std::int64_t x0 = ox * g.stride - g.pad;  // input column under kernel column 0
      // Kernel columns [lo, hi) fall inside the image; their pixels are contiguous in x.
      const std::int64_t lo = std::clamp<std::int64_t>(-x0, 0, kw);
      const std::int64_t hi = std::clamp<std::int64_t>(g.in_w - x0, lo, kw);
      for (std::int64_t kh = 0; kh < g.kernel_h; ++kh) {
        const std::int64_t iy = oy * g.stride - g.pad + kh;
        const std::int64_t d = r * ncols + kh * kw * c;
        if (iy < 0 || iy >= g.in_h || lo == hi) {
          zero_elems(cols, d, kw * c);
          continue;
        }
        zero_elems(cols, d, lo * c);
        copy_elems(x, ((b * g.in_h + iy) * g.in_w + x0 + lo) * c, cols, d + lo * c, (hi - lo) * c);
        zero_elems(cols, d + hi * c, (kw - hi) * c);
      }
    }
  });
}

// dx [batch, in_h, in_w, in_c] = sum of the dcols entries copied from each pixel.
void col2im(const Conv2DGeometry& g, const View& dcols, const View& dx, ThreadPool& pool) {
  const std::int64_t oh = g.out_h(), ow = g.out_w(), c = g.in_c, kw = g.kernel_w;
  const std::int64_t ncols = g.col_cols(), s = g.stride;
  const std::int64_t pixels = g.batch * g.in_h * g.in_w;
  parallel_for(pool, pixels, min_items(c * g.kernel_h * kw), [&](std::int64_t p0, std::int64_t p1) {
    alignas(64) float acc_tmp[kChunk];
    alignas(64) float seg_tmp[kChunk];
    PixelIndex at(p0, g.in_h, g.in_w);
    for (std::int64_t p = p0; p < p1; ++p, at.next()) {
      // Outputs (oy, ox) whose window covered this pixel, through kernel (kh, kw).
      std::int64_t oy_lo, oy_hi, ox_lo, ox_hi;
      outputs_using(at.y, g.pad, g.kernel_h, s, oh, &oy_lo, &oy_hi);
      outputs_using(at.x, g.pad, kw, s, ow, &ox_lo, &ox_hi);
      for (std::int64_t c0 = 0; c0 < c; c0 += kChunk) {
        const std::int64_t len = std::min(kChunk, c - c0);
        float* __restrict acc = out_f32(dx, p * c + c0, acc_tmp);
        std::fill_n(acc, len, 0.0f);
        for (std::int64_t oy = oy_hi; oy >= oy_lo; --oy) {  // kernel rows in ascending order
          const std::int64_t kh = at.y + g.pad - oy * s;
          for (std::int64_t ox = ox_hi; ox >= ox_lo; --ox) {
            const std::int64_t k = at.x + g.pad - ox * s;
            const std::int64_t src = ((at.b * oh + oy) * ow + ox) * ncols + (kh * kw + k) * c;
            const float* __restrict seg = load_f32(dcols, src + c0, len, seg_tmp);
            for (std::int64_t i = 0; i < len; ++i) acc[i] += seg[i];
          }
        }
        commit_f32(dx, p * c + c0, len, acc);
      }
    }
  });
}

// y [batch, out_h, out_w, c] and argmax [same] from x [batch, in_h, in_w, c].
void maxpool(const Pool2DGeometry& g, const View& x, const View& y, std::int32_t* argmax,
             ThreadPool& pool) {
  const std::int64_t oh = g.out_h(), ow = g.out_w(), c = g.channels, k = g.pool;
  parallel_for(
      pool, g.batch * oh * ow, min_items(c * k * k), [&](std::int64_t q0, std::int64_t q1) {
        alignas(64) float best_tmp[kChunk];
        alignas(64) float seg_tmp[kChunk];
        alignas(64) std::int32_t arg[kChunk];
        PixelIndex at(q0, oh, ow);
        for (std::int64_t q = q0; q < q1; ++q, at.next()) {
          const std::int64_t b = at.b, oy = at.y, ox = at.x;
          for (std::int64_t c0 = 0; c0 < c; c0 += kChunk) {
            const std::int64_t len = std::min(kChunk, c - c0);
            float* __restrict best = out_f32(y, q * c + c0, best_tmp);
            for (std::int64_t i = 0; i < k; ++i) {
              for (std::int64_t j = 0; j < k; ++j) {
                const std::int64_t pos = ((b * g.in_h + oy * k + i) * g.in_w + ox * k + j) * c + c0;
                const float* __restrict v = load_f32(x, pos, len, seg_tmp);
                const auto base = static_cast<std::int32_t>(pos);
                if (i == 0 && j == 0) {
                  for (std::int64_t e = 0; e < len; ++e) {
                    best[e] = v[e];
                    arg[e] = base + static_cast<std::int32_t>(e);
                  }
                  continue;
                }
                for (std::int64_t e = 0; e < len; ++e) {  // strictly greater: first maximum wins
                  const bool greater = v[e] > best[e];
                  best[e] = greater ? v[e] : best[e];
                  arg[e] = greater ? base + static_cast<std::int32_t>(e) : arg[e];
                }
              }
            }
            commit_f32(y, q * c + c0, len, best);
            std::copy_n(arg, len, argmax + q * c + c0);
          }
        }
      });
}

// dx [batch, in_h, in_w, c] = dy [batch, out_h, out_w, c] routed to argmax, 0 elsewhere.
void maxpool_backward(const Pool2DGeometry& g, const View& dy, const std::int32_t* argmax,
                      const View& dx, ThreadPool& pool) {
  const std::int64_t oh = g.out_h(), ow = g.out_w(), c = g.channels, k = g.pool;
  // Rows and columns beyond the last whole window belong to no window.
  if (g.in_h != oh * k || g.in_w != ow * k) zero_elems(dx, 0, dx.numel);
  parallel_for(
      pool, g.batch * oh * ow, min_items(c * k * k), [&](std::int64_t q0, std::int64_t q1) {
        alignas(64) float grad_tmp[kChunk];
        alignas(64) float out_tmp[kChunk];
        PixelIndex at(q0, oh, ow);
        for (std::int64_t q = q0; q < q1; ++q, at.next()) {
          const std::int64_t b = at.b, oy = at.y, ox = at.x;
          for (std::int64_t c0 = 0; c0 < c; c0 += kChunk) {
            const std::int64_t len = std::min(kChunk, c - c0);
            const float* __restrict grad = load_f32(dy, q * c + c0, len, grad_tmp);
            const std::int32_t* __restrict arg = argmax + q * c + c0;
            // Every window position is written, so windows never need zeroing first.
            for (std::int64_t i = 0; i < k; ++i) {
              for (std::int64_t j = 0; j < k; ++j) {
                const std::int64_t pos = ((b * g.in_h + oy * k + i) * g.in_w + ox * k + j) * c + c0;
                float* __restrict out = out_f32(dx, pos, out_tmp);
                for (std::int64_t e = 0; e < len; ++e) out[e] = arg[e] == pos + e ? grad[e] : 0.0f;
                commit_f32(dx, pos, len, out);
              }
            }
          }
        }
      });
}

}  // namespace ts::cpu
