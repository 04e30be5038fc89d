// Opening the trace files named on the command line of report, check, diff and export. A file
// may be a trainscope trace or another tool's trace (PyTorch/Chrome JSON, a directory of per-rank
// traces, a TensorFlow profile), which is imported through the cache of
// profiler/import_cache/trace_source.hpp; the first import says on stderr where it went. Every
// failure is a store::Error or import::ImportError whose message is one sentence naming the file
// (main prints it and exits with status 2).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "cli/args.hpp"
#include "profiler/analysis/diff.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/store/reader.hpp"

namespace ts::cli {

// How another tool's trace is imported: the flags every trace-reading command takes.
struct TraceOptions {
  std::string step_marker;  // --step-marker REGEX
  std::string tf_run;       // --run NAME: the run of a TensorBoard log directory
  // --allow-partial: analyse an import that lost more than 1 % of its events (invalid, damaged
  // or unkeyable events); without it such an import is refused (import::lost_share_error).
  bool allow_partial = false;
  // A progress line on stderr while a long import runs (import::ProgressPrinter); off for
  // --json.
  bool progress = true;
};
TraceOptions trace_options(Args& args);
// The --help lines of those flags.
extern const char* const kTraceOptionsHelp;

// Which steps the analysis covers: --steps A-B, --skip-warmup auto|N (AnalysisOptions::steps,
// skip_warmup), and their --help lines.
void read_step_scope(Args& args, analysis::AnalysisOptions& options);
extern const char* const kStepScopeHelp;

// The command's positional arguments, which must be exactly `count` trace files; `what`
// describes them for the error ("one trace file", "two trace files A and B").
std::vector<std::string> trace_arguments(Args& args, std::size_t count, const std::string& what);

// The trainscope trace to read for `path`: itself, or its import (made or reused).
std::string resolve_trace(const std::string& path, const TraceOptions& options);

// Opens a trace; refuses one that holds no events at all (saying why: what the import skipped,
// or the capture's write error), and an import that lost more than 1 % of the events it read
// unless options.allow_partial.
std::unique_ptr<store::Reader> open_trace(const std::string& path, const TraceOptions& options);

// Opens and analyses a trace (one without step structure as one whole-window step,
// analysis::whole_window_step); refuses one whose --step-marker matched no step, and a --steps
// range that holds none of its steps (a UsageError); says on stderr which steps it takes of a
// range it holds in part.
analysis::Report analyse_trace(const std::string& path, const TraceOptions& trace,
                               const analysis::AnalysisOptions& options);

// Two runs analysed to be compared (diff, check --baseline): with the default warm-up rule both
// leave out the same first steps (analysis::common_warmup), re-analysing the one that left out
// fewer.
struct ComparedRuns {
  analysis::Report a, b;
  std::optional<analysis::CommonWarmup> common;
};
ComparedRuns analyse_pair(const std::string& path_a, const std::string& path_b,
                          const TraceOptions& trace, const analysis::AnalysisOptions& options);

}  // namespace ts::cli
