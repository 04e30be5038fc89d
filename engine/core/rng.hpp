// Random numbers. Rng is a seeded sequential generator for initialisation and shuffling;
// hash_uniform is a counter-based generator that kernels/dropout.cl reproduces bit for bit,
// so CPU and OpenCL dropout masks are identical for the same seed.
#pragma once

#include <cmath>
#include <cstdint>

namespace ts {

// Counter-based: a uniform float in [0, 1) from (seed, index). Mirrors ts_hash_uniform in
// kernels/common.cl.
inline float hash_uniform(std::uint32_t seed, std::uint32_t index) {
  std::uint32_t x = index * 0x9E3779B9u ^ seed;
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return static_cast<float>(x >> 8) * (1.0f / 16777216.0f);
}

// xoshiro128+-style sequential generator seeded with splitmix64.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    for (auto& s : state_) {
      seed += 0x9E3779B97F4A7C15ull;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      s = z ^ (z >> 31);
    }
  }
  std::uint64_t next_u64() {
    const std::uint64_t result = rotl(state_[0] + state_[3], 23) + state_[0];
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }
  // Uniform in [0, 1).
  float uniform() { return static_cast<float>(next_u64() >> 40) * (1.0f / 16777216.0f); }
  float uniform(float lo, float hi) { return lo + (hi - lo) * uniform(); }
  // Uniform integer in [0, n).
  std::uint64_t below(std::uint64_t n) { return n ? next_u64() % n : 0; }
  // Standard normal (Box-Muller).
  float normal() {
    float u1 = uniform();
    if (u1 < 1e-7f) u1 = 1e-7f;
    const float u2 = uniform();
    return std::sqrt(-2.0f * std::log(u1)) * std::cos(6.28318530718f * u2);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4];
};

}  // namespace ts
