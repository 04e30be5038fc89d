#include "engine/data/pipeline/pipeline_options.hpp"

#include <charconv>
#include <stdexcept>

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

int parse_count_or_auto(const std::string& flag, const std::string& text, int max) {
  if (text == "auto") return kAutotune;
  int n = -1;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, n);
  if (text.empty() || ec != std::errc() || ptr != end || n < 0 || n > max)
    throw std::invalid_argument(flag + " takes a number from 0 to " + std::to_string(max) +
                                " or 'auto', not '" + text + "'");
  return n;
}

void parse_cache(const std::string& text, PipelineOptions& options) {
  if (text == "none") {
    options.cache = CacheMode::none;
  } else if (text == "memory") {
    options.cache = CacheMode::memory;
  } else if (text.rfind("file:", 0) == 0 && text.size() > 5) {
    options.cache = CacheMode::file;
    options.cache_path = text.substr(5);
  } else {
    throw std::invalid_argument("--cache takes none, memory or file:PATH, not '" + text + "'");
  }
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
