// What an event is, from its "cat" and name: the Kineto categories of every generation
// ("Kernel"/"kernel", "Runtime"/"cuda_runtime", "Operator"/"cpu_op", ...), CUDA and ROCm (hip*)
// runtime names (common/gpu_op_rules.hpp), and PyTorch's marker names (ProfilerStep#N,
// DataLoader, Optimizer, NCCL).
// Pure functions of strings; the mapper calls them once per distinct (name, cat) pair.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "profiler/import/chrome/raw_event.hpp"
#include "trainscope/taxonomy.hpp"

namespace ts::import {

// The "cat" of an event, across Kineto's renames.
enum class CatClass : std::uint8_t {
  none,             // no "cat"
  host_op,          // cpu_op, Operator, python_function
  user_annotation,  // user_annotation (record_function)
  runtime,          // cuda_runtime, Runtime, cuda_driver
  kernel,           // kernel, Kernel
  memcpy,           // gpu_memcpy, Memcpy
  memset,           // gpu_memset, Memset
  gpu_annotation,   // gpu_user_annotation, User
  cuda_sync,        // cuda_sync
  trace_span,       // Trace
  overhead,         // overhead (CUPTI)
  collective,       // collective_comm
  other_kineto,     // Kineto's other activity types (cuda_event, mtia_*, xpu_*, ...)
  unknown,          // anything else (a generic Chrome trace's own categories)
};
CatClass classify_cat(std::string_view cat);
bool is_kineto(CatClass c);  // a category only Kineto (or the legacy profiler) writes

enum class TraceFormat : std::uint8_t { kineto, legacy_array, chrome };
std::string_view format_name(TraceFormat f);  // "kineto", "legacy array", "chrome"

// Where an event goes.
enum class Side : std::uint8_t {
  host,         // its host thread's track
  device,       // the device queue (pid = device, tid = stream)
  device_sync,  // cuda_sync activities: the device's "GPU n sync" track, never device-busy
  drop,         // not imported (the reason is drop_reason())
};
// gpu_pid: the event's pid is a device (process_labels "GPU n", ...); device_args: the event's
// args name a device and a stream.
Side side_of(CatClass c, bool gpu_pid, bool device_args);
Skip drop_reason(CatClass c);

struct Rules {
  TraceFormat format = TraceFormat::kineto;
  bool profiler_steps = true;  // ProfilerStep#N is a step (false under --step-marker)
};
trace::Category category_of(std::string_view name, CatClass c, Side side, CopyKind kind,
                            const Rules& rules);

// N of a host "ProfilerStep#N" (^ProfilerStep\s*#\s*(\d+)), nullopt for other names or an N
// beyond 2^31.
std::optional<std::int64_t> profiler_step_number(std::string_view name);
bool is_dataloader(std::string_view name);  // ^enumerate\((DataLoader|DataPipe)\)#

}  // namespace ts::import
