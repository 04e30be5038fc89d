#include "engine/data/synthetic.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/core/rng.hpp"
#include "engine/data/digit_glyphs.hpp"
#include "engine/data/seed_mix.hpp"
#include "engine/data/stroke_raster.hpp"

namespace ts {
namespace {

constexpr int kSide = 28;
constexpr std::uint64_t kLabelSalt = 0x6c6162656c73ull;  // "labels"
constexpr std::uint64_t kImageSalt = 0x696d61676573ull;  // "images"

// Per-image pose and pen: how the glyph (unit height, centred on 0) lands on the canvas.
struct Pose {
  float height_px, width_scale, rotation, slant, cx, cy;
  float warp_ax, warp_fx, warp_px, warp_ay, warp_fy, warp_py;  // smooth wobble of the strokes
  float pen_radius, ink, noise;
};

Pose random_pose(Rng& rng) {
  Pose p;
  p.height_px = rng.uniform(16.5f, 21.0f);  // MNIST fits digits in a 20x20 box
  p.width_scale = rng.uniform(0.8f, 1.25f);
  p.rotation = 0.12f * rng.normal();
  p.slant = rng.uniform(-0.2f, 0.4f);  // positive leans the top to the right
  p.cx = kSide * 0.5f + rng.uniform(-2.0f, 2.0f);
  p.cy = kSide * 0.5f + rng.uniform(-2.0f, 2.0f);
  p.warp_ax = rng.uniform(0.0f, 0.05f);
  p.warp_fx = rng.uniform(2.0f, 6.0f);
  p.warp_px = rng.uniform(0.0f, 6.2831853f);
  p.warp_ay = rng.uniform(0.0f, 0.05f);
  p.warp_fy = rng.uniform(2.0f, 6.0f);
  p.warp_py = rng.uniform(0.0f, 6.2831853f);
  p.pen_radius = rng.uniform(0.7f, 1.6f);
  p.ink = rng.uniform(0.75f, 1.0f);
  p.noise = rng.uniform(0.0f, 0.06f);
  return p;
}

// Glyph units -> canvas pixels: wobble, slant, scale, rotate, shift.
Point place(Point g, const Pose& p) {
  g.x += p.warp_ax * std::sin(p.warp_fx * g.y + p.warp_px);
  g.y += p.warp_ay * std::sin(p.warp_fy * g.x + p.warp_py);
  g.x -= p.slant * g.y;  // y points down, so the top (y < 0) moves right
  const float x = g.x * p.height_px * p.width_scale, y = g.y * p.height_px;
  const float c = std::cos(p.rotation), s = std::sin(p.rotation);
  return {p.cx + c * x - s * y, p.cy + s * x + c * y};
}

// canvas [28, 28]: draws one digit.
void draw_digit(int digit, Rng& rng, std::vector<float>& canvas) {
  std::fill(canvas.begin(), canvas.end(), 0.0f);
  const Pose pose = random_pose(rng);
  for (auto& stroke : digit_strokes(digit, rng)) {
    for (auto& pt : stroke) pt = place(pt, pose);
    draw_polyline(canvas, kSide, kSide, stroke, pose.pen_radius);
  }
  for (auto& v : canvas) v = std::clamp(v * pose.ink + pose.noise * rng.normal(), 0.0f, 1.0f);
}

}  // namespace

Dataset make_synthetic_digits(std::int64_t count, std::uint64_t seed) {
  if (count <= 0 || count > kSyntheticMaxCount) {
    throw DatasetError("synthetic dataset size " + std::to_string(count) +
                       " is out of range: it must be between 1 and " +
                       std::to_string(kSyntheticMaxCount));
  }
  Dataset ds;
  ds.count = count;
  ds.height = kSide;
  ds.width = kSide;
  ds.channels = 1;
  ds.classes = 10;
  ds.source = "synthetic digits (" + std::to_string(count) + " images 28x28, seed " +
              std::to_string(seed) + ")";

  // Balanced labels: each block of ten samples holds the ten digits in a shuffled order.
  ds.labels.resize(static_cast<std::size_t>(count));
  for (std::int64_t block = 0; block * 10 < count; ++block) {
    std::int32_t digits[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    Rng rng(derive_seed(seed, kLabelSalt, static_cast<std::uint64_t>(block)));
    for (int i = 9; i > 0; --i) std::swap(digits[i], digits[rng.below(i + 1)]);
    for (std::int64_t i = 0; i < 10 && block * 10 + i < count; ++i)
      ds.labels[block * 10 + i] = digits[i];
  }

  ds.images.resize(static_cast<std::size_t>(count) * kSide * kSide);
  std::vector<float> canvas(kSide * kSide);
  for (std::int64_t i = 0; i < count; ++i) {
    // One generator per sample: sample i is the same whatever the count.
    Rng rng(derive_seed(seed, kImageSalt, static_cast<std::uint64_t>(i)));
    draw_digit(ds.labels[i], rng, canvas);
    std::copy(canvas.begin(), canvas.end(), ds.images.begin() + i * kSide * kSide);
  }
  return ds;
}

}  // namespace ts
