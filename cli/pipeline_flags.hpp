// The input-pipeline flags of `trainscope train`: a preset, then individual overrides.
#pragma once

#include <string>

#include "cli/args.hpp"
#include "engine/data/pipeline/pipeline_options.hpp"

namespace ts::cli {

struct PipelineFlags {
  std::string preset;   // "naive" or "tuned"
  std::string augment;  // --augment text ("" = none)
  PipelineOptions options;
};

// Reads --pipeline naive|tuned (default tuned), then --parallel N|auto, --prefetch N|auto,
// --cache none|memory|file:PATH, --shuffle N|full (0 = off), --prefetch-to-device on|off,
// --skip-bad and --augment LIST, which override the preset. Throws UsageError naming the flag.
PipelineFlags parse_pipeline_flags(Args& args, std::int64_t batch, std::uint64_t seed);

}  // namespace ts::cli
