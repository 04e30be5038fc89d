// Maps one TensorFlow profile (one host's XSpace) onto the trace being written (README.md,
// "TensorFlow profiles"): the file becomes a process; each /host:CPU line a thread track, each
// /host:CUPTI line a thread track of driver calls, each GPU stream a device queue; every event
// gets a category (xplane_rules), absolute nanoseconds, a step (xplane_steps) and its
// correlation id. Planes are parsed one at a time and freed once their rows are made; the rows
// are written when the steps are known.
#pragma once

#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "profiler/import/common/none.hpp"
#include "profiler/import/common/skip_reasons.hpp"
#include "profiler/import/common/trace_sink.hpp"
#include "profiler/import/xplane/xplane_file.hpp"

namespace ts::import {

struct XPlaneFileContext {
  std::uint32_t process = 1;                // the process row's id
  std::optional<std::int64_t> rank;         // set when several hosts are imported
  std::string host;                         // the process's name and host
  const std::regex* step_marker = nullptr;  // --step-marker, compiled
  std::string step_marker_text;
};

struct XPlaneSummary {
  std::string steps_source;
  std::int64_t steps = 0;
  std::vector<std::uint32_t> trainer_tracks;
  std::vector<std::string> devices;  // device plane names ("/device:GPU:0")
  // How times were made absolute: profile_start_time added (hosts align) or as recorded.
  bool aligned = false;
  std::optional<std::int64_t> profile_start_ns;
  // The batch size: the step markers' batch_size when they give one number, else the batching
  // tf.data stages' (BatchV2, MapAndBatch, ...) when they agree on one.
  std::optional<std::int64_t> batch;
  SkipCounts skipped;
  std::uint64_t events_read = 0, events_written = 0;
  std::int64_t first_start = kNone;  // the earliest event start written
};

XPlaneSummary map_xplane_file(const XSpaceFile& file, const XPlaneFileContext& context,
                              TraceSink& sink);

}  // namespace ts::import
