// Where the input pipeline's samples come from: a fixed, indexable set of labelled samples that
// any number of worker threads may load at once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/data/dataset.hpp"

namespace ts {

// The shape every sample of a source has once loaded: [height, width, channels] f32 in [0, 1].
struct SampleShape {
  std::int64_t height = 0, width = 0, channels = 0;
  int classes = 0;
  std::int64_t numel() const { return height * width * channels; }
};

// Per-thread reusable memory for SampleSource::load (file bytes, decoded pixels), so that a
// worker loading sample after sample does not allocate.
struct SourceScratch {
  std::vector<unsigned char> bytes;
  std::vector<unsigned char> pixels;
  std::vector<float> floats;
};

class SampleSource {
 public:
  virtual ~SampleSource() = default;

  virtual std::int64_t count() const = 0;
  virtual SampleShape shape() const = 0;
  // Label of sample `index` in [0, shape().classes). Cheap; thread-safe.
  virtual std::int32_t label(std::int64_t index) const = 0;
  // Loads sample `index` into out [height, width, channels] f32 in [0, 1]: reads it (trace
  // category input_read), decodes it (input_decode) and resizes it to shape() when needed.
  // Thread-safe for concurrent calls with distinct scratch objects. Throws DatasetError naming
  // the sample (describe(index)) when it cannot be read or decoded.
  virtual void load(std::int64_t index, SourceScratch& scratch, float* out) const = 0;
  // True when load() is a plain memory copy: caching the source would gain nothing.
  virtual bool in_memory() const = 0;
  // What an error about one sample names, e.g. "data/digits/3/00042.png" or "sample 42".
  virtual std::string describe(std::int64_t index) const = 0;
  // One line for the user, e.g. "image folder data/digits (10000 images, 10 classes, 28x28x1)".
  virtual std::string description() const = 0;
};

}  // namespace ts
