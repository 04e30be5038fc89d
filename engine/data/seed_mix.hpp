// Derives independent generator seeds from a base seed and a stream number (sample, epoch), so
// that nearby seeds never give overlapping ts::Rng states.
#pragma once

#include <cstdint>

namespace ts {

// splitmix64's finaliser: a bijection that scatters nearby inputs.
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The seed of stream `stream` of kind `salt` (a constant per use) under base seed `seed`.
inline std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t salt, std::uint64_t stream) {
  return mix64(mix64(seed ^ salt) + 0x9E3779B97F4A7C15ull * (stream + 1));
}

}  // namespace ts
