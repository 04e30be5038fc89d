#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "engine/core/dtype.hpp"
#include "engine/core/rng.hpp"

namespace ts {
namespace {

TEST(Half, ExactValuesRoundTrip) {
  for (float v :
       {0.0f, -0.0f, 1.0f, -2.5f, 0.5f, 65504.0f, 6.103515625e-05f, 5.960464477539063e-08f})
    EXPECT_EQ(half_to_float(float_to_half(v)), v) << v;
}

TEST(Half, KnownEncodings) {
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half(1e6f), 0x7c00);                    // overflow -> inf
  EXPECT_EQ(float_to_half(5.960464477539063e-08f), 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(std::nanf("")))));
}

TEST(Half, RoundsToNearestEven) {
  // 1 + 2^-11 lies exactly between 1 and 1 + 2^-10: ties go to the even mantissa (1.0).
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  // 1 + 3*2^-11 lies between 1+2^-10 (odd) and 1+2^-9 (even): rounds up to even.
  EXPECT_EQ(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
}

TEST(Half, EveryHalfRoundTripsThroughFloat) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const float f = half_to_float(static_cast<std::uint16_t>(h));
    if (std::isnan(f)) continue;
    EXPECT_EQ(float_to_half(f), h) << std::hex << h;
  }
}

TEST(Rng, DeterministicFromSeedAndUniformRange) {
  Rng a(42), b(42), c(43);
  bool differs = false;
  for (int i = 0; i < 1000; ++i) {
    const float x = a.uniform();
    EXPECT_EQ(x, b.uniform());
    differs |= x != c.uniform();
    EXPECT_GE(x, 0.0f);
    EXPECT_LT(x, 1.0f);
  }
  EXPECT_TRUE(differs);
}

TEST(Rng, HashUniformMeanIsAboutHalf) {
  double sum = 0;
  for (std::uint32_t i = 0; i < 100000; ++i) sum += hash_uniform(7, i);
  EXPECT_NEAR(sum / 100000, 0.5, 0.01);
}

}  // namespace
}  // namespace ts
