#include "engine/data/pipeline/augment_map.hpp"

namespace ts {

SampleMap make_augment_map(const Augmentation& augmentation, const SampleShape& shape,
                           std::uint64_t seed) {
  if (!augmentation.any()) return {};
  return [aug = augmentation, shape, seed](float* sample, std::int64_t index, int epoch,
                                           std::vector<float>& scratch) {
    Rng rng =
        sample_rng(seed, static_cast<std::uint64_t>(epoch), static_cast<std::uint64_t>(index));
    apply_augmentation(aug, rng, sample, shape.height, shape.width, shape.channels, scratch);
  };
}

}  // namespace ts
