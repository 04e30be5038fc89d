#include "profiler/import/xplane/xplane_rules.hpp"

#include <array>
#include <cctype>

#include "profiler/import/common/gpu_op_rules.hpp"

namespace ts::import {

namespace {

using trace::Category;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

bool istarts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

bool icontains(std::string_view s, std::string_view part) {
  for (std::size_t i = 0; i + part.size() <= s.size(); ++i)
    if (iequals(s.substr(i, part.size()), part)) return true;
  return false;
}

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

// "ParallelMapV2" -> "ParallelMap", "BatchV2" -> "Batch": tf.data versions its dataset kinds.
std::string_view without_version(std::string_view kind) {
  std::size_t end = kind.size();
  while (end > 0 && is_digit(kind[end - 1])) --end;
  if (end < kind.size() && end >= 2 && kind[end - 1] == 'V') return kind.substr(0, end - 1);
  return kind;
}

template <std::size_t N>
bool one_of(std::string_view s, const std::array<std::string_view, N>& set) {
  for (const std::string_view x : set)
    if (s == x) return true;
  return false;
}

// Sources: where elements come from (files, tensors, generators).
constexpr std::array<std::string_view, 17> kReadKinds = {"TensorSlice",
                                                         "SparseTensorSlice",
                                                         "TFRecord",
                                                         "TextLine",
                                                         "FixedLengthRecord",
                                                         "SSTable",
                                                         "RecordIO",
                                                         "ArrayRecord",
                                                         "Generator",
                                                         "FromTensor",
                                                         "Range",
                                                         "CSV",
                                                         "Sql",
                                                         "LMDB",
                                                         "DataService",
                                                         "Load",
                                                         "ListFiles"};
// Transformations that run a user function on each element (or element of an input).
constexpr std::array<std::string_view, 9> kMapKinds = {
    "Map",        "ParallelMap",        "MapAndBatch",
    "Interleave", "ParallelInterleave", "FlatMap",
    "Filter",     "ParallelFilter",     "LegacyParallelInterleave"};
// Transformations that group elements into batches (or split them).
constexpr std::array<std::string_view, 6> kBatchKinds = {
    "Batch", "PaddedBatch", "ParallelBatch", "Unbatch", "Rebatch", "DenseToSparseBatch"};

// Optimizer name scopes of Keras 2 ("Adam/...") and Keras 3 (".../adam/..."), compared
// without case.
constexpr std::array<std::string_view, 15> kOptimizerScopes = {"adam",
                                                               "adamw",
                                                               "sgd",
                                                               "rmsprop",
                                                               "adagrad",
                                                               "adadelta",
                                                               "adamax",
                                                               "nadam",
                                                               "ftrl",
                                                               "lion",
                                                               "adafactor",
                                                               "lamb",
                                                               "loss_scale_optimizer",
                                                               "optimizer",
                                                               "lossscaleoptimizer"};

bool is_optimizer_op(std::string_view name, std::string_view op) {
  if (op.starts_with("ResourceApply") || op.starts_with("ResourceSparseApply") ||
      op.starts_with("Apply") || op.starts_with("SparseApply"))
    return true;
  // A scope component of the node name (not its own last component).
  const std::string_view node = name.substr(0, name.rfind(':'));
  std::size_t begin = 0;
  for (std::size_t slash; (slash = node.find('/', begin)) != std::string_view::npos;
       begin = slash + 1)
    for (const std::string_view scope : kOptimizerScopes)
      if (iequals(node.substr(begin, slash - begin), scope)) return true;
  return false;
}

bool is_decode_op(std::string_view op) {
  return op.starts_with("Decode") || op == "ParseTensor" ||
         (op.starts_with("Parse") && contains(op, "Example"));
}

// XProf's IsRealCpuCompute exclusions and tf.data's plumbing: events that only contain others.
bool is_container(std::string_view name) {
  if (name.starts_with("EagerExecute") || name.starts_with("EagerLocalExecute") ||
      name.starts_with("EagerKernelExecute") || name.starts_with("FunctionRun") ||
      is_step_marker_name(name) || name == "Profiled batch")
    return true;
  // The user function a tf.data stage calls (its time belongs to the stage around it) and the
  // producer/consumer halves of asynchronous stages (PrefetchProduce, ParallelMapConsume, ...).
  if (name.starts_with("InstantiatedCapturedFunction::")) return true;
  if ((name.ends_with("Produce") || name.ends_with("Consume")) && !contains(name, ":") &&
      !contains(name, " "))
    return true;
  return false;
}

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '-';
}

}  // namespace

PlaneKind plane_kind(std::string_view n) {
  if (n == "/host:CPU") return PlaneKind::host_cpu;
  if (n == "/host:CUPTI" || n == "/host:ROCTRACER") return PlaneKind::driver_api;
  if (gpu_ordinal(n)) return PlaneKind::gpu;
  if (n == "Task Environment") return PlaneKind::task_environment;
  return PlaneKind::unsupported;
}

std::optional<std::int64_t> gpu_ordinal(std::string_view n) {
  constexpr std::string_view prefix = "/device:GPU:";
  if (!n.starts_with(prefix) || n.size() == prefix.size() || n.size() > prefix.size() + 9)
    return std::nullopt;
  std::int64_t v = 0;
  for (const char c : n.substr(prefix.size())) {
    if (!is_digit(c)) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

DeviceLine device_line(std::string_view n) {
  if (n.starts_with("Stream #")) return DeviceLine::stream;
  if (n == "CUPTI overhead") return DeviceLine::overhead;
  return DeviceLine::derived;
}

bool is_tf_data_worker(std::string_view line_name) {
  return line_name.starts_with("tf_data") && !line_name.starts_with("tf_data_iterator_get_next");
}

std::string_view iterator_kind(std::string_view name) {
  constexpr std::string_view prefix = "Iterator::";
  if (!name.starts_with(prefix)) return {};
  std::string_view kind = name.substr(name.rfind("::") + 2);
  if (const std::size_t bracket = kind.find('['); bracket != std::string_view::npos)
    kind = kind.substr(0, bracket);
  return kind;
}

bool is_batching_kind(std::string_view kind) {
  const std::string_view k = without_version(kind);
  return k == "Batch" || k == "PaddedBatch" || k == "ParallelBatch" || k == "MapAndBatch";
}

Category stage_category(std::string_view kind) {
  const std::string_view k = without_version(kind);
  if (one_of(k, kMapKinds)) return Category::input_map;
  if (one_of(k, kBatchKinds)) return Category::input_batch;
  if (one_of(k, kReadKinds)) return Category::input_read;
  if (k == "ParseExample") return Category::input_decode;
  return Category::other;
}

std::string_view op_type(std::string_view name, std::string_view display_name) {
  if (!display_name.empty() && !display_name.starts_with("Iterator::")) return display_name;
  const std::size_t colon = name.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == name.size()) return {};
  if (name[colon - 1] == ':') return {};  // "a::b", a C++ name
  const std::string_view op = name.substr(colon + 1);
  for (const char c : op)
    if (!is_identifier_char(c)) return {};
  return op;
}

bool is_get_next(std::string_view name, std::string_view op) {
  return name.starts_with("IteratorGetNext") || op.starts_with("IteratorGetNext") ||
         op.starts_with("MultiDeviceIteratorGetNext");
}

bool is_memory_event(std::string_view name) {
  return name == "MemoryAllocation" || name == "MemoryDeallocation";
}

bool is_step_marker_name(std::string_view name) {
  return (name.starts_with("train") || name.starts_with("test") ||
          name.starts_with("TraceContext")) &&
         !contains(name, "/");
}

bool is_implicit_root(std::string_view name) {
  return name.starts_with("FunctionRun") || name.starts_with("SessionRun") ||
         name.starts_with("RunGraph") || name.starts_with("ExecutorState::") ||
         name.starts_with("EagerExecute");
}

Category host_category(std::string_view name, std::string_view display_name) {
  if (const std::string_view kind = iterator_kind(name); !kind.empty()) return stage_category(kind);
  const std::string_view op = op_type(name, display_name);
  if (is_get_next(name, op)) return Category::input_wait;
  if (is_container(name)) return Category::other;
  if (!op.empty()) {
    if (is_decode_op(op)) return Category::input_decode;
    if (is_optimizer_op(name, op)) return Category::optimizer;
  }
  return Category::host_compute;
}

Category driver_category(std::string_view name) {
  if (is_sync_call(name)) return Category::sync;
  // Blocking copies of the driver API (cuMemcpy, cuMemcpyHtoD_v2, cuMemcpy2D, ...) and HIP's.
  if ((name.starts_with("cuMemcpy") || name.starts_with("hipMemcpy")) && !contains(name, "Async"))
    return Category::sync;
  return Category::launch;
}

std::optional<std::int64_t> detail_bytes(std::string_view details) {
  for (const std::string_view key : {std::string_view("size:"), std::string_view("num_bytes:")}) {
    for (std::size_t p = details.find(key); p != std::string_view::npos;
         p = details.find(key, p + 1)) {
      if (p > 0 && details[p - 1] != ' ' && details[p - 1] != ',') continue;  // not "xsize:"
      std::size_t i = p + key.size();
      std::int64_t v = 0;
      const std::size_t first = i;
      for (; i < details.size() && is_digit(details[i]) && i - first < 18; ++i)
        v = v * 10 + (details[i] - '0');
      if (i > first) return v;
    }
  }
  return std::nullopt;
}

DeviceClass device_class(std::string_view name, std::string_view memcpy_details,
                         std::string_view memset_details) {
  DeviceClass out;
  const bool memset = istarts_with(name, "memset") || !memset_details.empty();
  const bool memcpy = !memset && (istarts_with(name, "memcpy") || !memcpy_details.empty());
  if (memset) {
    out.bytes = detail_bytes(memset_details);
    return out;  // a kernel: it occupies the device
  }
  if (!memcpy) {
    out.category = is_collective_kernel(name) || istarts_with(name, "nccl") ? Category::collective
                                                                            : Category::kernel;
    return out;
  }
  out.bytes = detail_bytes(memcpy_details);
  // The direction: from the name (MemcpyH2D, MemcpyHtoD, MEMCPYHToD, ...), else from the details
  // ("kind:HtoD", or "kind_src:<memory kind> kind_dst:<memory kind>").
  const auto direction = [](std::string_view s) -> Category {
    if (icontains(s, "htod") || icontains(s, "h2d")) return Category::h2d;
    if (icontains(s, "dtoh") || icontains(s, "d2h")) return Category::d2h;
    return Category::kernel;
  };
  out.category = direction(name);
  if (out.category != Category::kernel) return out;
  out.category = direction(memcpy_details);
  if (out.category != Category::kernel) return out;
  const auto memory_kind = [&](std::string_view key) -> std::string_view {
    const std::size_t p = memcpy_details.find(key);
    if (p == std::string_view::npos) return {};
    const std::string_view rest = memcpy_details.substr(p + key.size());
    return rest.substr(0, rest.find(' '));
  };
  const auto host = [](std::string_view k) { return k == "pageable" || k == "pinned"; };
  const auto device = [](std::string_view k) {
    return k == "device" || k == "array" || k == "device_static";
  };
  const std::string_view src = memory_kind("kind_src:"), dst = memory_kind("kind_dst:");
  if (host(src) && device(dst)) out.category = Category::h2d;
  if (device(src) && host(dst)) out.category = Category::d2h;
  return out;
}

}  // namespace ts::import
