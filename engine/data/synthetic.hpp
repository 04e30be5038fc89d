// Procedurally drawn handwritten-looking digits: the default dataset, needing no files or network.
#pragma once

#include <cstdint>

#include "engine/data/dataset.hpp"

namespace ts {

inline constexpr std::int64_t kSyntheticDefaultCount = 10000;
inline constexpr std::int64_t kSyntheticMaxCount = 1000000;  // 3 GB of f32 pixels

// `count` digits 0-9 drawn as 28x28 grey images: images [count, 28, 28, 1] f32 in [0,1] (ink near
// 1, background near 0, like MNIST), labels [count] i32 in [0, 10), classes = 10. Classes are
// balanced (each block of ten consecutive samples holds each digit once, in shuffled order). Each
// image is a stroke template with random style, wobble, slant, rotation, scale, shift and pen
// width, rasterised with anti-aliasing plus a little noise. The same (count, seed) always gives the
// same dataset, and sample i does not depend on count. Throws DatasetError unless 0 < count <=
// kSyntheticMaxCount.
Dataset make_synthetic_digits(std::int64_t count, std::uint64_t seed);

}  // namespace ts
