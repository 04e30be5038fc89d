// trainscope export FILE --chrome OUT.json: the trace as Chrome trace-event JSON for Perfetto UI
// (ui.perfetto.dev) and chrome://tracing.
#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/trace_input.hpp"
#include "profiler/io/chrome_trace.hpp"

namespace ts::cli {

const char* const kExportHelp = R"(usage: trainscope export FILE --chrome OUT.json

Writes the trace FILE as Chrome trace-event JSON, which Perfetto UI (https://ui.perfetto.dev)
and chrome://tracing open. Host threads are threads of the process "host", device queues
threads of the process "device"; every recorded event is one complete ("X") event with its
category as "cat" and its step, bytes, work size, correlation id and source location as
"args"; counters (prefetch buffer fill, device memory) are "C" events; a launch and the
kernel or copy it enqueued (a shared correlation id) are joined by a flow arrow ("s" on the
host, "f" on the device, id = the correlation id). Timestamps are
microseconds since the capture started. The file is written as it is read (a trace of millions
of events needs no more memory than a small one) and appears only once complete.

  --chrome OUT.json  the file to write ('-' for standard output; a device or a FIFO is
                     written to, a symbolic link's target replaced)
)";

int run_export(Args& args) {
  const auto out = args.value("chrome");
  const TraceOptions trace = trace_options(args);
  const std::string file = trace_arguments(args, 1, "one trace file")[0];
  if (!out || out->empty())
    throw UsageError("'trainscope export' needs --chrome OUT.json (the format to write)");
  std::error_code ec;
  if (*out != "-" && std::filesystem::equivalent(file, *out, ec))
    throw UsageError("--chrome " + *out + " would overwrite the trace it exports");

  const auto reader = open_trace(file, trace);
  const io::ChromeTraceStats s = io::write_chrome_trace(*reader, *out);
  if (*out == "-") return 0;
  std::cout << "Wrote " << *out << ": " << s.complete_events << " events, " << s.counter_events
            << " counter samples, " << s.metadata_events
            << " metadata records. Open it in https://ui.perfetto.dev or chrome://tracing.\n";
  return 0;
}

}  // namespace ts::cli
