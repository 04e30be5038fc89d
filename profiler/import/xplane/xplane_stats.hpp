// The stats of XPlane events that the importer reads, by name: a plane's stat metadata resolved
// once (stat metadata id -> which stat), then each event's stats (and those of its metadata,
// which hold for every event of that metadata) read in one pass.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "profiler/import/xplane/xplane_file.hpp"

namespace ts::import {

enum class StatKey : std::uint8_t {
  other,
  root,                // _r: a root event (step markers, FunctionRun)
  step_num,            // Keras' step within the epoch, Profiled batch's batch index
  epoch_num,           // Keras 2's epoch (0-based)
  iter_num,            // an executor's iteration
  correlation_id,      // CUPTI: a driver call and the device activity it caused
  memcpy_details,      // "kind_src:pinned kind_dst:device size:4096 ..." (or "kind:HtoD ...")
  memset_details,      // "kind:... num_bytes:... async:..."
  bytes_allocated,     // MemoryAllocation/MemoryDeallocation: the allocator's bytes in use
  allocator_name,      // MemoryAllocation/MemoryDeallocation: e.g. mklcpu, GPU_0_bfc
  tf_function_call,    // a tf.function call (train_function, multi_step_on_iterator)
  batch_size,          // Keras' train marker (when known) and tf.data's batching stages
  profile_start_time,  // Task Environment: the profile's start, ns since the epoch
  profile_stop_time,   // Task Environment: its end
};

// What one event says through its stats. Integers come as int64_value or uint64_value (the
// same stat may use either), or as a double holding an integer; text as str_value or ref_value.
struct EventStats {
  std::optional<std::int64_t> root, step_num, epoch_num, iter_num, correlation, bytes_allocated,
      batch_size;
  std::string_view memcpy_details, memset_details, allocator;
  bool tf_function_call = false;
};

// Task Environment's plane stats: when the profile ran, ns since the epoch.
struct PlaneTimes {
  std::optional<std::int64_t> start_ns, stop_ns;
};

class StatNames {
 public:
  explicit StatNames(const xp::XPlane& plane);
  StatKey key(std::int64_t metadata_id) const;
  // The text a ref_value names: the name of that stat metadata ("" when unknown).
  std::string_view ref_text(std::uint64_t ref) const;

  // The event's stats, then its metadata's (metadata may be null); an event's own stat wins.
  EventStats read(const xp::XEvent& event, const xp::XEventMetadata* metadata) const;
  // The plane's own stats (Task Environment's profile_start_time and profile_stop_time).
  PlaneTimes read_plane(const xp::XPlane& plane) const;

 private:
  void add(const google::protobuf::RepeatedPtrField<xp::XStat>& stats, EventStats& out) const;
  std::optional<std::int64_t> integer(const xp::XStat& s) const;
  std::string_view text(const xp::XStat& s) const;

  const xp::XPlane& plane_;
  std::unordered_map<std::int64_t, StatKey> keys_;
};

}  // namespace ts::import
