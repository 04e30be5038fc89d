// From a --dataset spec to the input pipeline's source.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/data/pipeline/sample_source.hpp"

namespace ts {

// images:DIR reads and decodes the image files on demand (ImageFolderSource: the samples keep
// the first image's size); every other spec (synthetic, mnist, idx — see load.hpp) is loaded
// into memory first (InMemorySource). Throws DatasetError for a bad spec or unreadable data.
std::shared_ptr<const SampleSource> make_sample_source(const std::string& spec, std::uint64_t seed);

}  // namespace ts
