// The pipeline map function for an augmentation: seeded random transforms applied to every
// sample after the cache, different each epoch.
#pragma once

#include <cstdint>

#include "engine/data/pipeline/pipeline_options.hpp"
#include "engine/data/pipeline/sample_source.hpp"
#include "engine/data/transforms.hpp"

namespace ts {

// A map over samples of `shape` applying `augmentation` (transforms.hpp), whose randomness is
// sample_rng(seed, epoch, index): the same whichever worker runs it. Returns an empty SampleMap
// when the augmentation does nothing.
SampleMap make_augment_map(const Augmentation& augmentation, const SampleShape& shape,
                           std::uint64_t seed);

}  // namespace ts
