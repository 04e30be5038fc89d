// The levers' rules (levers.cpp: the run's pipeline, host and hardware; compute_levers.cpp: the
// optimizer, mixed precision, the kernels; distribution_lever.cpp; host_compute_lever.cpp: a
// trace without device events; unrecorded_time_lever.cpp) and what they share. Internal to
// levers().
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "profiler/analysis/lever_facts.hpp"
#include "profiler/analysis/report.hpp"

namespace ts::analysis::lever_rules {

enum class Framework { trainscope, pytorch, tensorflow, other };
Framework framework(const Report& r);

// A lever with its projection: `removed_ns_per_step` taken off the mean step (0: no step time
// saved), in the confidence given.
Lever make(const Report& r, const AnalysisOptions& o, std::string id, std::string title,
           double removed_ns_per_step, std::string confidence, std::string why);

// Our `optimizer` zones, PyTorch's `Optimizer.step#Adam.step`, and annotations naming the
// optimizer ("## optimizer ##").
bool optimizer_host_region(const HostRegion& h);
// NCCL/RCCL and other collective kernels, by name (distribution's, not the model's).
bool collective_kernel(std::string_view name);

double per_step(const Report& r, std::int64_t total_ns);  // total over the analysed steps
double step_pct(const Report& r, double ns_per_step);     // of the mean step

std::optional<Lever> input_pipeline(const Report& r, const AnalysisOptions& o, const LeverFacts& f);
std::optional<Lever> host_overhead(const Report& r, const AnalysisOptions& o, const LeverFacts& f);
std::optional<Lever> hardware(const Report& r, const AnalysisOptions& o, const LeverFacts& f);
std::optional<Lever> optimizer(const Report& r, const AnalysisOptions& o, const LeverFacts& f);
std::optional<Lever> mixed_precision(const Report& r, const AnalysisOptions& o,
                                     const LeverFacts& f);
// Says why mixed precision cannot help on this device (empty when it could, or is on).
std::string precision_cannot_help(const Report& r, const LeverFacts& f);
// "Peak device memory per step is 4.00 GiB of 16.00 GiB (25.0 %, GPU 0 memory allocated): at
// 90.0 % of it, about 3.6x the batch would still fit (batch 32 -> about 115)."; empty when the
// trace does not hold the peak and the memory's size.
std::string batch_fit(const Report& r, const LeverFacts& f);
std::optional<Lever> batch_memory(const Report& r, const AnalysisOptions& o, const LeverFacts& f);
std::optional<Lever> distribution(const Report& r, const AnalysisOptions& o, const LeverFacts& f);
std::optional<Lever> host_compute(const Report& r, const AnalysisOptions& o, const LeverFacts& f);
std::optional<Lever> model_kernels(const Report& r, const AnalysisOptions& o, const LeverFacts& f);
// unrecorded_time_lever.cpp: the step's time with nothing recorded (unrecorded_gaps.hpp).
std::optional<Lever> unrecorded_time(const Report& r, const AnalysisOptions& o,
                                     const LeverFacts& f);

}  // namespace ts::analysis::lever_rules
