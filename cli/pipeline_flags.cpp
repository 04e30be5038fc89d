#include "cli/pipeline_flags.hpp"

#include <charconv>
#include <stdexcept>

namespace ts::cli {

PipelineFlags parse_pipeline_flags(Args& args, std::int64_t batch, std::uint64_t seed) {
  PipelineFlags f;
  f.preset = args.choice("pipeline", "tuned", {"naive", "tuned"});
  f.options = f.preset == "naive" ? naive_pipeline(batch) : tuned_pipeline(batch);
  f.options.seed = seed;
  try {
    if (auto v = args.value("parallel"))
      f.options.parallel = parse_count_or_auto("--parallel", *v, 256);
    if (auto v = args.value("prefetch"))
      f.options.prefetch = parse_count_or_auto("--prefetch", *v, 1024);
    if (auto v = args.value("cache")) parse_cache(*v, f.options);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (auto v = args.value("shuffle")) {
    if (*v == "full") {
      f.options.shuffle_buffer = kFullShuffle;
    } else {
      std::int64_t n = -1;
      const char* end = v->data() + v->size();
      const auto [ptr, ec] = std::from_chars(v->data(), end, n);
      if (v->empty() || ec != std::errc() || ptr != end || n < 0)
        throw UsageError("--shuffle takes a buffer size in samples (0 = off) or 'full', not '" +
                         *v + "'");
      f.options.shuffle_buffer = n;
    }
  }
  const std::string to_device =
      args.choice("prefetch-to-device", f.options.prefetch_to_device ? "on" : "off", {"on", "off"});
  f.options.prefetch_to_device = to_device == "on";
  f.options.skip_bad = args.flag("skip-bad");
  f.augment = args.text("augment", "");
  return f;
}

}  // namespace ts::cli
