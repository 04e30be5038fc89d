#include "profiler/analysis/config_projection.hpp"

#include <algorithm>

#include "profiler/analysis/figure_format.hpp"

namespace ts::analysis {

namespace {

// Bytes moved per parameter by one update, in arrays of the parameter's size: SGD with momentum
// reads the parameter, its gradient and velocity and writes two; Adam reads four and writes three.
constexpr double kSgdArrays = 5, kAdamArrays = 7;

bool has(const std::string& name, std::string_view part) {
  return name.find(part) != std::string::npos;
}

struct KernelTimes {
  double update = 0, matmul = 0, convert = 0;  // ns per step
};

KernelTimes kernel_times(const Report& r) {
  KernelTimes t;
  const double steps = static_cast<double>(std::max<std::int64_t>(1, r.steps));
  for (const KernelStat& k : r.kernels) {
    const double ns = static_cast<double>(k.total_ns) / steps;
    if (has(k.name, "adam_update") || has(k.name, "sgd_update"))
      t.update += ns;
    else if (has(k.name, "gemm") || has(k.name, "im2col") || has(k.name, "col2im"))
      t.matmul += ns;
    else if (has(k.name, "convert"))
      t.convert += ns;
  }
  return t;
}

double per_step(const Report& r, Part p) {
  return r.steps > 0 ? static_cast<double>(r.breakdown[p]) / static_cast<double>(r.steps) : 0;
}

ConfigProjection estimate(const Report& r, double step_ns, double batch_factor,
                          std::string confidence, std::string how) {
  ConfigProjection p;
  p.kind = ConfigProjection::Kind::estimate;
  p.step_ms = std::max(0.0, step_ns) * 1e-6;
  if (r.batch && *r.batch > 0)
    p.per_sample_ms = p.step_ms / (static_cast<double>(*r.batch) * batch_factor);
  p.confidence = std::move(confidence);
  p.how = std::move(how);
  return p;
}

std::string ms(double ns) {
  return fmt::duration(static_cast<std::int64_t>(ns));
}

}  // namespace

ConfigProjection project_change(const Report& r, const ConfigChange& c,
                                const ProjectionContext& context) {
  const double step = r.step_time.mean_ms * 1e6;
  const double input = per_step(r, Part::input_wait) + per_step(r, Part::h2d);
  const KernelTimes k = kernel_times(r);
  switch (c.kind) {
    case ConfigChange::Kind::none:
      return estimate(r, step, 1, "measured", "the run as it is");
    case ConfigChange::Kind::pipeline_tuned: {
      const double hidden = step - input;
      if (context.compute_threads <= 0 || context.host_cores <= 0)
        return estimate(
            r, hidden, 1, "modelled",
            "the step without its input wait and exposed copies (" + ms(input) + " per step)");
      const double compute = per_step(r, Part::device_compute);
      const double shared =
          (compute * std::min(context.compute_threads, context.host_cores) + input) /
          context.host_cores;
      return estimate(r, hidden + std::max(0.0, shared - compute), 1, "modelled",
                      "the input work (" + ms(input) + " per step) moved to workers that share " +
                          std::to_string(context.host_cores) + " cores with the compute's " +
                          std::to_string(context.compute_threads) + " threads");
    }
    case ConfigChange::Kind::batch_scale: {
      const double per_sample = std::max(0.0, per_step(r, Part::device_compute) - k.update) + input;
      const double fixed = step - per_sample;
      return estimate(r, fixed + per_sample * c.batch_factor, c.batch_factor, "modelled",
                      "per-sample work (" + ms(per_sample) + " per step: compute but the update, " +
                          "input) scaled by the batch, per-step work (" + ms(fixed) + ") kept");
    }
    case ConfigChange::Kind::optimizer: {
      const double ratio = c.to == "sgd" ? kSgdArrays / kAdamArrays : kAdamArrays / kSgdArrays;
      return estimate(r, step - k.update * (1 - ratio), 1, "modelled",
                      "the update kernels (" + ms(k.update) + " per step) scaled by the memory " +
                          "each update moves (SGD with momentum 5 arrays per parameter, Adam 7)");
    }
    case ConfigChange::Kind::precision: {
      if (c.to == "fp32")
        return estimate(r, step - k.convert - per_step(r, Part::host_compute), 1, "modelled",
                        "the step without its conversions and host-side precision work (" +
                            ms(k.convert + per_step(r, Part::host_compute)) + " per step)");
      if (!context.fp16_faster) {
        ConfigProjection p = estimate(r, step, 1, "modelled",
                                      "no faster f16 math on this device: conversions can only "
                                      "add to the step");
        p.kind = ConfigProjection::Kind::at_most;
        return p;
      }
      return estimate(r, step - k.matmul / 2, 1, "heuristic",
                      "matrix products (" + ms(k.matmul) + " per step) at half their time");
    }
    case ConfigChange::Kind::backend: {
      ConfigProjection p;
      p.how = "another device's speed is not in this run's trace: measured only";
      return p;
    }
  }
  return {};
}

}  // namespace ts::analysis
