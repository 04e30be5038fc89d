// Chrome trace-event JSON export (the format Perfetto UI and chrome://tracing open; see
// "Trace Event Format", Google, 2016). Layout of the output:
//
//   process 1 "host":   one thread per host thread track (tid = track id), counters as "C"
//                       events ({"value": v}, skipped when not finite)
//   process 2 "device": one thread per device queue track (present when the trace has any)
//   every event:        a complete "X" event, name = its label, cat = its category,
//                       args = bytes, step, work_size, correlation (when present) and the
//                       source location of host zones
//   metadata:           process_name / thread_name / *_sort_index "M" events; the trace's
//                       meta table as "otherData"
//
// Timestamps are microseconds (with nanosecond decimals) since the trace start: the capture's
// clock.origin_ns, or the first event when that is absent or later. Events and counter samples
// are streamed from the reader in time order, one event per line; nothing is held in memory but
// one buffer.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "profiler/json/writer.hpp"

namespace ts::store {
class Reader;
}

namespace ts::io {

// The output stream failed (disk full, closed pipe).
using WriteError = json::WriteError;

inline constexpr std::int64_t kHostPid = 1;
inline constexpr std::int64_t kDevicePid = 2;
inline constexpr std::int64_t kAnalysisPid = 3;  // the annotation tracks, when written

struct ChromeTraceStats {
  std::int64_t complete_events = 0;  // "X": one per stored event
  std::int64_t counter_events = 0;   // "C": one per finite counter sample
  std::int64_t metadata_events = 0;  // "M": process and thread names and sort indices
  // "s" and "f": one per event with a correlation id, so that a launch and the kernel (or copy)
  // it enqueued are joined by an arrow ("s" on the host side, "f" on the device side).
  std::int64_t flow_events = 0;
  std::int64_t annotation_events = 0;  // "X" slices of the annotation tracks
  std::int64_t origin_ns = 0;          // the host time written as ts 0
  std::int64_t total() const {
    return complete_events + counter_events + metadata_events + flow_events + annotation_events;
  }
};

// Tracks of slices that are not in the trace but about it (the analysis' input-bound steps and
// the device's idle gaps with their cause), written as threads of a third process.
struct ChromeSlice {
  std::int64_t start_ns = 0, dur_ns = 0;
  std::string name;  // "step 12 · input-bound, input 63.1 %", "idle · waiting for input"
  std::string cat;   // "input_bound_step", "idle:input", ...
};
struct ChromeAnnotations {
  std::string process = "trainscope analysis";
  std::vector<std::pair<std::string, std::vector<ChromeSlice>>> tracks;  // (thread name, slices)
};

// Writes the whole trace to `out`, and `annotations` when given. Throws store::Error when the
// trace cannot be read and WriteError when `out` fails.
ChromeTraceStats write_chrome_trace(const store::Reader& reader, std::ostream& out,
                                    const ChromeAnnotations* annotations = nullptr);

// Writes to `path` as write_output does (output_file.hpp), gzip-compressed on a second thread when
// the name ends in ".gz" (gzip_stream.hpp): "-" is standard output, a file is
// replaced only once complete (a failed export never leaves a truncated JSON file behind), a
// symbolic link's target gets the content, a device or FIFO is written to. WriteError names the
// path.
ChromeTraceStats write_chrome_trace(const store::Reader& reader, const std::string& path,
                                    const ChromeAnnotations* annotations = nullptr);

}  // namespace ts::io
