// Per-sample transforms of f32 images [height, width, channels] (one NHWC image, row-major) and
// the augmentation a user asks for with a string such as "crop:2,shift:2,flip,noise:0.05".
// Random transforms draw from an Rng the caller makes with sample_rng(seed, epoch, index), so a
// sample's augmentation is the same whichever worker thread computes it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/core/rng.hpp"

namespace ts {

// The generator for sample `index` in epoch `epoch` of a run seeded with `seed`: a function of
// these three numbers only. Nearby seeds, epochs and indices give unrelated streams.
Rng sample_rng(std::uint64_t seed, std::uint64_t epoch, std::uint64_t index);

// in [h, w, c] -> out [out_h, out_w, c], bilinear, align_corners=false with half-pixel centres
// (TF's resize_bilinear(half_pixel_centers=true), PyTorch's interpolate(align_corners=False)):
// output pixel (y, x) samples the input at ((y + 0.5) h / out_h - 0.5, (x + 0.5) w / out_w - 0.5),
// coordinates clamped to the edge pixels. Same size copies. out must not alias in.
void resize_bilinear(const float* in, std::int64_t h, std::int64_t w, std::int64_t c, float* out,
                     std::int64_t out_h, std::int64_t out_w);

// in [h, w, c] -> out [h, w, c]: out[y, x] = in[y - dy, x - dx], zero where that falls outside
// (the content moves down by dy and right by dx). out must not alias in.
void shift_image(const float* in, std::int64_t h, std::int64_t w, std::int64_t c, std::int64_t dy,
                 std::int64_t dx, float* out);

// in [h, w, c] -> out [h, w, c]: the h x w window at (top, left) of in zero-padded by `pad` on
// every side, i.e. out[y, x] = padded[y + top, x + left] with top, left in [0, 2 pad].
// out must not alias in.
void crop_padded(const float* in, std::int64_t h, std::int64_t w, std::int64_t c, std::int64_t pad,
                 std::int64_t top, std::int64_t left, float* out);

// crop_padded at a uniformly random (top, left) in [0, 2 pad]^2 (Keras' RandomCrop after
// ZeroPadding2D(pad)). Draws top, then left.
void random_crop(const float* in, std::int64_t h, std::int64_t w, std::int64_t c, std::int64_t pad,
                 Rng& rng, float* out);

// shift_image by (dy, dx) uniform in [-max_shift, max_shift]^2. Draws dy, then dx.
void random_shift(const float* in, std::int64_t h, std::int64_t w, std::int64_t c,
                  std::int64_t max_shift, Rng& rng, float* out);

// x [h, w, c], in place: mirrors left-right, x[y, x] <-> x[y, w - 1 - x].
void flip_horizontal(float* x, std::int64_t h, std::int64_t w, std::int64_t c);

// x [h, w, c], in place: flip_horizontal with probability 0.5 (one draw). Returns whether it did.
bool random_flip_horizontal(float* x, std::int64_t h, std::int64_t w, std::int64_t c, Rng& rng);

// x [n], in place: x += N(0, stddev^2), one rng.normal() per element in order, clamped to [0, 1].
void add_noise(float* x, std::int64_t n, float stddev, Rng& rng);

// x [pixels, c], in place: x[p, ch] = (x[p, ch] - mean[ch]) / std[ch]. mean and std hold either c
// values or one value used for every channel. Throws std::invalid_argument on other sizes or a
// std that is not > 0.
void normalise(float* x, std::int64_t pixels, std::int64_t c, std::span<const float> mean,
               std::span<const float> std);

// labels [n] i32 -> out [n, classes] f32: out[i, labels[i]] = 1, every other entry 0.
// Throws std::invalid_argument for a label outside [0, classes).
void one_hot(const std::int32_t* labels, std::int64_t n, int classes, float* out);
std::vector<float> one_hot(std::span<const std::int32_t> labels, int classes);

// The random transforms applied to each training sample. Zero / false disables one.
struct Augmentation {
  std::int64_t crop_pad = 0;   // crop:P   random_crop with pad P
  std::int64_t max_shift = 0;  // shift:S  random_shift by up to S pixels
  bool flip = false;           // flip     random_flip_horizontal
  float noise_stddev = 0.0f;   // noise:SIGMA  add_noise with stddev SIGMA

  bool any() const { return crop_pad > 0 || max_shift > 0 || flip || noise_stddev > 0.0f; }
  // The canonical text, in application order, e.g. "crop:2,shift:2,flip,noise:0.05"; "none".
  std::string to_string() const;
  bool operator==(const Augmentation&) const = default;
};

inline constexpr std::int64_t kMaxAugmentPixels = 256;  // the largest crop pad and shift

// sample [h, w, c], in place: applies the enabled transforms in a fixed order — crop, shift,
// flip, noise — drawing from rng in that order. scratch is resized to h * w * c when crop or shift
// is enabled and reused between calls. Records an "augment" zone (input_map) when any is enabled.
void apply_augmentation(const Augmentation& aug, Rng& rng, float* sample, std::int64_t h,
                        std::int64_t w, std::int64_t c, std::vector<float>& scratch);

}  // namespace ts
