#include "engine/data/pipeline/augment_map.hpp"

#include "engine/data/transforms.hpp"

namespace ts {

SampleMap make_augment_map(const std::string& text, const SampleShape& shape, std::uint64_t seed) {
  const Augmentation aug = parse_augmentation(text);
  if (!aug.any()) return {};
  return [aug, shape, seed](float* sample, std::int64_t index, int epoch,
                            std::vector<float>& scratch) {
    Rng rng =
        sample_rng(seed, static_cast<std::uint64_t>(epoch), static_cast<std::uint64_t>(index));
    apply_augmentation(aug, rng, sample, shape.height, shape.width, shape.channels, scratch);
  };
}

}  // namespace ts
