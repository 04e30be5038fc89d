// The levers' rules (levers.cpp: the run's pipeline, host and hardware; compute_levers.cpp: the
// optimizer, mixed precision, the kernels) and what they share. Internal to levers().
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
std::optional<Lever> batch_memory(const Report& r, const AnalysisOptions& o, const LeverFacts& f);
std::optional<Lever> model_kernels(const Report& r, const AnalysisOptions& o, const LeverFacts& f);

}  // namespace ts::analysis::lever_rules
