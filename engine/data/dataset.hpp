// In-memory labelled image datasets and the error every dataset reader throws.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ts {

// In-memory labelled images: images [count, height, width, channels] f32 in [0,1], labels [count]
// i32 in [0, classes). Row-major, channels last (NHWC), one contiguous block per sample.
struct Dataset {
  std::int64_t count = 0, height = 0, width = 0, channels = 0;
  int classes = 0;
  std::vector<float> images;         // [count, height, width, channels]
  std::vector<std::int32_t> labels;  // [count]
  std::string source;  // human description, e.g. "MNIST IDX (10000 images, data/mnist/...)"

  // Floats per sample: height * width * channels.
  std::int64_t sample_size() const { return height * width * channels; }
};

// A dataset could not be made or read. The message is one clear sentence naming the file (or the
// spec) and what is wrong with it.
class DatasetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ts
