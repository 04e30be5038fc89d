// trainscope import SRC... -o OUT.db: other tools' traces into one trainscope trace.
#include <chrono>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/keep_analysis.hpp"
#include "profiler/analysis/figure_format.hpp"
#include "profiler/import/import.hpp"
#include "profiler/import/progress.hpp"
#include "profiler/io/output_file.hpp"

namespace ts::cli {

const char* const kImportHelp =
    R"(usage: trainscope import SRC... -o OUT.db [--step-marker REGEX] [--run NAME] [--allow-partial]

Imports other tools' traces into the trainscope trace OUT.db (SQLite, the schema of
traces/README.md), which every trainscope command and the viewer read. Several SRC go into one
trace, one process per file: the ranks of a distributed job when the files say their rank
(distributedInfo, or rank-N in the file name), else separate processes named by file. SRC is
  - a PyTorch profiler trace: torch.profiler's Chrome-trace JSON (Kineto, any version; .json or
    .json.gz), the bare JSON array of older export_chrome_trace, or any other Chrome trace-event
    JSON (best effort: generic tracks);
  - a directory of such traces (tensorboard_trace_handler writes one file per rank);
  - a TensorFlow profile: a run directory plugins/profile/RUN/ with HOST.xplane.pb files, a log
    directory (its latest run) or one .xplane.pb file.
report, check, diff, export and trainscope-gui also take SRC directly and import it through a
cache; 'import' writes where you say. Prints what was imported: events, processes, how the
steps were found, and what was skipped, by reason. The files of a directory are parsed on every
core. A long import shows its progress on stderr: in place on a terminal; elsewhere a line every
5 s with TRAINSCOPE_PROGRESS=1; never with TRAINSCOPE_PROGRESS=0.

  -o, --output OUT.db    the trace to write (an existing trainscope trace is replaced)
  --step-marker REGEX    a trace without ProfilerStep#N markers: the top-level annotation that
                         marks one training step (default: inferred from the DataLoader's
                         __next__ calls, or a repeating top-level annotation)
  --run NAME             a TensorBoard log directory: the profile run to import
                         (plugins/profile/NAME; default: the latest, the greatest name)
  --allow-partial        write the trace even when more than 1 % of the events read could not
                         be imported (invalid, damaged or unkeyable events; without it the
                         import fails, naming the main reason)
)";

int run_import(Args& args) {
  import::ImportOptions options;
  options.step_marker = args.text("step-marker", "");
  options.tf_run = args.text("run", "");
  options.allow_partial = args.flag("allow-partial");
  std::optional<std::string> out = args.value("output");
  std::vector<std::string> sources;
  const std::vector<std::string> words = args.positionals();
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i] != "-o") {
      sources.push_back(words[i]);
      continue;
    }
    if (i + 1 == words.size()) throw UsageError("-o needs a value: the trace file to write");
    if (out) throw UsageError("give the output once (-o or --output)");
    out = words[++i];
  }
  args.finish();
  if (!out || out->empty())
    throw UsageError("'trainscope import' needs -o OUT.db (the trace file to write)");
  if (sources.empty())
    throw UsageError("'trainscope import' needs at least one trace to import (see --help)");

  for (const std::string& input : sources)
    if (io::same_output(input, *out))
      throw UsageError("the output " + *out + " would overwrite the input " + input);
  const std::string target = io::regular_output_path(*out);
  import::ProgressPrinter progress(std::cerr, import::stderr_progress_style());
  options.progress = [&](const import::ImportProgress& p) { progress.update(p); };
  const auto t0 = std::chrono::steady_clock::now();
  const import::ImportStats s = import::import_traces(sources, target, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  keep_analysis_of(target);  // a large import's first report reads it back (not timed with it)
  namespace fmt = analysis::fmt;
  std::cout << "Imported " << sources.size() << (sources.size() == 1 ? " source" : " sources")
            << " into " << *out << ": " << fmt::count(static_cast<std::int64_t>(s.events_written))
            << " events in " << s.processes << (s.processes == 1 ? " process" : " processes")
            << fmt::printf(", %.1f MB of JSON in %.2f s", static_cast<double>(s.bytes) / 1e6,
                           seconds);
  if (seconds > 0)
    std::cout << fmt::printf(" (%.0f MB/s)", static_cast<double>(s.bytes) / 1e6 / seconds);
  std::cout << ".\n";
  if (!s.unranked.empty()) std::cout << "Processes: " << s.unranked << ".\n";
  std::cout << "Steps: " << (s.steps_source.empty() ? "none found" : s.steps_source) << "\n";
  if (!s.skipped.empty()) {
    std::cout << "Skipped:";
    const char* sep = " ";
    for (const auto& [reason, n] : s.skipped) {
      std::cout << sep << fmt::count(static_cast<std::int64_t>(n)) << " " << reason;
      sep = ", ";
    }
    std::cout << "\n";
  }
  std::cout << "Next: trainscope report " << *out << "   (or trainscope-gui " << *out << ")\n";
  return 0;
}

}  // namespace ts::cli
