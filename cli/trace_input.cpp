#include "cli/trace_input.hpp"

namespace ts::cli {

std::vector<std::string> trace_arguments(Args& args, std::size_t count, const std::string& what) {
  std::vector<std::string> files = args.positionals();
  args.finish();
  if (files.size() != count)
    throw UsageError("'trainscope " + args.command() + "' needs " + what + ", not " +
                     std::to_string(files.size()) + " (see 'trainscope " + args.command() +
                     " --help')");
  return files;
}

std::unique_ptr<store::Reader> open_trace(const std::string& path) {
  auto reader = std::make_unique<store::Reader>(path);
  if (reader->event_count() == 0)
    throw store::Error(path + " holds no events (the capture recorded nothing)");
  return reader;
}

analysis::Report analyse_trace(const std::string& path, const analysis::AnalysisOptions& options) {
  const auto reader = open_trace(path);
  if (reader->steps().empty())
    throw store::Error(path + " holds no complete training step, so there is nothing to analyse");
  return analysis::analyse(*reader, options);
}

}  // namespace ts::cli
