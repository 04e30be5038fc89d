#include "profiler/analysis/levers.hpp"

#include <algorithm>

#include "profiler/analysis/figure_format.hpp"
#include "profiler/analysis/lever_rules.hpp"
#include "profiler/analysis/pipeline_stats.hpp"
#include "profiler/analysis/recommendations.hpp"
#include "profiler/analysis/step_breakdown.hpp"
#include "profiler/analysis/what_if.hpp"

namespace ts::analysis {

namespace lever_rules {

Framework framework(const Report& r) {
  if (r.source_format.empty()) return Framework::trainscope;
  if (r.source_format == "kineto" || r.source_format == "legacy array") return Framework::pytorch;
  if (r.source_format == "xplane") return Framework::tensorflow;
  return Framework::other;
}

Lever make(const Report& r, const AnalysisOptions& o, std::string id, std::string title,
           double removed_ns_per_step, std::string confidence, std::string why) {
  Lever l;
  l.projection = project(r, o, id, title, std::max(0.0, removed_ns_per_step));
  l.id = std::move(id);
  l.title = std::move(title);
  l.confidence = std::move(confidence);
  l.confidence_why = std::move(why);
  return l;
}

double per_step(const Report& r, std::int64_t total_ns) {
  return r.steps > 0 ? static_cast<double>(total_ns) / static_cast<double>(r.steps) : 0;
}

double step_pct(const Report& r, double ns_per_step) {
  const double mean_ns = r.step_time.mean_ms * 1e6;
  return mean_ns > 0 ? 100.0 * ns_per_step / mean_ns : 0;
}

namespace {

std::string per_step_text(double ns) {
  return fmt::duration(static_cast<std::int64_t>(ns)) + " per step";
}

// What the trace shows is on in the input pipeline.
std::vector<std::string> input_already_on(const Report& r, const LeverFacts& f) {
  std::vector<std::string> on;
  const PipelineStats& p = r.pipeline;
  switch (framework(r)) {
    case Framework::trainscope:
      if (p.workers && *p.workers > 0) on.push_back(fmt::printf("--parallel %d", *p.workers));
      if (p.prefetch && *p.prefetch > 0) on.push_back(fmt::printf("--prefetch %d", *p.prefetch));
      if (p.cache && *p.cache == "memory") on.push_back("--cache memory");
      if (p.prefetch_to_device) on.push_back("prefetch to device");
      break;
    case Framework::pytorch:
      if (f.multiprocess_dataloader)
        on.push_back(
            "a multi-process DataLoader (num_workers > 0: _MultiProcessingDataLoaderIter)");
      if (f.pinned_copies) on.push_back("pin_memory (the copies come from pinned memory)");
      break;
    case Framework::tensorflow:
      if (f.parallel_map) on.push_back("a parallel map (num_parallel_calls)");
      if (f.data_prefetch) on.push_back("prefetch()");
      if (f.data_cache) on.push_back("cache()");
      break;
    case Framework::other:
      break;
  }
  return on;
}

// The input knobs that are not already on.
std::vector<std::string> input_fix(const Report& r, const LeverFacts& f) {
  if (r.host_cpu && r.host_cpu->saturated)
    return {fmt::printf("the host's %d cores were ", r.host_cpu->cores) +
            fmt::pct(r.host_cpu->busy_pct) +
            " busy, so more input workers cannot help: cache decoded samples, make per-sample "
            "work cheaper, or move to a machine with more cores"};
  switch (framework(r)) {
    case Framework::pytorch: {
      std::vector<std::string> fix;
      fix.push_back(f.multiprocess_dataloader
                        ? "raise num_workers above its current value (the host has idle cores)"
                        : "set the DataLoader's num_workers > 0 (and persistent_workers=True)");
      if (!f.pinned_copies) fix.push_back("pin_memory=True");
      fix.push_back("raise prefetch_factor");
      fix.push_back(
          "move expensive per-sample transforms out of __getitem__ (precompute or "
          "cache them)");
      return fix;
    }
    case Framework::tensorflow: {
      std::vector<std::string> fix;
      fix.push_back(f.parallel_map ? "give the slowest stage more parallelism (its own "
                                     "num_parallel_calls, or interleave the reads)"
                                   : "give the slow map num_parallel_calls=tf.data.AUTOTUNE");
      if (!f.data_cache) fix.push_back("cache() after the expensive steps");
      if (!f.data_prefetch) fix.push_back("end the pipeline with prefetch(tf.data.AUTOTUNE)");
      return fix;
    }
    default: {
      std::vector<std::string> fix = input_knobs(r);
      const double h2d_pct = step_pct(r, per_step(r, r.breakdown[Part::h2d]));
      if (framework(r) == Framework::trainscope && !r.pipeline.prefetch_to_device &&
          h2d_pct >= kExposedH2dPct)
        fix.push_back("prefetch batches to the device");
      return fix;
    }
  }
}

}  // namespace

std::optional<Lever> input_pipeline(const Report& r, const AnalysisOptions& o,
                                    const LeverFacts& f) {
  const double h2d_pct = percent(r.breakdown[Part::h2d], r.step_time_total_ns);
  const bool h2d_exposed =
      h2d_pct >= kExposedH2dPct && 2 * r.breakdown[Part::h2d] >= r.h2d_total_ns;
  if (r.verdict == Verdict::none && !h2d_exposed) return std::nullopt;
  const double removed = per_step(r, input_ns(r.breakdown));
  Lever l = make(r, o, "input_pipeline", "Input pipeline", removed, "modelled",
                 "the step without its measured input wait and exposed host-to-device copies, "
                 "as if the pipeline kept up and compute did not slow down");
  l.evidence.push_back(
      "Input is " + fmt::pct(r.input_pct) + " of step time (" + per_step_text(removed) + ": " +
      fmt::duration(static_cast<std::int64_t>(per_step(r, r.breakdown[Part::input_wait]))) +
      " waiting for a batch, " +
      fmt::duration(static_cast<std::int64_t>(per_step(r, r.breakdown[Part::h2d]))) +
      " of copies not overlapped by compute); " + fmt::count(r.input_bound_steps) + " of " +
      fmt::count(r.steps) + " steps are input-bound.");
  const PipelineStats& p = r.pipeline;
  if (p.busy_during_waits_pct && *p.busy_during_waits_pct < kBusyDuringWaitsPct)
    l.evidence.push_back("No input stage ran during " + fmt::pct(100.0 - *p.busy_during_waits_pct) +
                         " of the waits: the batches were not ready in time, no stage is slow.");
  if (p.bottleneck_stage) {
    l.points_at.push_back("input stage " + *p.bottleneck_stage);
    for (const StageStat& s : p.stages)
      if (s.stage == *p.bottleneck_stage)
        l.evidence.push_back(
            "The " + s.stage + " stage (" + s.main_event +
            ") is the slowest: " + fmt::duration(static_cast<std::int64_t>(s.ns_per_sample)) +
            fmt::printf(" per sample on %d thread%s, ", s.threads, s.threads == 1 ? "" : "s") +
            fmt::pct(s.utilisation_pct) + " busy.");
  }
  if (f.multiprocess_dataloader) l.points_at.push_back("the DataLoader");
  if (r.host_cpu)
    l.evidence.push_back(fmt::printf("The host's %d cores were ", r.host_cpu->cores) +
                         fmt::pct(r.host_cpu->busy_pct) + " busy" +
                         (r.host_cpu->saturated ? ": saturated." : "."));
  l.already_on = input_already_on(r, f);
  l.fix = input_fix(r, f);
  return l;
}

std::optional<Lever> host_overhead(const Report& r, const AnalysisOptions& o, const LeverFacts& f) {
  if (!r.device.has_device || r.steps == 0) return std::nullopt;
  const auto& by = r.device.idle_by_cause_ns;
  const double host = per_step(r, by[static_cast<int>(IdleCause::host)]);
  const double sync = per_step(r, by[static_cast<int>(IdleCause::sync)]);
  if (step_pct(r, host + sync) < kCausePct) return std::nullopt;
  Lever l = make(r, o, "host_overhead", "Host overhead", host + sync, "modelled",
                 "the step without the device's measured idle time under the host, as if the "
                 "host's work overlapped the device's");
  l.evidence.push_back("The device idles while the host runs for " +
                       fmt::pct(step_pct(r, host + sync)) + " of step time (" +
                       per_step_text(host) + " launching or computing, " + per_step_text(sync) +
                       " blocked in synchronisation).");
  // What the host ran during the gaps: the regions, then the innermost calls.
  auto list = [&](const std::vector<HostRegion>& regions, const char* what) {
    std::string text;
    int shown = 0;
    for (const HostRegion& h : regions) {
      if (h.category == trace::Category::input_wait) continue;
      if (shown == 4 || 100.0 * h.ns_per_step < 2.0 * (host + sync)) break;
      text += (shown++ > 0 ? ", " : "") + h.name + " " + per_step_text(h.ns_per_step);
      if (std::find(l.points_at.begin(), l.points_at.end(), h.name) == l.points_at.end())
        l.points_at.push_back(h.name);
    }
    if (!text.empty()) l.evidence.push_back(std::string(what) + text + ".");
  };
  list(f.host_regions_in_idle, "While the device idled the trainer was in: ");
  list(f.host_in_idle, "Innermost calls during the idle time: ");
  const double handoff = per_step(r, r.breakdown[Part::input_handoff]);
  if (2 * handoff >= host && handoff > 0)
    l.evidence.push_back("Of it, " + per_step_text(handoff) +
                         " is the trainer taking batches that were already made (the input "
                         "pipeline's hand-over), not input wait.");
  // The CPU backend runs its ops as function calls on the trainer: there is no launch to pay.
  const bool launched = r.backend != "cpu";
  const bool short_kernels =
      launched && f.short_kernel_pct >= kShortKernelsPct && f.kernels_per_step >= 1;
  if (f.kernels_per_step > 0)
    l.evidence.push_back(fmt::printf("%.1f kernels per step, ", f.kernels_per_step) +
                         fmt::pct(f.short_kernel_pct) + " of them under 10 µs" +
                         (!launched       ? " (the CPU backend runs them as calls: no launch cost)."
                          : short_kernels ? ": launch overhead."
                                          : ": launches are not the cost."));
  const bool optimizer_named = std::any_of(
      f.host_regions_in_idle.begin(), f.host_regions_in_idle.end(), [&](const HostRegion& h) {
        return optimizer_host_region(h) && step_pct(r, h.ns_per_step) >= kCausePct;
      });
  const Framework fw = framework(r);
  if (optimizer_named)
    l.fix.push_back("the optimizer's host work leaves the device idle: see the optimizer lever");
  if (step_pct(r, f.conversion_ns_per_step) >= kConversionPct)
    l.fix.push_back(
        "converting precision on the host leaves the device idle: see the mixed precision "
        "lever");
  if (step_pct(r, sync) >= kCausePct)
    l.fix.push_back(fw == Framework::pytorch
                        ? "do not read values back every step (loss.item(), printing, .cpu()): "
                          "accumulate on the device and read every N steps"
                        : "avoid synchronising every step (reading the loss or metrics back): "
                          "read them every N steps");
  if (2 * handoff >= host && handoff > 0 && fw == Framework::trainscope)
    l.fix.push_back("a larger --batch spreads the hand-over's fixed cost over more samples");
  if (short_kernels)
    l.fix.push_back(fw == Framework::pytorch      ? "fuse small operations (torch.compile, CUDA "
                                                    "graphs) and use bigger batches"
                    : fw == Framework::tensorflow ? "fuse small operations (jit_compile=True) "
                                                    "and use bigger batches"
                                                  : "use bigger batches and fewer, larger "
                                                    "kernels (fuse small operations)");
  if (l.fix.empty())
    l.fix.push_back(
        "move the host work named above off the critical path: onto the device, "
        "onto another thread ahead of the step, or done less often");
  return l;
}

std::optional<Lever> hardware(const Report& r, const AnalysisOptions& o, const LeverFacts&) {
  std::vector<std::string> evidence, fix;
  const DeviceStats& d = r.device;
  if (d.has_device && r.steps > 0 && d.busy_pct < kUnderusedBusyPct) {
    evidence.push_back(
        "The device is busy " + fmt::pct(d.busy_pct) +
        " of step time: " + fmt::money(r.gpu_hour_price * d.idle_pct / 100.0, r.currency) +
        " of every " + fmt::money(r.gpu_hour_price, r.currency) +
        " device-hour pays for capacity it does not use (" +
        fmt::money(r.run_device_hours * r.gpu_hour_price * d.idle_pct / 100.0, r.currency) +
        " over the run).");
    fix.push_back(
        "act on the levers above first; if the device stays this idle, a smaller or "
        "shared device does the same work for less");
    if (framework(r) == Framework::trainscope && r.backend != "cpu")
      fix.push_back("measure the same job with --backend cpu");
  }
  if (r.host_cpu && r.host_cpu->saturated) {
    evidence.push_back(fmt::printf("The host is saturated: its %d cores were ", r.host_cpu->cores) +
                       fmt::pct(r.host_cpu->busy_pct) + " busy.");
    fix.push_back("a host with more cores, or less per-sample work on it");
  }
  // The CPU backend computes on this process's threads: a compute queue that is busy while the
  // process got little CPU time means other processes had the cores.
  if (r.backend == "cpu" && r.host_cpu && d.has_device && d.busy_pct >= 50 &&
      r.host_cpu->busy_pct < 50) {
    evidence.push_back(
        "The host is shared: the CPU backend's compute queue was busy " + fmt::pct(d.busy_pct) +
        " of step time while this process used " + fmt::pct(r.host_cpu->busy_pct) +
        fmt::printf(" of the %d cores: other processes had them.", r.host_cpu->cores));
    fix.push_back("run on a host (or cores) of its own: the step times measure the neighbours");
  }
  if (evidence.empty()) return std::nullopt;
  Lever l = make(r, o, "hardware", "Hardware", 0, "heuristic",
                 "no step time is projected: what a different device or host would save "
                 "depends on its price and speed, which the trace does not hold");
  l.evidence = std::move(evidence);
  l.fix = std::move(fix);
  return l;
}

}  // namespace lever_rules

std::vector<Lever> levers(const Report& r, const AnalysisOptions& o, const LeverFacts& f) {
  using namespace lever_rules;
  std::vector<Lever> out;
  if (r.steps == 0 || r.step_time_total_ns <= 0) return out;
  for (auto rule : {input_pipeline, host_overhead, optimizer, mixed_precision, batch_memory,
                    distribution, model_kernels, host_compute, unrecorded_time, hardware})
    if (std::optional<Lever> l = rule(r, o, f)) out.push_back(std::move(*l));
  std::stable_sort(out.begin(), out.end(), [](const Lever& a, const Lever& b) {
    return a.projection.saving_device_hours > b.projection.saving_device_hours;
  });
  return out;
}

}  // namespace ts::analysis
