#include "engine/data/pipeline/make_source.hpp"

#include "engine/data/image_folder.hpp"
#include "engine/data/load.hpp"

namespace ts {

std::shared_ptr<const SampleSource> make_sample_source(const std::string& spec,
                                                       std::uint64_t seed) {
  if (spec.rfind("images:", 0) == 0) {
    if (spec.size() == 7) throw DatasetError("dataset '" + spec + "' names no directory");
    return std::make_shared<ImageFolderSource>(spec.substr(7));
  }
  return std::make_shared<InMemorySource>(
      std::make_shared<const Dataset>(load_dataset(spec, seed)));
}

}  // namespace ts
