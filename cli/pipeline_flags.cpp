#include "cli/pipeline_flags.hpp"

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
    f.options.shuffle_buffer = *v == "full" ? kFullShuffle : -2;
    if (*v != "full") {
      const std::string text = *v;
      std::size_t used = 0;
      long long n = -1;
      try {
        n = std::stoll(text, &used);
      } catch (const std::exception&) {
      }
      if (used != text.size() || n < 0)
        throw UsageError("--shuffle takes a buffer size in samples (0 = off) or 'full', not '" +
                         text + "'");
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
