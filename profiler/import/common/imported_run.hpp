// What a format reader hands back after writing its events: one ImportedProcess per file it
// imported (each file is one process of the trace), from which common/meta_writer makes the
// trace's meta rows and the ImportStats, the same way for every format.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiler/import/common/device_properties.hpp"
#include "profiler/import/common/none.hpp"
#include "profiler/import/common/skip_reasons.hpp"

namespace ts::import {

struct ImportedProcess {
  std::string source;  // the file read (import.source)
  // How a sentence about several processes names this one: "rank 3", a host, the file's path.
  std::string label;
  std::string format;                // import.format: "kineto", "legacy array", "chrome", "xplane"
  std::string host;                  // import.hosts; "" when the format names none
  std::string run;                   // import.run: the profile run the file came from; "" for none
  std::string clock;                 // clock.alignment: how its times were made absolute
  std::string steps_source;          // steps.source: how its steps were found, one sentence
  std::int64_t steps = 0;            // steps found
  std::optional<std::int64_t> rank;  // the rank the file says (distributedInfo, its name)
  std::optional<std::int64_t> world_size;  // import.world_size
  std::optional<std::int64_t> batch;       // engine.batch, when the file says it
  std::vector<std::uint32_t> trainer_tracks;
  std::vector<std::string> devices;                 // engine.device
  std::vector<DeviceProperties> device_properties;  // device.gpu.<id>.*
  // kernels.achieved_occupancy_pct: the kernels' occupancy x duration summed, and their duration
  double occupancy_weighted_ns = 0, occupancy_ns = 0;
  std::string backend, display_time_unit, trace_name;  // import.distributed_backend, ...
  std::vector<std::string> errors;  // import.error: why reading the file ended early, one line each
  std::vector<std::string> profiler_errors, profiler_warnings;  // what the profiler recorded
  SkipCounts skipped;
  std::uint64_t events_read = 0, events_written = 0;
  std::uint64_t bytes = 0;           // input bytes read (uncompressed)
  std::int64_t first_start = kNone;  // the earliest event start written
};

struct ImportedRun {
  std::string model;  // engine.model: "PyTorch trace", "Chrome trace", "TensorFlow profile"
  std::vector<ImportedProcess> processes;
};

}  // namespace ts::import
