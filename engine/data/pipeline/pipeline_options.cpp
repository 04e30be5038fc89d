#include "engine/data/pipeline/pipeline_options.hpp"

namespace ts {

PipelineOptions naive_pipeline(std::int64_t batch_size) {
  PipelineOptions o;
  o.batch_size = batch_size;
  o.parallel = 0;
  o.prefetch = 0;
  o.cache = CacheMode::none;
  o.prefetch_to_device = false;
  return o;
}

PipelineOptions tuned_pipeline(std::int64_t batch_size) {
  PipelineOptions o;
  o.batch_size = batch_size;
  o.parallel = kAutotune;
  o.prefetch = kAutotune;
  o.cache = CacheMode::memory;
  o.prefetch_to_device = true;
  return o;
}

std::string describe(const PipelineOptions& o) {
  const auto count = [](int v) { return v == kAutotune ? std::string("auto") : std::to_string(v); };
  std::string s = "parallel " + count(o.parallel) + ", prefetch " + count(o.prefetch) + ", cache ";
  s += o.cache == CacheMode::none     ? "none"
       : o.cache == CacheMode::memory ? "memory"
                                      : "file " + o.cache_path;
  s += ", shuffle ";
  s += o.shuffle_buffer == kFullShuffle ? "full"
       : o.shuffle_buffer == 0          ? "off"
                                        : std::to_string(o.shuffle_buffer);
  s += o.prefetch_to_device ? ", prefetch to device" : "";
  return s;
}

}  // namespace ts
