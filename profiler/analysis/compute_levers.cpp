// The compute levers (lever_rules.hpp): the optimizer, mixed precision and the top kernels, from
// the kernel table's names and the lever facts.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

#include "profiler/analysis/figure_format.hpp"
#include "profiler/analysis/lever_rules.hpp"
#include "profiler/analysis/levers.hpp"
#include "profiler/analysis/step_breakdown.hpp"

namespace ts::analysis::lever_rules {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

template <std::size_t N>
bool any_of(std::string_view lowered, const std::array<std::string_view, N>& parts) {
  return std::any_of(parts.begin(), parts.end(),
                     [&](std::string_view p) { return lowered.find(p) != std::string::npos; });
}

// Kernels that update parameters: Adam's and SGD's, PyTorch's foreach/fused updates.
bool optimizer_kernel(std::string_view lowered) {
  constexpr std::array<std::string_view, 9> kParts = {"adam",      "sgd",     "multi_tensor_apply",
                                                      "lamb",      "adagrad", "rmsprop",
                                                      "optimizer", "shampoo", "momentum_update"};
  return any_of(lowered, kParts);
}

// Matrix products and convolutions: what lower precision speeds up.
bool matmul_kernel(std::string_view lowered) {
  constexpr std::array<std::string_view, 11> kParts = {"gemm",    "conv",    "cutlass", "volta_",
                                                       "turing_", "ampere_", "hopper_", "matmul",
                                                       "wgrad",   "dgrad",   "xmma"};
  return any_of(lowered, kParts);
}

// Kernels that already run in half precision or on Tensor Cores.
bool low_precision_kernel(std::string_view lowered) {
  constexpr std::array<std::string_view, 10> kParts = {"h884", "h1688", "s1688", "s884", "h16816",
                                                       "hmma", "fp16",  "bf16",  "_f16", "half"};
  return any_of(lowered, kParts);
}

// Whether the device has faster fp16/bf16 math than fp32: true, false, or unknown, and why.
enum class Fp16 { faster, not_faster, unknown };
struct DeviceFp16 {
  Fp16 verdict = Fp16::unknown;
  std::string why;  // "compute capability 7.0: Tensor Cores", "PoCL on a CPU", ...
};

std::string device_named(const Report& r, const LeverFacts& f) {
  const std::string& name = !f.gpu_name.empty() ? f.gpu_name : r.device_name;
  return name.empty() ? std::string() : " (" + name + ")";
}

// The device's own word first: Kineto's compute capability (>= 7: Tensor Cores) and OpenCL's
// cl_khr_fp16; then, for traces without it, the device's name and the kernels' architecture.
DeviceFp16 device_fp16(const Report& r, const LeverFacts& f) {
  if (r.backend == "cpu") return {Fp16::not_faster, "the CPU backend computes in f32"};
  const std::string platform = lower(f.opencl_platform);
  if (platform.find("portable computing language") != std::string::npos ||
      platform.find("pocl") != std::string::npos || lower(f.opencl_type) == "cpu")
    return {Fp16::not_faster, "PoCL runs on the CPU, whose f16 math is no faster than f32"};
  if (f.compute_major > 0) {
    const std::string cc =
        fmt::printf("compute capability %d.%d", f.compute_major, f.compute_minor) +
        device_named(r, f);
    return f.compute_major >= 7 ? DeviceFp16{Fp16::faster, cc + ": Tensor Cores"}
                                : DeviceFp16{Fp16::not_faster, cc + ": no Tensor Cores"};
  }
  if (f.opencl_fp16)
    return *f.opencl_fp16
               ? DeviceFp16{Fp16::faster, "the OpenCL device" + device_named(r, f) +
                                              " has f16 arithmetic (cl_khr_fp16)"}
               : DeviceFp16{Fp16::not_faster, "the OpenCL device" + device_named(r, f) +
                                                  " has no f16 arithmetic (no cl_khr_fp16)"};
  const std::string device = lower(r.device_name);
  constexpr std::array<std::string_view, 14> kFaster = {"v100", "t4",      "a100", "h100", "h200",
                                                        "a10",  "a30",     "a40",  "l4",   "l40",
                                                        "rtx",  "titan v", "mi2",  "tpu"};
  if (any_of(device, kFaster)) return {Fp16::faster, "the device" + device_named(r, f)};
  constexpr std::array<std::string_view, 4> kNotFaster = {"p100", "k80", "p4", "m60"};
  if (any_of(device, kNotFaster)) return {Fp16::not_faster, "the device" + device_named(r, f)};
  // Kernels built for Volta or later name their architecture.
  for (const KernelStat& k : r.kernels) {
    constexpr std::array<std::string_view, 7> kArch = {"volta_", "turing_", "ampere_", "hopper_",
                                                       "sm70",   "sm80",    "sm90"};
    if (any_of(lower(k.name), kArch))
      return {Fp16::faster, "kernels built for Volta or later (" + k.name + ")"};
  }
  return {};
}

struct KernelShares {
  std::int64_t all = 0, matmul = 0, low = 0, optimizer = 0;
  bool foreach = false, fused = false;
  std::string matmul_top;  // the largest matmul/conv kernel
};

KernelShares kernel_shares(const Report& r) {
  KernelShares s;
  for (const KernelStat& k : r.kernels) {
    const std::string n = lower(k.name);
    s.all += k.total_ns;
    if (optimizer_kernel(n)) {
      s.optimizer += k.total_ns;
      s.foreach = s.foreach || n.find("multi_tensor_apply") != std::string::npos;
      s.fused = s.fused || n.find("fused") != std::string::npos;
    } else if (matmul_kernel(n) || low_precision_kernel(n)) {
      s.matmul += k.total_ns;
      if (low_precision_kernel(n)) s.low += k.total_ns;
      if (s.matmul_top.empty()) s.matmul_top = k.name;
    }
  }
  return s;
}

bool precision_on(const LeverFacts& f, const KernelShares& s) {
  return f.precision == "mixed" || (s.matmul > 0 && 5 * s.low >= s.matmul);
}

}  // namespace

bool optimizer_host_region(const HostRegion& h) {
  return h.category == trace::Category::optimizer || h.name.rfind("Optimizer.step", 0) == 0 ||
         lower(h.name).find("optimizer") != std::string::npos;
}

std::optional<Lever> optimizer(const Report& r, const AnalysisOptions& o, const LeverFacts& f) {
  const KernelShares s = kernel_shares(r);
  const double kernels = per_step(r, s.optimizer);
  const double host = f.optimizer_host_ns_per_step;
  // What the optimizer holds up: its kernels, and the host time the device idles under it.
  double idle_under = 0;
  for (const HostRegion& h : f.host_regions_in_idle)
    if (optimizer_host_region(h)) idle_under += h.ns_per_step;
  const double critical = r.device.has_device ? idle_under + kernels : host;
  const double share = step_pct(r, std::max(host, kernels));
  if (share < kOptimizerPct || critical <= 0) return std::nullopt;
  Lever l = make(r, o, "optimizer", "Optimizer", critical / 2, "heuristic",
                 "a fused or foreach optimizer typically halves the update's time: half of "
                 "the optimizer time on the critical path (its kernels and the device's idle "
                 "time under it)");
  std::string text = "The optimizer takes " + fmt::pct(share) + " of step time";
  if (host > 0)
    text += " (" + fmt::duration(static_cast<std::int64_t>(host)) + " per step on the host";
  if (kernels > 0)
    text += std::string(host > 0 ? ", " : " (") +
            fmt::duration(static_cast<std::int64_t>(kernels)) + " per step in update kernels";
  text += (host > 0 || kernels > 0) ? ")" : "";
  if (idle_under > 0 && r.device.has_device)
    text += ", the device idle " + fmt::duration(static_cast<std::int64_t>(idle_under)) +
            " per step under it";
  l.evidence.push_back(text + ".");
  for (const auto* list : {&f.host_regions_in_idle, &f.host_in_idle})
    for (const HostRegion& h : *list)
      if (optimizer_host_region(h) &&
          std::find(l.points_at.begin(), l.points_at.end(), h.name) == l.points_at.end() &&
          l.points_at.size() < 3)
        l.points_at.push_back(h.name);
  for (const KernelStat& k : r.kernels)
    if (optimizer_kernel(lower(k.name)) && l.points_at.size() < 4) l.points_at.push_back(k.name);
  if (s.foreach) l.already_on.push_back("a foreach optimizer (multi_tensor_apply kernels)");
  if (s.fused) l.already_on.push_back("a fused optimizer");
  if (!f.optimizer.empty()) l.already_on.push_back("--optimizer " + f.optimizer);
  bool second_order = false;
  for (const std::string& p : l.points_at)
    second_order = second_order || lower(p).find("shampoo") != std::string::npos;
  switch (framework(r)) {
    case Framework::pytorch:
      if (second_order)
        l.fix.push_back(
            "update the preconditioner less often (Shampoo's "
            "precondition_frequency) or run its root-inverse on the device");
      if (!s.fused)
        l.fix.push_back(s.foreach ? "fused=True (torch.optim.Adam/AdamW/SGD)"
                                  : "foreach=True or fused=True on the torch.optim optimizer");
      l.fix.push_back(
          "fewer parameter tensors (flatten small parameters, or "
          "torch.compile the optimizer step)");
      break;
    case Framework::tensorflow:
      l.fix.push_back("compile the train step with jit_compile=True so that the update fuses");
      break;
    case Framework::trainscope:
      l.fix.push_back(f.optimizer == "sgd"
                          ? "fewer parameter tensors (a smaller --model)"
                          : "--optimizer sgd updates one moment instead of two, if it trains as "
                            "well");
      break;
    case Framework::other:
      l.fix.push_back("a fused or foreach optimizer, fewer parameter tensors");
      break;
  }
  return l;
}

std::string precision_cannot_help(const Report& r, const LeverFacts& f) {
  const KernelShares s = kernel_shares(r);
  const DeviceFp16 fp16 = device_fp16(r, f);
  if (s.all <= 0 || precision_on(f, s) || fp16.verdict != Fp16::not_faster) return "";
  const double share = 100.0 * static_cast<double>(s.matmul) / static_cast<double>(s.all);
  if (share < kLowPrecisionPct) return "";
  return "Mixed precision cannot help here: matrix products are " + fmt::pct(share) +
         " of kernel time, but this device has no faster f16 math (" + fp16.why +
         "), and the conversions would cost time.";
}

std::optional<Lever> mixed_precision(const Report& r, const AnalysisOptions& o,
                                     const LeverFacts& f) {
  const KernelShares s = kernel_shares(r);
  const DeviceFp16 device = device_fp16(r, f);
  const Fp16 fp16 = device.verdict;
  const double conversion = f.conversion_ns_per_step;
  if (precision_on(f, s)) {
    // On: the lever is its cost, where the conversions take a share of the step.
    if (step_pct(r, conversion) < kConversionPct) return std::nullopt;
    Lever l = make(r, o, "mixed_precision", "Mixed precision", conversion, "modelled",
                   "the step without its measured precision conversions");
    l.already_on.push_back(f.precision == "mixed" ? "--precision mixed"
                                                  : "mixed precision (half-precision kernels)");
    l.evidence.push_back("Converting between f32 and f16 takes " +
                         fmt::pct(step_pct(r, conversion)) + " of step time (" +
                         fmt::duration(static_cast<std::int64_t>(conversion)) + " per step).");
    if (fp16 == Fp16::not_faster) {
      l.evidence.push_back("This device has no faster f16 math (" + device.why +
                           "): the conversions buy nothing.");
      l.fix.push_back(framework(r) == Framework::trainscope ? "--precision fp32"
                                                            : "train in fp32 on this device");
    } else {
      l.fix.push_back("convert once per batch on the device, not per layer on the host");
    }
    return l;
  }
  if (s.all <= 0 || fp16 == Fp16::not_faster) return std::nullopt;
  const double share = 100.0 * static_cast<double>(s.matmul) / static_cast<double>(s.all);
  if (share < kLowPrecisionPct) return std::nullopt;
  const double compute = per_step(r, r.breakdown[Part::device_compute]);
  const double removed = std::min(per_step(r, s.matmul) / 2, compute);
  Lever l = make(r, o, "mixed_precision", "Mixed precision", removed, "heuristic",
                 "matrix products and convolutions in f16/bf16 run at several times fp32's rate "
                 "on Tensor Cores; half of their time saved is what automatic mixed precision "
                 "typically gives end to end");
  l.evidence.push_back("Matrix products and convolutions are " + fmt::pct(share) +
                       " of kernel time, all in fp32 (no Tensor Core or f16 kernel names)" +
                       (fp16 == Fp16::faster
                            ? " on a device with faster f16/bf16 math (" + device.why + ")"
                            : std::string(" (whether this device has faster f16 math is not in "
                                          "the trace)")) +
                       ".");
  if (!s.matmul_top.empty()) l.points_at.push_back(s.matmul_top);
  switch (framework(r)) {
    case Framework::pytorch:
      l.fix.push_back(
          "torch.autocast(device_type=\"cuda\", dtype=torch.float16) with a "
          "GradScaler, or dtype=torch.bfloat16 on Ampere and later");
      break;
    case Framework::tensorflow:
      l.fix.push_back(
          "keras.mixed_precision.set_global_policy(\"mixed_float16\") "
          "(\"mixed_bfloat16\" on TPUs)");
      break;
    case Framework::trainscope:
      l.fix.push_back("--precision mixed");
      break;
    case Framework::other:
      l.fix.push_back("automatic mixed precision (f16/bf16 matrix products)");
      break;
  }
  return l;
}

std::optional<Lever> model_kernels(const Report& r, const AnalysisOptions& o, const LeverFacts& f) {
  if (r.kernels.empty() || r.breakdown[Part::device_compute] <= 0) return std::nullopt;
  const double compute = per_step(r, r.breakdown[Part::device_compute]);
  // The model's kernels: collectives are the distribution lever's.
  std::vector<const KernelStat*> model;
  for (const KernelStat& k : r.kernels)
    if (!collective_kernel(k.name)) model.push_back(&k);
  if (model.empty()) return std::nullopt;
  const KernelStat& top = *model.front();
  Lever l = make(r, o, "model_kernels", "Model and kernels",
                 std::min(per_step(r, top.total_ns) / 2, compute), "heuristic",
                 "if the top kernel ran twice as fast (a better algorithm or shape, a tuned or "
                 "fused kernel, a smaller layer), with compute on the critical path");
  l.evidence.push_back("Device compute is " + fmt::pct(step_pct(r, compute)) + " of step time (" +
                       fmt::duration(static_cast<std::int64_t>(compute)) + " per step).");
  std::string text = "Top kernels: ";
  for (std::size_t i = 0; i < model.size() && i < 3; ++i) {
    const KernelStat& k = *model[i];
    text += (i > 0 ? "; " : "") + k.name + " " + fmt::pct(k.share_pct) + " (" +
            fmt::count(k.count) + " × " + fmt::duration(k.mean_ns) + ")";
    l.points_at.push_back(k.name);
  }
  l.evidence.push_back(text + ".");
  if (r.achieved_occupancy_pct)
    l.evidence.push_back("Kernels reach " + fmt::pct(*r.achieved_occupancy_pct) +
                         " achieved occupancy, time-weighted" +
                         (*r.achieved_occupancy_pct < kLowOccupancyPct
                              ? ": most of the device's warps sit unused (small grids or "
                                "blocks, or too many registers per thread)."
                              : "."));
  if (const std::string no = precision_cannot_help(r, f); !no.empty()) l.evidence.push_back(no);
  if (const std::string fit = batch_fit(r, f); !fit.empty() && !batch_memory(r, o, f))
    l.evidence.push_back(fit);
  switch (framework(r)) {
    case Framework::pytorch:
      l.fix.push_back(
          "look at the operators that launch these kernels: torch.compile fuses "
          "elementwise work, channels_last and torch.backends.cudnn.benchmark=True "
          "pick faster convolutions");
      break;
    case Framework::tensorflow:
      l.fix.push_back("jit_compile=True (XLA) fuses these kernels; check the layers' shapes");
      break;
    case Framework::trainscope:
      l.fix.push_back(
          "the model's largest layers cost the most: a smaller --model, or a faster "
          "device (--backend, --device)");
      break;
    case Framework::other:
      l.fix.push_back("make the top kernels cheaper: fuse them, tune their shapes");
      break;
  }
  return l;
}

namespace {

std::string memory_size(double bytes) {
  constexpr double kMiB = 1024.0 * 1024.0;
  return bytes >= 1024 * kMiB ? fmt::printf("%.2f GiB", bytes / (1024 * kMiB))
                              : fmt::printf("%.1f MiB", bytes / kMiB);
}

}  // namespace

std::string batch_fit(const Report& r, const LeverFacts& f) {
  if (f.peak_memory_bytes <= 0 || f.device_memory_bytes <= 0) return "";
  const double used_pct = 100.0 * f.peak_memory_bytes / f.device_memory_bytes;
  const double fits = kMemoryWarnPct / used_pct;
  // Far past kMaxBatchFactor the proportional model says nothing useful: memory does not
  // limit the batch, and the figure is stated as a floor.
  const bool beyond = fits > kMaxBatchFactor;
  const double factor = beyond ? kMaxBatchFactor : std::floor(fits * 10) / 10;
  std::string fit = (beyond ? "more than " : "about ") + fmt::printf("%.1f", factor) +
                    "x the batch would still fit";
  if (r.batch)
    fit += fmt::printf(beyond ? " (batch %lld -> over %lld: memory does not limit it)"
                              : " (batch %lld -> about %lld)",
                       static_cast<long long>(*r.batch),
                       static_cast<long long>(static_cast<double>(*r.batch) * factor));
  const std::string memory = f.memory_on_host ? "host memory" : "device memory";
  return "Peak " + memory + " per step is " + memory_size(f.peak_memory_bytes) + " of " +
         memory_size(f.device_memory_bytes) + " (" + fmt::pct(used_pct) + ", " + f.memory_track +
         "): at " + fmt::pct(kMemoryWarnPct) + " of it, " + fit + ".";
}

// Peak device memory per step against the device's memory: the headroom a larger batch could use
// while the device is underused, or a warning above kMemoryWarnPct.
std::optional<Lever> batch_memory(const Report& r, const AnalysisOptions& o, const LeverFacts& f) {
  if (f.peak_memory_bytes <= 0 || f.device_memory_bytes <= 0) return std::nullopt;
  const double used_pct = 100.0 * f.peak_memory_bytes / f.device_memory_bytes;
  const bool full = used_pct > kMemoryWarnPct;
  const bool busy_low = r.device.has_device && r.device.busy_pct < kBatchBusyPct;
  const bool short_kernels = f.short_kernel_pct >= kShortKernelsPct;
  const bool low_occupancy =
      r.achieved_occupancy_pct && *r.achieved_occupancy_pct < kLowOccupancyPct;
  // Peak memory taken to scale with the batch, up to kMemoryWarnPct of the device.
  const double fits = kMemoryWarnPct / used_pct;
  if (!full && (fits < 2 || (!busy_low && !short_kernels && !low_occupancy))) return std::nullopt;
  const std::string memory = f.memory_on_host ? "host memory" : "device memory";
  const std::string whose = f.memory_on_host ? "the host" : "the device";
  Lever l = make(r, o, "batch_memory", "Batch size and memory", 0, "modelled",
                 "peak device memory taken to grow in proportion to the batch size (activations "
                 "do, weights and optimizer state do not: the estimate errs low); the step time "
                 "a larger batch gives is not projected");
  const std::string peak = memory_size(f.peak_memory_bytes) + " of " +
                           memory_size(f.device_memory_bytes) + " (" + fmt::pct(used_pct) + ")";
  l.points_at.push_back(f.memory_track);
  if (full) {
    l.evidence.push_back("Peak " + memory + " per step is " + peak + ", above " +
                         fmt::pct(kMemoryWarnPct) + " of " + whose +
                         "'s: a larger batch will not fit, and allocator "
                         "fragmentation can run the job out of memory.");
    l.fix.push_back(framework(r) == Framework::pytorch
                        ? "keep the batch; to grow it, use activation checkpointing "
                          "(torch.utils.checkpoint) or mixed precision (torch.autocast)"
                        : "keep the batch; to grow it, lower the memory per sample (mixed "
                          "precision, recomputing activations)");
    return l;
  }
  std::vector<std::string> underused;
  if (busy_low)
    underused.push_back("the device is busy " + fmt::pct(r.device.busy_pct) + " of step time");
  if (short_kernels)
    underused.push_back(fmt::pct(f.short_kernel_pct) + " of the kernels run under 10 µs");
  if (low_occupancy)
    underused.push_back("the kernels reach " + fmt::pct(*r.achieved_occupancy_pct) +
                        " achieved occupancy, time-weighted");
  std::string why;
  for (std::size_t i = 0; i < underused.size(); ++i)
    why += (i == 0 ? "" : i + 1 == underused.size() ? " and " : ", ") + underused[i];
  why[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(why[0])));
  l.evidence.push_back(why + ": a larger batch gives the device more work per kernel.");
  l.evidence.push_back(batch_fit(r, f));
  switch (framework(r)) {
    case Framework::pytorch:
      l.fix.push_back("raise the DataLoader's batch_size (scale the learning rate with it)");
      break;
    case Framework::trainscope:
      l.fix.push_back("raise --batch (scale the learning rate with it)");
      break;
    case Framework::tensorflow:
      l.fix.push_back("raise the dataset's batch() size (scale the learning rate with it)");
      break;
    case Framework::other:
      l.fix.push_back("raise the batch size (scale the learning rate with it)");
      break;
  }
  return l;
}

}  // namespace ts::analysis::lever_rules
