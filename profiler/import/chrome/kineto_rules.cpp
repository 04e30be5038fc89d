#include "profiler/import/chrome/kineto_rules.hpp"

#include <array>

#include "profiler/import/common/gpu_op_rules.hpp"

namespace ts::import {

namespace {

using trace::Category;

bool is_space(char c) {
  return c == ' ' || c == '\t';
}

// "Memcpy HtoD (Pageable -> Device)" -> h2d; ROCm's copies carry the kind in args instead.
CopyKind copy_kind_of_name(std::string_view name) {
  const std::size_t p = name.find("Memcpy ");
  if (p == std::string_view::npos || name.size() < p + 11) return CopyKind::none;
  const std::string_view k = name.substr(p + 7, 4);
  if (k[1] != 't' || k[2] != 'o') return CopyKind::none;
  if (k[0] == 'H' && (k[3] == 'D' || k[3] == 'A')) return CopyKind::h2d;
  if ((k[0] == 'D' || k[0] == 'A') && k[3] == 'H') return CopyKind::d2h;
  return CopyKind::other;
}

}  // namespace

CatClass classify_cat(std::string_view c) {
  if (c.empty()) return CatClass::none;
  if (c == "cpu_op" || c == "Operator" || c == "python_function") return CatClass::host_op;
  if (c == "user_annotation") return CatClass::user_annotation;
  if (c == "cuda_runtime" || c == "Runtime" || c == "cuda_driver") return CatClass::runtime;
  if (c == "kernel" || c == "Kernel") return CatClass::kernel;
  if (c == "gpu_memcpy" || c == "Memcpy") return CatClass::memcpy;
  if (c == "gpu_memset" || c == "Memset") return CatClass::memset;
  if (c == "gpu_user_annotation" || c == "User") return CatClass::gpu_annotation;
  if (c == "cuda_sync") return CatClass::cuda_sync;
  if (c == "Trace") return CatClass::trace_span;
  if (c == "overhead") return CatClass::overhead;
  if (c == "collective_comm") return CatClass::collective;
  static constexpr std::array<std::string_view, 9> kOther = {
      "cpu_instant_event",   "cuda_event",  "hpu_op",     "glow_runtime",       "hardware_counters",
      "cuda_profiler_range", "xpu_runtime", "xpu_driver", "privateuse1_runtime"};
  for (const std::string_view k : kOther)
    if (c == k) return CatClass::other_kineto;
  if (c.starts_with("mtia_") || c.starts_with("xpu_") || c.starts_with("privateuse1_"))
    return CatClass::other_kineto;
  return CatClass::unknown;
}

bool is_kineto(CatClass c) {
  return c != CatClass::none && c != CatClass::unknown;
}

std::string_view format_name(TraceFormat f) {
  switch (f) {
    case TraceFormat::kineto:
      return "kineto";
    case TraceFormat::legacy_array:
      return "legacy array";
    case TraceFormat::chrome:
      return "chrome";
  }
  return "chrome";
}

Side side_of(CatClass c, bool gpu_pid, bool device_args) {
  switch (c) {
    case CatClass::kernel:
    case CatClass::memcpy:
    case CatClass::memset:
      return Side::device;
    case CatClass::cuda_sync:
      return Side::device_sync;
    case CatClass::gpu_annotation:
    case CatClass::trace_span:
    case CatClass::overhead:
      return Side::drop;
    case CatClass::host_op:
    case CatClass::user_annotation:
    case CatClass::runtime:
    case CatClass::collective:
      return Side::host;
    default:
      return gpu_pid || device_args ? Side::device : Side::host;
  }
}

Skip drop_reason(CatClass c) {
  switch (c) {
    case CatClass::gpu_annotation:
      return Skip::gpu_annotation;
    case CatClass::trace_span:
      return Skip::trace_span;
    default:
      return Skip::cupti_overhead;
  }
}

std::optional<std::int64_t> profiler_step_number(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep";
  if (!name.starts_with(kPrefix)) return std::nullopt;
  std::size_t i = kPrefix.size();
  while (i < name.size() && is_space(name[i])) ++i;
  if (i == name.size() || name[i] != '#') return std::nullopt;
  ++i;
  while (i < name.size() && is_space(name[i])) ++i;
  std::int64_t n = 0;
  std::size_t digits = 0;
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9'; ++i, ++digits) {
    n = n * 10 + (name[i] - '0');
    if (n > 0x7fffffff) return std::nullopt;
  }
  if (digits == 0) return std::nullopt;
  return n;
}

bool is_dataloader(std::string_view name) {
  return name.starts_with("enumerate(DataLoader)#") || name.starts_with("enumerate(DataPipe)#");
}

Category category_of(std::string_view name, CatClass c, Side side, CopyKind kind,
                     const Rules& rules) {
  if (side == Side::device_sync) return Category::sync;
  if (side == Side::device) {
    switch (c) {
      case CatClass::kernel:
        return is_collective_kernel(name) ? Category::collective : Category::kernel;
      case CatClass::memcpy: {
        const CopyKind k =
            copy_kind_of_name(name) != CopyKind::none ? copy_kind_of_name(name) : kind;
        // Device-to-device, peer and host-to-host copies occupy the device like a kernel does:
        // they are kernels under their own names, so they count as device busy.
        return k == CopyKind::h2d   ? Category::h2d
               : k == CopyKind::d2h ? Category::d2h
                                    : Category::kernel;
      }
      case CatClass::memset:
        return Category::kernel;
      case CatClass::none:
        // The legacy profiler's "CUDA functions" rows are kernels.
        return rules.format == TraceFormat::legacy_array ? Category::kernel : Category::other;
      default:
        return Category::other;
    }
  }
  // Host. Marker names first: they are user annotations (or ops, or cat-less rows in the legacy
  // array), whatever the generation.
  const bool annotation_like = c == CatClass::user_annotation || c == CatClass::host_op ||
                               c == CatClass::none || c == CatClass::unknown;
  if (rules.profiler_steps && annotation_like && c != CatClass::unknown &&
      profiler_step_number(name))
    return Category::step;
  if (is_dataloader(name)) return Category::input_wait;
  if (name.starts_with("Optimizer.step#") || name.starts_with("Optimizer.zero_grad#"))
    return Category::optimizer;
  if (annotation_like && (name.starts_with("nccl:") || name.starts_with("gloo:")))
    return Category::collective;
  if (name == "record_param_comms" && c != CatClass::runtime) return Category::collective;
  switch (c) {
    case CatClass::runtime:
      return is_sync_call(name) ? Category::sync : Category::launch;
    case CatClass::host_op:
    case CatClass::user_annotation:
      return Category::host_compute;
    case CatClass::collective:
      return Category::collective;
    case CatClass::none:
      return rules.format == TraceFormat::chrome ? Category::other : Category::host_compute;
    default:
      return Category::other;
  }
}

}  // namespace ts::import
