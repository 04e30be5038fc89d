// Why an event of the input did not become a row of the trace. The names are stable: they are
// the keys of ImportStats::skipped and of the meta rows import.skipped.<name>.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace ts::import {

enum class Skip : std::uint8_t {
  not_an_object,        // an element of traceEvents that is not an object
  missing_phase,        // no "ph"
  unknown_phase,        // a "ph" the Trace Event Format does not define
  unsupported_phase,    // defined but not imported: samples, objects, memory dumps, marks, ...
  async_event,          // b/e/n and the deprecated S/T/p/F async events
  flow,                 // s/t/f flow events (links come from args.correlation instead)
  missing_timestamp,    // no usable "ts"
  invalid_timestamp,    // ts not a number, or outside +-2^61 ns (73 years from 1970)
  missing_duration,     // an X event without "dur"
  negative_duration,    // dur < 0, or an E before its B
  invalid_duration,     // dur not a number or too large
  number_out_of_range,  // an event holding a number too large for a double (1e999, 400 digits)
  unpaired_end,         // an E with no open B on its thread
  unclosed_begin,       // a B never ended
  duplicate,            // same track, start, duration, name and category as another event
  instant_event,        // instants other than [memory] (Iteration Start, Record Window End, ...)
  trace_span,           // Kineto's "Trace" spans (the profiling window)
  cupti_overhead,       // Kineto's "overhead" activities
  gpu_annotation,       // gpu_user_annotation: device copies of host annotations, never busy
  invalid_counter,      // a counter sample that is not a finite number
  too_many_tracks,      // more than 65 535 tracks
  name_truncated,       // names longer than 16 KiB, cut (the event is kept)
  truncated_file,       // the file ends inside the JSON (a job killed while writing it)
  syntax_error,         // invalid JSON before the end: the rest of the file is not read
  nesting_too_deep,     // JSON nested deeper than 64 levels: the rest of the file is not read
  gzip_error,           // corrupt gzip data: the rest of the file is not read
  unsupported_plane,    // TensorFlow profiles: events of planes not imported (TPU, /host:metadata)
  derived_line,         // TensorFlow profiles: device lines other than streams (XLA Ops, Steps)
  out_of_key_range,     // starts more than 2^47 ns (about 39 h) from the trace's first event: the
                        // store cannot key them (profiler/store/event_key.hpp)
};
inline constexpr int kSkipCount = static_cast<int>(Skip::out_of_key_range) + 1;

std::string_view skip_name(Skip s);

// Whether events skipped for `s` are lost data (a damaged, invalid or unkeyable event), as
// opposed to what the import leaves out by design (flows, instants, duplicates, annotations the
// device copies, planes it does not read). An import losing more than kMaxLostShare of the
// events it read fails unless partial imports are allowed (ImportOptions::allow_partial).
bool is_loss(Skip s);
// The same for a reason's name ("negative_duration"); false for a name that is no reason.
bool is_loss(std::string_view reason);
inline constexpr double kMaxLostShare = 0.01;

struct SkipCounts {
  std::array<std::uint64_t, kSkipCount> n{};
  void add(Skip s, std::uint64_t count = 1) { n[static_cast<int>(s)] += count; }
  std::uint64_t operator[](Skip s) const { return n[static_cast<int>(s)]; }
  SkipCounts& operator+=(const SkipCounts& o) {
    for (int i = 0; i < kSkipCount; ++i) n[i] += o.n[i];
    return *this;
  }
  // Nonzero counts by name.
  void add_to(std::map<std::string, std::uint64_t>& out) const;
};

}  // namespace ts::import
