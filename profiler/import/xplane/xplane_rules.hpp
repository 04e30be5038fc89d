// What an event of a TensorFlow profile is in trainscope's taxonomy, from its plane, line and
// names (README.md, "TensorFlow profiles"): pure functions of strings, called once per event
// metadata of a plane (and per event only for device copies, whose kind is in their stats).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "trainscope/taxonomy.hpp"

namespace ts::import {

enum class PlaneKind : std::uint8_t {
  host_cpu,          // "/host:CPU": host threads (TraceMe annotations, TF ops, tf.data)
  driver_api,        // "/host:CUPTI", "/host:ROCTRACER": CUDA/HIP API calls per host thread
  gpu,               // "/device:GPU:<n>": one line per stream
  task_environment,  // "Task Environment": when the profile ran (plane stats)
  unsupported,       // everything else: TPU and custom devices, /host:metadata, python tracer
};
PlaneKind plane_kind(std::string_view plane_name);
// N of "/device:GPU:N"; nullopt for other names.
std::optional<std::int64_t> gpu_ordinal(std::string_view plane_name);

// The lines of a device plane.
enum class DeviceLine : std::uint8_t {
  stream,    // "Stream #<id>" or "Stream #<id>(<activity kinds>)": a device queue
  overhead,  // "CUPTI overhead": the tracer's own cost, never device work
  derived,   // anything else (XLA Ops, Steps, ... added by analysis tools)
};
DeviceLine device_line(std::string_view line_name);

// tf.data's own threads (tf_data_iterator_resource, tf_data_private_threadpool, ...) run the
// pipeline beside the training: never the trainer. tf_data_iterator_get_next is not one of them:
// it runs IteratorGetNext for the training step (the input wait).
bool is_tf_data_worker(std::string_view line_name);

// The short kind of a tf.data iterator event, from the last component of its path:
// "Iterator::Root::Prefetch::BatchV2" -> "BatchV2", "...::FlatMap[0]::TFRecord" -> "TFRecord".
// Empty when the name does not start with "Iterator::".
std::string_view iterator_kind(std::string_view name);
// Whether a tf.data kind makes batches (its batch_size stat is the pipeline's batch size).
bool is_batching_kind(std::string_view kind);
// The input stage of a tf.data kind: input_read (sources), input_map, input_decode (ParseExample),
// input_batch; `other` for the stages that only pass elements on (Root, Prefetch, Cache, Shuffle,
// Repeat, Take, Zip, Options, ...).
trace::Category stage_category(std::string_view kind);

// The op type of a TF op event "<node name>:<op type>" (display name = op type); empty when the
// event is no op.
std::string_view op_type(std::string_view name, std::string_view display_name);

// IteratorGetNext*: the training step waiting for its input (XProf's HOST_WAIT_INPUT).
bool is_get_next(std::string_view name, std::string_view op);
// MemoryAllocation / MemoryDeallocation: instants carrying an allocator's bytes in use.
bool is_memory_event(std::string_view name);
// XProf's explicit host step marker names: "train*", "test*", "TraceContext", without '/'.
bool is_step_marker_name(std::string_view name);
// Roots that mark a function run, not a step: FunctionRun, SessionRun, RunGraph, executors.
bool is_implicit_root(std::string_view name);

// A /host:CPU event by its names (after iterator events and step markers are handled).
trace::Category host_category(std::string_view name, std::string_view display_name);
// A CUDA/HIP API call: `sync` when it blocks the host until the device is done, else `launch`.
trace::Category driver_category(std::string_view name);

// A device (stream) event: kernel, collective, h2d, d2h; copies between devices and memsets are
// `kernel` (device busy). bytes: from memcpy_details/memset_details "size:N" or "num_bytes:N".
struct DeviceClass {
  trace::Category category = trace::Category::kernel;
  std::optional<std::int64_t> bytes;
};
DeviceClass device_class(std::string_view name, std::string_view memcpy_details,
                         std::string_view memset_details);
// N of the first "size:N" or "num_bytes:N" in a details string.
std::optional<std::int64_t> detail_bytes(std::string_view details);

}  // namespace ts::import
