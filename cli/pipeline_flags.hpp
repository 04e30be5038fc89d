// The input-pipeline flags of `trainscope train`: a preset, then individual overrides. The flag
// text is read here; the engine takes the typed PipelineOptions and Augmentation only.
#pragma once

#include <cstdint>
#include <string>

#include "cli/args.hpp"
#include "engine/data/pipeline/pipeline_options.hpp"
#include "engine/data/transforms.hpp"

namespace ts::cli {

struct PipelineFlags {
  std::string preset;  // "naive" or "tuned"
  Augmentation augment;
  PipelineOptions options;
};

// Reads --pipeline naive|tuned (default tuned), then --parallel N|auto, --prefetch N|auto,
// --cache none|memory|file:PATH, --shuffle N|full (0 = off), --prefetch-to-device on|off,
// --skip-bad and --augment LIST, which override the preset. Throws UsageError naming the flag.
PipelineFlags parse_pipeline_flags(Args& args, std::int64_t batch, std::uint64_t seed);

// The value parsers behind it; each throws UsageError, one sentence naming the flag.
// --parallel / --prefetch: a count from 0 to `max`, or "auto" (kAutotune).
int parse_count_or_auto(const std::string& flag, const std::string& text, int max);
// --cache: none | memory | file:PATH, into options.cache and options.cache_path.
void parse_cache(const std::string& text, PipelineOptions& options);
// --shuffle: a buffer size in samples (0 = off) or "full" (kFullShuffle).
std::int64_t parse_shuffle(const std::string& text);
// --augment: a comma-separated list of crop:P, shift:S (P, S whole numbers from 1 to
// kMaxAugmentPixels), flip and noise:SIGMA (0 < SIGMA <= 1), each at most once, in any order;
// "" and "none" mean no augmentation. The error names the bad item and lists the accepted forms.
Augmentation parse_augmentation(const std::string& text);

}  // namespace ts::cli
