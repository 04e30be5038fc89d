#include "engine/data/transforms.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <trainscope/trace.hpp>
#include <utility>

#include "engine/data/seed_mix.hpp"

namespace ts {
namespace {

constexpr std::uint64_t kEpochSalt = 0x61756720'65706f63ull;   // "aug epoc"
constexpr std::uint64_t kSampleSalt = 0x61756720'73616d70ull;  // "aug samp"

// Where output coordinate i of out_size samples an axis of in_size (TF's
// compute_interpolation_weights with half-pixel centres).
struct Tap {
  std::int64_t lower, upper;
  float lerp;
};

Tap tap(std::int64_t i, std::int64_t in_size, float scale) {
  const float at = (static_cast<float>(i) + 0.5f) * scale - 0.5f;
  const float floor_at = std::floor(at);
  return {std::max<std::int64_t>(static_cast<std::int64_t>(floor_at), 0),
          std::min<std::int64_t>(static_cast<std::int64_t>(std::ceil(at)), in_size - 1),
          at - floor_at};
}

}  // namespace

Rng sample_rng(std::uint64_t seed, std::uint64_t epoch, std::uint64_t index) {
  return Rng(derive_seed(derive_seed(seed, kEpochSalt, epoch), kSampleSalt, index));
}

void resize_bilinear(const float* in, std::int64_t h, std::int64_t w, std::int64_t c, float* out,
                     std::int64_t out_h, std::int64_t out_w) {
  if (out_h == h && out_w == w) {
    std::copy(in, in + h * w * c, out);
    return;
  }
  const float scale_y = static_cast<float>(h) / static_cast<float>(out_h);
  const float scale_x = static_cast<float>(w) / static_cast<float>(out_w);
  for (std::int64_t y = 0; y < out_h; ++y) {
    const Tap ty = tap(y, h, scale_y);
    const float* top_row = in + ty.lower * w * c;
    const float* bottom_row = in + ty.upper * w * c;
    float* dst = out + y * out_w * c;
    for (std::int64_t x = 0; x < out_w; ++x) {
      const Tap tx = tap(x, w, scale_x);
      for (std::int64_t ch = 0; ch < c; ++ch) {
        const float tl = top_row[tx.lower * c + ch], tr = top_row[tx.upper * c + ch];
        const float bl = bottom_row[tx.lower * c + ch], br = bottom_row[tx.upper * c + ch];
        const float top = tl + (tr - tl) * tx.lerp;
        const float bottom = bl + (br - bl) * tx.lerp;
        dst[x * c + ch] = top + (bottom - top) * ty.lerp;
      }
    }
  }
}

void shift_image(const float* in, std::int64_t h, std::int64_t w, std::int64_t c, std::int64_t dy,
                 std::int64_t dx, float* out) {
  std::fill(out, out + h * w * c, 0.0f);
  // Output columns [x0, x1) read input columns [x0 - dx, x1 - dx), all inside [0, w).
  const std::int64_t x0 = std::clamp<std::int64_t>(dx, 0, w);
  const std::int64_t x1 = std::clamp<std::int64_t>(w + dx, 0, w);
  if (x0 >= x1) return;
  for (std::int64_t y = std::max<std::int64_t>(dy, 0); y < std::min(h, h + dy); ++y) {
    const float* src = in + ((y - dy) * w + (x0 - dx)) * c;
    std::copy(src, src + (x1 - x0) * c, out + (y * w + x0) * c);
  }
}

void crop_padded(const float* in, std::int64_t h, std::int64_t w, std::int64_t c, std::int64_t pad,
                 std::int64_t top, std::int64_t left, float* out) {
  // padded[y + top, x + left] = in[y + top - pad, x + left - pad]: a shift by (pad - top, ...).
  shift_image(in, h, w, c, pad - top, pad - left, out);
}

void random_crop(const float* in, std::int64_t h, std::int64_t w, std::int64_t c, std::int64_t pad,
                 Rng& rng, float* out) {
  const auto span = static_cast<std::uint64_t>(2 * pad + 1);
  const auto top = static_cast<std::int64_t>(rng.below(span));
  const auto left = static_cast<std::int64_t>(rng.below(span));
  crop_padded(in, h, w, c, pad, top, left, out);
}

void random_shift(const float* in, std::int64_t h, std::int64_t w, std::int64_t c,
                  std::int64_t max_shift, Rng& rng, float* out) {
  const auto span = static_cast<std::uint64_t>(2 * max_shift + 1);
  const std::int64_t dy = static_cast<std::int64_t>(rng.below(span)) - max_shift;
  const std::int64_t dx = static_cast<std::int64_t>(rng.below(span)) - max_shift;
  shift_image(in, h, w, c, dy, dx, out);
}

void flip_horizontal(float* x, std::int64_t h, std::int64_t w, std::int64_t c) {
  for (std::int64_t y = 0; y < h; ++y) {
    float* row = x + y * w * c;
    for (std::int64_t left = 0, right = w - 1; left < right; ++left, --right)
      std::swap_ranges(row + left * c, row + (left + 1) * c, row + right * c);
  }
}

bool random_flip_horizontal(float* x, std::int64_t h, std::int64_t w, std::int64_t c, Rng& rng) {
  const bool flip = rng.uniform() < 0.5f;
  if (flip) flip_horizontal(x, h, w, c);
  return flip;
}

void add_noise(float* x, std::int64_t n, float stddev, Rng& rng) {
  for (std::int64_t i = 0; i < n; ++i) x[i] = std::clamp(x[i] + stddev * rng.normal(), 0.0f, 1.0f);
}

void normalise(float* x, std::int64_t pixels, std::int64_t c, std::span<const float> mean,
               std::span<const float> std) {
  const auto per_channel = [&](std::span<const float> v) {
    return v.size() == static_cast<std::size_t>(c) || v.size() == 1;
  };
  if (!per_channel(mean) || !per_channel(std)) {
    throw std::invalid_argument("normalise: mean and std need 1 or " + std::to_string(c) +
                                " values, not " + std::to_string(mean.size()) + " and " +
                                std::to_string(std.size()));
  }
  for (const float s : std)
    if (!(s > 0.0f)) throw std::invalid_argument("normalise: std must be > 0");
  for (std::int64_t p = 0; p < pixels; ++p)
    for (std::int64_t ch = 0; ch < c; ++ch) {
      const std::size_t im = mean.size() == 1 ? 0 : static_cast<std::size_t>(ch);
      const std::size_t is = std.size() == 1 ? 0 : static_cast<std::size_t>(ch);
      x[p * c + ch] = (x[p * c + ch] - mean[im]) / std[is];
    }
}

void one_hot(const std::int32_t* labels, std::int64_t n, int classes, float* out) {
  std::fill(out, out + n * classes, 0.0f);
  for (std::int64_t i = 0; i < n; ++i) {
    if (labels[i] < 0 || labels[i] >= classes) {
      throw std::invalid_argument("one_hot: label " + std::to_string(labels[i]) + " at index " +
                                  std::to_string(i) + " is outside [0, " + std::to_string(classes) +
                                  ")");
    }
    out[i * classes + labels[i]] = 1.0f;
  }
}

std::vector<float> one_hot(std::span<const std::int32_t> labels, int classes) {
  std::vector<float> out(labels.size() * static_cast<std::size_t>(std::max(classes, 0)));
  one_hot(labels.data(), static_cast<std::int64_t>(labels.size()), classes, out.data());
  return out;
}

std::string Augmentation::to_string() const {
  std::string s;
  const auto add = [&](const std::string& item) { s += (s.empty() ? "" : ",") + item; };
  if (crop_pad > 0) add("crop:" + std::to_string(crop_pad));
  if (max_shift > 0) add("shift:" + std::to_string(max_shift));
  if (flip) add("flip");
  if (noise_stddev > 0.0f) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "noise:%g", static_cast<double>(noise_stddev));
    add(buf);
  }
  return s.empty() ? "none" : s;
}

void apply_augmentation(const Augmentation& aug, Rng& rng, float* sample, std::int64_t h,
                        std::int64_t w, std::int64_t c, std::vector<float>& scratch) {
  if (!aug.any()) return;
  TS_ZONE("augment", input_map);
  const std::int64_t n = h * w * c;
  float* current = sample;  // holds the image so far; the other buffer receives the next step
  float* other = nullptr;
  if (aug.crop_pad > 0 || aug.max_shift > 0) {
    scratch.resize(static_cast<std::size_t>(n));
    other = scratch.data();
  }
  if (aug.crop_pad > 0) {
    random_crop(current, h, w, c, aug.crop_pad, rng, other);
    std::swap(current, other);
  }
  if (aug.max_shift > 0) {
    random_shift(current, h, w, c, aug.max_shift, rng, other);
    std::swap(current, other);
  }
  if (aug.flip) random_flip_horizontal(current, h, w, c, rng);
  if (aug.noise_stddev > 0.0f) add_noise(current, n, aug.noise_stddev, rng);
  if (current != sample) std::copy(current, current + n, sample);
}

}  // namespace ts
