// Maps one parsed file onto the trace being written (README.md, "Mapping"): the file becomes a
// process; its threads, device streams and counters become tracks; each event gets a category
// (kineto_rules), an absolute start, a step and its correlation id; then its rows are sorted
// and written. Works in two passes over the events: the first classifies them and collects what
// steps need, the second (on several threads, chunk by chunk, freeing each parsed chunk as it
// goes) builds and sorts the rows.
#pragma once

#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "profiler/import/chrome/kineto_rules.hpp"
#include "profiler/import/chrome/raw_event.hpp"
#include "profiler/import/common/trace_sink.hpp"

namespace ts::import {

struct FileContext {
  std::string path;
  std::uint32_t process = 1;              // the process row's id
  bool several = false;                   // more than one file is imported
  std::optional<std::int64_t> name_rank;  // the rank the file name says, when several files
};

struct MapOptions {
  const std::regex* step_marker = nullptr;  // --step-marker, compiled
  std::string step_marker_text;
  int threads = 2;
};

struct FileSummary {
  TraceFormat format = TraceFormat::chrome;
  std::string steps_source;
  std::int64_t steps = 0;
  std::optional<std::int64_t> rank, world_size;
  std::vector<std::uint32_t> trainer_tracks;
  std::vector<std::string> device_names;
  std::vector<DeviceProperties> devices;
  double occupancy_weighted_ns = 0, occupancy_ns = 0;  // ParsedFile's
  std::string backend, display_time_unit, trace_name, parse_error;
  SkipCounts skipped;
  std::uint64_t events_read = 0, events_written = 0, bytes = 0;
  std::int64_t first_start = kNone;  // the earliest event start written
};

// Consumes `file` (its events are freed as they are written).
FileSummary map_file(ParsedFile& file, const FileContext& context, const MapOptions& options,
                     TraceSink& sink);

}  // namespace ts::import
