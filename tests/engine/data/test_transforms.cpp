// Sample transforms against straightforward reference implementations, their randomness
// (deterministic per (seed, epoch, index)), and the --augment grammar.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/data/transforms.hpp"

namespace ts {
namespace {

using Image = std::vector<float>;

// [h, w, c] with distinct values.
Image ramp(std::int64_t h, std::int64_t w, std::int64_t c) {
  Image v(static_cast<std::size_t>(h * w * c));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.01f * static_cast<float>(i) + 0.5f;
  return v;
}

float at(const Image& img, std::int64_t w, std::int64_t c, std::int64_t y, std::int64_t x,
         std::int64_t ch) {
  return img[static_cast<std::size_t>((y * w + x) * c + ch)];
}

// The textbook definition, in double: sample at (i + 0.5) * in / out - 0.5, clamp to the edges,
// interpolate between the two neighbours.
Image reference_resize(const Image& in, std::int64_t h, std::int64_t w, std::int64_t c,
                       std::int64_t oh, std::int64_t ow) {
  Image out(static_cast<std::size_t>(oh * ow * c));
  const auto coord = [](std::int64_t i, std::int64_t n_in, std::int64_t n_out, std::int64_t& lo,
                        std::int64_t& hi, double& t) {
    const double s = (i + 0.5) * static_cast<double>(n_in) / static_cast<double>(n_out) - 0.5;
    const double f = std::floor(s);
    lo = std::max<std::int64_t>(0, static_cast<std::int64_t>(f));
    hi = std::min<std::int64_t>(n_in - 1, static_cast<std::int64_t>(f) + 1);
    t = s < 0 ? 0.0 : s - f;
  };
  for (std::int64_t y = 0; y < oh; ++y)
    for (std::int64_t x = 0; x < ow; ++x) {
      std::int64_t y0, y1, x0, x1;
      double ty, tx;
      coord(y, h, oh, y0, y1, ty);
      coord(x, w, ow, x0, x1, tx);
      for (std::int64_t ch = 0; ch < c; ++ch) {
        const double top = at(in, w, c, y0, x0, ch) * (1 - tx) + at(in, w, c, y0, x1, ch) * tx;
        const double bot = at(in, w, c, y1, x0, ch) * (1 - tx) + at(in, w, c, y1, x1, ch) * tx;
        out[static_cast<std::size_t>((y * ow + x) * c + ch)] =
            static_cast<float>(top * (1 - ty) + bot * ty);
      }
    }
  return out;
}

TEST(Transforms, SampleRngDependsOnSeedEpochAndIndexOnly) {
  const auto draw = [](Rng rng) {
    std::vector<std::uint64_t> v;
    for (int i = 0; i < 4; ++i) v.push_back(rng.next_u64());
    return v;
  };
  EXPECT_EQ(draw(sample_rng(5, 2, 9)), draw(sample_rng(5, 2, 9)));
  std::set<std::vector<std::uint64_t>> distinct;
  for (std::uint64_t seed : {0u, 1u})
    for (std::uint64_t epoch : {0u, 1u})
      for (std::uint64_t index : {0u, 1u, 2u})
        distinct.insert(draw(sample_rng(seed, epoch, index)));
  EXPECT_EQ(distinct.size(), 12u);
}

TEST(Transforms, ResizeBilinearHandComputed2x2To3x3) {
  const float a = 0.1f, b = 0.3f, c = 0.5f, d = 0.9f;
  const Image in = {a, b, c, d};  // [2, 2, 1]
  Image out(9);
  resize_bilinear(in.data(), 2, 2, 1, out.data(), 3, 3);
  // Output centres map to -1/6, 1/2, 7/6: the edges clamp, the middle is the average.
  // clang-format off
  const Image expected = {a,           (a + b) / 2,         b,
                          (a + c) / 2, (a + b + c + d) / 4, (b + d) / 2,
                          c,           (c + d) / 2,         d};
  // clang-format on
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(out[i], expected[i], 1e-6f) << i;
}

TEST(Transforms, ResizeBilinearIdentityDownscaleAndReference) {
  const Image in = ramp(5, 7, 2);
  Image same(in.size());
  resize_bilinear(in.data(), 5, 7, 2, same.data(), 5, 7);
  EXPECT_EQ(same, in);

  // Halving samples exactly between pixel pairs: each output is the mean of a 2x2 block.
  const Image square = ramp(4, 4, 1);
  Image half(4);
  resize_bilinear(square.data(), 4, 4, 1, half.data(), 2, 2);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 2; ++x) {
      const float mean =
          (at(square, 4, 1, 2 * y, 2 * x, 0) + at(square, 4, 1, 2 * y, 2 * x + 1, 0) +
           at(square, 4, 1, 2 * y + 1, 2 * x, 0) + at(square, 4, 1, 2 * y + 1, 2 * x + 1, 0)) /
          4;
      EXPECT_NEAR(half[y * 2 + x], mean, 1e-5f);
    }

  for (const auto& [oh, ow] :
       {std::pair{3, 11}, std::pair{9, 4}, std::pair{1, 1}, std::pair{12, 14}}) {
    Image out(static_cast<std::size_t>(oh * ow * 2));
    resize_bilinear(in.data(), 5, 7, 2, out.data(), oh, ow);
    const Image ref = reference_resize(in, 5, 7, 2, oh, ow);
    for (std::size_t i = 0; i < out.size(); ++i)
      EXPECT_NEAR(out[i], ref[i], 1e-5f) << oh << "x" << ow << " at " << i;
  }
}

TEST(Transforms, ShiftAndCropMatchIndexArithmetic) {
  const std::int64_t h = 4, w = 5, c = 2;
  const Image in = ramp(h, w, c);
  for (std::int64_t dy = -5; dy <= 5; ++dy)
    for (std::int64_t dx = -6; dx <= 6; ++dx) {
      Image out(in.size(), -1.0f);
      shift_image(in.data(), h, w, c, dy, dx, out.data());
      for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x)
          for (std::int64_t ch = 0; ch < c; ++ch) {
            const std::int64_t sy = y - dy, sx = x - dx;
            const float expected =
                sy >= 0 && sy < h && sx >= 0 && sx < w ? at(in, w, c, sy, sx, ch) : 0.0f;
            ASSERT_EQ(at(out, w, c, y, x, ch), expected) << dy << "," << dx;
          }
    }

  // crop_padded against an explicitly padded copy.
  const std::int64_t pad = 2, ph = h + 2 * pad, pw = w + 2 * pad;
  Image padded(static_cast<std::size_t>(ph * pw * c), 0.0f);
  for (std::int64_t y = 0; y < h; ++y)
    for (std::int64_t x = 0; x < w; ++x)
      for (std::int64_t ch = 0; ch < c; ++ch)
        padded[static_cast<std::size_t>(((y + pad) * pw + x + pad) * c + ch)] =
            at(in, w, c, y, x, ch);
  for (std::int64_t top = 0; top <= 2 * pad; ++top)
    for (std::int64_t left = 0; left <= 2 * pad; ++left) {
      Image out(in.size());
      crop_padded(in.data(), h, w, c, pad, top, left, out.data());
      for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x)
          for (std::int64_t ch = 0; ch < c; ++ch)
            ASSERT_EQ(at(out, w, c, y, x, ch), at(padded, pw, c, y + top, x + left, ch))
                << top << "," << left;
    }
}

TEST(Transforms, RandomCropAndShiftCoverEveryOffsetUniformly) {
  const std::int64_t h = 6, w = 6, c = 1, p = 2;
  const Image in = ramp(h, w, c);
  // Which (top, left) produced each output: exactly one candidate matches, since ramp values are
  // distinct and nonzero.
  std::vector<int> crop_hits(25, 0), shift_hits(25, 0);
  for (std::uint64_t i = 0; i < 2500; ++i) {
    Rng rng = sample_rng(3, 0, i);
    Image out(in.size());
    random_crop(in.data(), h, w, c, p, rng, out.data());
    int matches = 0;
    for (int top = 0; top <= 4; ++top)
      for (int left = 0; left <= 4; ++left) {
        Image ref(in.size());
        crop_padded(in.data(), h, w, c, p, top, left, ref.data());
        if (ref == out) ++crop_hits[top * 5 + left], ++matches;
      }
    ASSERT_EQ(matches, 1);
    Rng rng2 = sample_rng(4, 0, i);
    random_shift(in.data(), h, w, c, p, rng2, out.data());
    matches = 0;
    for (int dy = -2; dy <= 2; ++dy)
      for (int dx = -2; dx <= 2; ++dx) {
        Image ref(in.size());
        shift_image(in.data(), h, w, c, dy, dx, ref.data());
        if (ref == out) ++shift_hits[(dy + 2) * 5 + dx + 2], ++matches;
      }
    ASSERT_EQ(matches, 1);
  }
  for (int k = 0; k < 25; ++k) {  // expected 100 each
    EXPECT_GT(crop_hits[k], 55) << k;
    EXPECT_LT(crop_hits[k], 145) << k;
    EXPECT_GT(shift_hits[k], 55) << k;
    EXPECT_LT(shift_hits[k], 145) << k;
  }
}

TEST(Transforms, FlipMirrorsColumnsAndTwiceIsIdentity) {
  const std::int64_t h = 3, w = 5, c = 3;
  const Image in = ramp(h, w, c);
  Image x = in;
  flip_horizontal(x.data(), h, w, c);
  for (std::int64_t y = 0; y < h; ++y)
    for (std::int64_t col = 0; col < w; ++col)
      for (std::int64_t ch = 0; ch < c; ++ch)
        EXPECT_EQ(at(x, w, c, y, col, ch), at(in, w, c, y, w - 1 - col, ch));
  flip_horizontal(x.data(), h, w, c);
  EXPECT_EQ(x, in);

  int flipped = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    Image s = in;
    Rng rng = sample_rng(1, 1, i);
    const bool did = random_flip_horizontal(s.data(), h, w, c, rng);
    Image mirrored = in;
    flip_horizontal(mirrored.data(), h, w, c);
    EXPECT_EQ(s, did ? mirrored : in);
    flipped += did;
  }
  EXPECT_GT(flipped, 430);
  EXPECT_LT(flipped, 570);
}

TEST(Transforms, NoiseHasTheRequestedStatisticsAndIsClamped) {
  const std::int64_t n = 200000;
  Image x(n, 0.5f);
  Rng rng = sample_rng(9, 0, 0);
  add_noise(x.data(), n, 0.05f, rng);
  double sum = 0, sq = 0;
  for (const float v : x) sum += v;
  const double mean = sum / n;
  for (const float v : x) sq += (v - mean) * (v - mean);
  EXPECT_NEAR(mean, 0.5, 0.001);
  EXPECT_NEAR(std::sqrt(sq / n), 0.05, 0.001);

  Image dark(10000, 0.0f);
  add_noise(dark.data(), 10000, 0.5f, rng);
  int zeros = 0;
  for (const float v : dark) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LE(v, 1.0f);
    zeros += v == 0.0f;
  }
  EXPECT_GT(zeros, 4500);  // about half the draws are negative
  EXPECT_LT(zeros, 5500);
}

TEST(Transforms, NormaliseScalarAndPerChannel) {
  Image x = {0.0f, 0.5f, 1.0f, 0.25f};  // [2 pixels, 2 channels]
  const float mean1[] = {0.5f}, std1[] = {0.25f};
  Image a = x;
  normalise(a.data(), 2, 2, mean1, std1);
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_FLOAT_EQ(a[i], (x[i] - 0.5f) / 0.25f);
  const float mean2[] = {0.1f, 0.2f}, std2[] = {2.0f, 0.5f};
  Image b = x;
  normalise(b.data(), 2, 2, mean2, std2);
  for (std::size_t i = 0; i < x.size(); ++i)
    EXPECT_FLOAT_EQ(b[i], (x[i] - mean2[i % 2]) / std2[i % 2]);
  const float three[] = {0, 0, 0}, zero[] = {0.0f};
  EXPECT_THROW(normalise(b.data(), 2, 2, three, std1), std::invalid_argument);
  EXPECT_THROW(normalise(b.data(), 2, 2, mean1, zero), std::invalid_argument);
}

TEST(Transforms, OneHot) {
  const std::vector<std::int32_t> labels = {2, 0, 3, 2};
  const std::vector<float> out = one_hot(labels, 4);
  ASSERT_EQ(out.size(), 16u);
  for (std::size_t i = 0; i < labels.size(); ++i)
    for (int k = 0; k < 4; ++k) EXPECT_EQ(out[i * 4 + k], k == labels[i] ? 1.0f : 0.0f);
  const std::vector<std::int32_t> bad = {1, 4};
  EXPECT_THROW(one_hot(bad, 4), std::invalid_argument);
  const std::vector<std::int32_t> negative = {-1};
  EXPECT_THROW(one_hot(negative, 4), std::invalid_argument);
}

TEST(Transforms, AugmentationText) {
  EXPECT_EQ(Augmentation{}.to_string(), "none");
  EXPECT_EQ((Augmentation{2, 3, true, 0.05f}).to_string(), "crop:2,shift:3,flip,noise:0.05");
  EXPECT_EQ((Augmentation{0, 0, true, 0.0f}).to_string(), "flip");
}

TEST(Transforms, ApplyAugmentationComposesInFixedOrderAndIsDeterministic) {
  const std::int64_t h = 8, w = 7, c = 3;
  Image in = ramp(h, w, c);
  for (auto& v : in) v = std::fmod(v, 1.0f);  // inside [0, 1], as noise clamps to it
  const Augmentation aug{2, 1, true, 0.1f};   // crop:2,shift:1,flip,noise:0.1
  std::vector<float> scratch;

  for (std::uint64_t index = 0; index < 20; ++index) {
    Image got = in;
    Rng rng = sample_rng(11, 3, index);
    apply_augmentation(aug, rng, got.data(), h, w, c, scratch);

    // The same steps by hand, drawing from an identical generator.
    Rng manual = sample_rng(11, 3, index);
    Image a(in.size()), b(in.size());
    random_crop(in.data(), h, w, c, 2, manual, a.data());
    random_shift(a.data(), h, w, c, 1, manual, b.data());
    random_flip_horizontal(b.data(), h, w, c, manual);
    add_noise(b.data(), h * w * c, 0.1f, manual);
    EXPECT_EQ(got, b) << index;

    Image again = in;
    Rng rng_again = sample_rng(11, 3, index);
    apply_augmentation(aug, rng_again, again.data(), h, w, c, scratch);
    EXPECT_EQ(again, got);

    Image other = in;
    Rng rng_other = sample_rng(11, 3, index + 1);
    apply_augmentation(aug, rng_other, other.data(), h, w, c, scratch);
    EXPECT_NE(other, got);
  }

  // No augmentation: the sample and the generator are untouched.
  Image x = in;
  Rng used = sample_rng(1, 2, 3), fresh = sample_rng(1, 2, 3);
  apply_augmentation(Augmentation{}, used, x.data(), h, w, c, scratch);
  EXPECT_EQ(x, in);
  EXPECT_EQ(used.next_u64(), fresh.next_u64());
}

}  // namespace
}  // namespace ts
