// Projections of a change to the built-in engine's configuration from one run's report: what
// `trainscope tune` prints as "projected" before it measures the change. Each is the analysed
// mean step (Report::step_time) with the parts the change acts on taken off, scaled or replaced:
//
//   pipeline_tuned   the input wait and exposed host-to-device copies hidden behind compute; where
//                    the compute itself runs on the host's cores (the CPU backend), the input work
//                    the workers take over still needs those cores: the step is then at least
//                    (compute × its threads + input) / cores
//   batch_scale      the per-sample parts (device compute other than the optimizer's update,
//                    input wait, exposed copies) scaled by the batch factor; the per-step parts
//                    (the update, launches, hand-over, gaps) kept
//   optimizer        the update kernels' time scaled by the memory each update moves per
//                    parameter: SGD with momentum 5 arrays, Adam 7 (both are memory-bound)
//   precision        to fp32: the step without its measured conversions; to mixed on a device
//                    without faster f16 math: at most the step it is now (conversions only add);
//                    on one with it: the matrix products at half their time
//   backend          not projected: the other device's speed is not in this run's trace
#pragma once

#include <string>

#include "profiler/analysis/report.hpp"

namespace ts::analysis {

struct ConfigChange {
  enum class Kind { none, pipeline_tuned, batch_scale, optimizer, precision, backend };
  Kind kind = Kind::none;
  double batch_factor = 1;  // batch_scale: the new batch over the old
  std::string to;           // optimizer: "sgd"/"adam"; precision: "mixed"/"fp32"; backend
};

struct ConfigProjection {
  enum class Kind {
    estimate,  // step_ms is the projected mean step
    at_most,   // the change cannot make the step faster than step_ms (a bound, not an estimate)
    none,      // not projected: `how` says why
  };
  Kind kind = Kind::none;
  double step_ms = 0;        // the projected mean step at the new batch
  double per_sample_ms = 0;  // step_ms / the new batch (0 when the batch is unknown)
  std::string confidence;    // "modelled" or "heuristic" (empty for none)
  std::string how;           // one sentence: what the projection took off, scaled or why none
};

// What the run's trace says of the machine beyond the report.
struct ProjectionContext {
  bool fp16_faster = false;  // the device has faster f16 math than f32 (not the CPU, not PoCL)
  int host_cores = 1;        // the host's cores
  int compute_threads = 0;   // the host's cores the compute runs on (the CPU backend), else 0
};

ConfigProjection project_change(const Report& base, const ConfigChange& change,
                                const ProjectionContext& context);

}  // namespace ts::analysis
