#include "cli/pipeline_flags.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>

namespace ts::cli {
namespace {

[[noreturn]] void bad_augmentation(const std::string& text, const std::string& why) {
  throw UsageError(
      "--augment '" + text + "': " + why +
      "; accepted: none, or a comma-separated list of crop:P (zero-pad by P pixels, crop back at "
      "a random offset), shift:S (shift by up to S pixels), flip (mirror left-right half of the "
      "time), noise:SIGMA (gaussian noise, 0 < SIGMA <= 1), with P and S from 1 to " +
      std::to_string(kMaxAugmentPixels) + ", e.g. crop:2,flip,noise:0.05");
}

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

std::int64_t parse_pixels(const std::string& text, const std::string& item,
                          const std::string& value) {
  std::int64_t n = 0;
  const char* end = value.data() + value.size();
  const auto [ptr, ec] = std::from_chars(value.data(), end, n);
  if (value.empty() || ec != std::errc() || ptr != end || n < 1 || n > kMaxAugmentPixels)
    bad_augmentation(text, "'" + item + "' needs a whole number of pixels from 1 to " +
                               std::to_string(kMaxAugmentPixels));
  return n;
}

}  // namespace

int parse_count_or_auto(const std::string& flag, const std::string& text, int max) {
  if (text == "auto") return kAutotune;
  int n = -1;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, n);
  if (text.empty() || ec != std::errc() || ptr != end || n < 0 || n > max)
    throw UsageError(flag + " takes a number from 0 to " + std::to_string(max) +
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
    throw UsageError("--cache takes none, memory or file:PATH, not '" + text + "'");
  }
}

std::int64_t parse_shuffle(const std::string& text) {
  if (text == "full") return kFullShuffle;
  std::int64_t n = -1;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, n);
  if (text.empty() || ec != std::errc() || ptr != end || n < 0)
    throw UsageError("--shuffle takes a buffer size in samples (0 = off) or 'full', not '" + text +
                     "'");
  return n;
}

Augmentation parse_augmentation(const std::string& text) {
  Augmentation aug;
  const std::string all = trim(text);
  if (all.empty() || all == "none") return aug;
  bool seen_crop = false, seen_shift = false, seen_flip = false, seen_noise = false;
  std::size_t start = 0;
  while (start <= all.size()) {
    const std::size_t comma = std::min(all.find(',', start), all.size());
    const std::string item = trim(all.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) bad_augmentation(text, "has an empty item");
    const std::size_t colon = item.find(':');
    const std::string name = item.substr(0, colon);
    const std::string value = colon == std::string::npos ? "" : item.substr(colon + 1);
    const auto once = [&](bool& seen) {
      if (seen) bad_augmentation(text, "'" + name + "' appears twice");
      seen = true;
    };
    if (name == "crop") {
      once(seen_crop);
      aug.crop_pad = parse_pixels(text, item, value);
    } else if (name == "shift") {
      once(seen_shift);
      aug.max_shift = parse_pixels(text, item, value);
    } else if (name == "flip") {
      once(seen_flip);
      if (colon != std::string::npos) bad_augmentation(text, "'flip' takes no value");
      aug.flip = true;
    } else if (name == "noise") {
      once(seen_noise);
      char* end = nullptr;
      const double sigma = std::strtod(value.c_str(), &end);
      if (value.empty() || end != value.c_str() + value.size() || !(sigma > 0.0 && sigma <= 1.0))
        bad_augmentation(text, "'" + item + "' needs a standard deviation 0 < SIGMA <= 1");
      aug.noise_stddev = static_cast<float>(sigma);
    } else {
      bad_augmentation(text, "unknown item '" + item + "'");
    }
  }
  return aug;
}

PipelineFlags parse_pipeline_flags(Args& args, std::int64_t batch, std::uint64_t seed) {
  PipelineFlags f;
  f.preset = args.choice("pipeline", "tuned", {"naive", "tuned"});
  f.options = f.preset == "naive" ? naive_pipeline(batch) : tuned_pipeline(batch);
  f.options.seed = seed;
  if (auto v = args.value("parallel"))
    f.options.parallel = parse_count_or_auto("--parallel", *v, 256);
  if (auto v = args.value("prefetch"))
    f.options.prefetch = parse_count_or_auto("--prefetch", *v, 1024);
  if (auto v = args.value("cache")) parse_cache(*v, f.options);
  if (auto v = args.value("shuffle")) f.options.shuffle_buffer = parse_shuffle(*v);
  const std::string to_device =
      args.choice("prefetch-to-device", f.options.prefetch_to_device ? "on" : "off", {"on", "off"});
  f.options.prefetch_to_device = to_device == "on";
  f.options.skip_bad = args.flag("skip-bad");
  f.augment = parse_augmentation(args.text("augment", ""));
  return f;
}

}  // namespace ts::cli
