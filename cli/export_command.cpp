// trainscope export FILE --chrome OUT.json: the trace as Chrome trace-event JSON for Perfetto UI
// (ui.perfetto.dev) and chrome://tracing.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/trace_input.hpp"
#include "profiler/analysis/figure_format.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/io/chrome_trace.hpp"

namespace ts::cli {

const char* const kExportHelp = R"(usage: trainscope export FILE --chrome OUT.json [--no-analysis]

Writes the trace FILE as Chrome trace-event JSON, which Perfetto UI (https://ui.perfetto.dev)
and chrome://tracing open. Host threads are threads of the process "host", device queues
threads of the process "device"; every recorded event is one complete ("X") event with its
category as "cat" and its step, bytes, work size, correlation id and source location as
"args"; counters (prefetch buffer fill, device memory) are "C" events; a launch and the
kernel or copy it enqueued (a shared correlation id) are joined by a flow arrow ("s" on the
host, "f" on the device, id = the correlation id). The analysis comes along as the process
"trainscope analysis": a track of the steps, each named with its input share and marked when
input-bound, and a track of the device's idle gaps (10 µs or longer) named by cause
(--no-analysis leaves it out). Timestamps are
microseconds since the capture started. The file is written as it is read (a trace of millions
of events needs no more memory than a small one) and appears only once complete.

  --no-analysis      write the recorded events only, without the analysis tracks
  --chrome OUT.json  the file to write ('-' for standard output; a device or a FIFO is
                     written to, a symbolic link's target replaced); a name ending in .gz
                     is written gzip-compressed, on a second thread (Perfetto UI opens it)
)";

namespace {

// The diagnosis as tracks of the export: each step with its verdict and input share, and the
// device's idle gaps (10 µs or longer) with their cause. None for a trace without steps.
io::ChromeAnnotations analysis_tracks(const store::Reader& reader) {
  io::ChromeAnnotations a;
  if (reader.steps().empty()) return a;
  analysis::AnalysisOptions options;
  options.min_listed_gap_ns = 10'000;
  const analysis::Report r = analysis::analyse(reader, options);
  std::vector<io::ChromeSlice> steps;
  for (const analysis::StepSummary& s : r.per_step)
    steps.push_back({s.start_ns, s.dur_ns,
                     "step " + std::to_string(s.step) +
                         (s.input_bound ? " · input-bound, input " : " · input ") +
                         analysis::fmt::pct(s.input_pct) + (s.warmup ? " (warm-up)" : ""),
                     s.input_bound ? "input_bound_step" : "step"});
  const char* run = r.verdict == analysis::Verdict::high       ? "highly input-bound"
                    : r.verdict == analysis::Verdict::moderate ? "moderately input-bound"
                                                               : "not input-bound";
  a.tracks.emplace_back(std::string("steps (the run: ") + run + ")", std::move(steps));
  if (r.device.has_device) {
    std::vector<io::ChromeSlice> gaps;
    for (const analysis::IdleGap& g : r.device.gaps) {
      const std::string cause(analysis::idle_cause_name(g.cause));
      gaps.push_back({g.start_ns, g.end_ns - g.start_ns, "idle · " + cause, "idle:" + cause});
    }
    a.tracks.emplace_back("device idle (by cause)", std::move(gaps));
  }
  return a;
}

// Whether `path` names the file (pipe, terminal, device) this process's standard output is.
bool is_standard_output(const std::string& path) {
  struct stat out {
  }, named{};
  return ::fstat(STDOUT_FILENO, &out) == 0 && ::stat(path.c_str(), &named) == 0 &&
         out.st_dev == named.st_dev && out.st_ino == named.st_ino;
}

}  // namespace

int run_export(Args& args) {
  const auto out = args.value("chrome");
  const bool args_no_analysis = args.flag("no-analysis");
  const TraceOptions trace = trace_options(args);
  const std::string file = trace_arguments(args, 1, "one trace file")[0];
  if (!out || out->empty())
    throw UsageError("'trainscope export' needs --chrome OUT.json (the format to write)");
  std::error_code ec;
  if (*out != "-" && std::filesystem::equivalent(file, *out, ec))
    throw UsageError("--chrome " + *out + " would overwrite the trace it exports");

  const auto reader = open_trace(file, trace);
  io::ChromeAnnotations annotations;
  if (!args_no_analysis) {
    try {
      annotations = analysis_tracks(*reader);
    } catch (const std::exception& e) {  // the recorded events are still worth writing
      std::cerr << "trainscope: the analysis tracks are left out (" << e.what() << ")\n";
    }
  }
  const io::ChromeTraceStats s = io::write_chrome_trace(*reader, *out, &annotations);
  if (*out == "-") return 0;
  // The summary never joins the export itself (`--chrome /dev/stdout | gzip`): it goes to stderr
  // when the output is this process's standard output by another name.
  std::ostream& summary = is_standard_output(*out) ? std::cerr : std::cout;
  summary << "Wrote " << *out << ": " << s.complete_events << " events, " << s.counter_events
          << " counter samples, " << s.metadata_events
          << " metadata records. Open it in https://ui.perfetto.dev or chrome://tracing.\n";
  return 0;
}

}  // namespace ts::cli
