// Opening the trace files named on the command line of report, check, diff and export. Every
// failure is a store::Error whose message is one sentence naming the file (main prints it and
// exits with status 2).
#pragma once

#include <memory>
#include <string>

#include "cli/args.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/store/reader.hpp"

namespace ts::cli {

// The command's positional arguments, which must be exactly `count` trace files; `what`
// describes them for the error ("one trace file", "two trace files A and B").
std::vector<std::string> trace_arguments(Args& args, std::size_t count, const std::string& what);

// Opens a trace; refuses one that holds no events at all.
std::unique_ptr<store::Reader> open_trace(const std::string& path);

// Opens and analyses a trace; refuses one that holds no complete training step.
analysis::Report analyse_trace(const std::string& path, const analysis::AnalysisOptions& options);

}  // namespace ts::cli
