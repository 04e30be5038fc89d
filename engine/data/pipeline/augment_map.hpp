// The pipeline map function for --augment: seeded random transforms applied to every sample
// after the cache, different each epoch.
#pragma once

#include <cstdint>
#include <string>

#include "engine/data/pipeline/pipeline_options.hpp"
#include "engine/data/pipeline/sample_source.hpp"

namespace ts {

// Parses `text` (transforms.hpp: "crop:2,shift:2,flip,noise:0.05"; "" or "none" = nothing) and
// returns a map over samples of `shape` whose randomness is sample_rng(seed, epoch, index): the
// same whichever worker runs it. Returns an empty SampleMap for no augmentation. Throws
// std::invalid_argument for bad text.
SampleMap make_augment_map(const std::string& text, const SampleShape& shape, std::uint64_t seed);

}  // namespace ts
