// The host-compute lever (lever_rules.hpp): a trace without device events (a CPU-only PyTorch
// run, a capture without device events) spends its step on the host, so the host's regions and
// operators by time are where to act. The lever facts attribute such a step as one idle gap:
// the outermost and innermost trainer events open during it, summed per name.
#include <algorithm>

#include "profiler/analysis/figure_format.hpp"
#include "profiler/analysis/lever_rules.hpp"
#include "profiler/analysis/levers.hpp"

namespace ts::analysis::lever_rules {

namespace {

// Input waits and collectives have levers of their own.
bool own_lever(const HostRegion& h) {
  return h.category == trace::Category::input_wait || h.category == trace::Category::collective;
}

// Up to four names of at least kHostOpPct of the step: "name 12.0 ms per step (30.1 %)".
std::string listed(const Report& r, const std::vector<HostRegion>& regions, Lever& l) {
  std::string text;
  int shown = 0;
  for (const HostRegion& h : regions) {
    if (own_lever(h)) continue;
    if (shown == 4 || step_pct(r, h.ns_per_step) < kHostOpPct) break;
    text += (shown++ > 0 ? ", " : "") + h.name + " " +
            fmt::duration(static_cast<std::int64_t>(h.ns_per_step)) + " per step (" +
            fmt::pct(step_pct(r, h.ns_per_step)) + ")";
    if (std::find(l.points_at.begin(), l.points_at.end(), h.name) == l.points_at.end())
      l.points_at.push_back(h.name);
  }
  return text;
}

}  // namespace

std::optional<Lever> host_compute(const Report& r, const AnalysisOptions& o, const LeverFacts& f) {
  if (r.device.has_device || f.host_in_idle.empty()) return std::nullopt;
  // The largest innermost operator that no other lever covers.
  const auto top = std::find_if(f.host_in_idle.begin(), f.host_in_idle.end(),
                                [](const HostRegion& h) { return !own_lever(h); });
  if (top == f.host_in_idle.end() || step_pct(r, top->ns_per_step) < kHostOpPct)
    return std::nullopt;
  Lever l = make(r, o, "host_compute", "Host compute", top->ns_per_step / 2, "heuristic",
                 "if the top host operator ran twice as fast (a faster kernel library, more "
                 "threads, a fused or compiled operator), with the step's other work unchanged");
  l.evidence.push_back(
      r.device_events_off
          ? std::string("The capture left device events out: the figures see the host only.")
          : std::string("The trace has no device events: the step runs on the host."));
  if (const std::string regions = listed(r, f.host_regions_in_idle, l); !regions.empty())
    l.evidence.push_back("The trainer's step was in: " + regions + ".");
  if (const std::string ops = listed(r, f.host_in_idle, l); !ops.empty())
    l.evidence.push_back("Innermost operators: " + ops + ".");
  if (r.host_cpu)
    l.evidence.push_back(fmt::printf("The host's %d cores were ", r.host_cpu->cores) +
                         fmt::pct(r.host_cpu->busy_pct) + " busy.");
  switch (framework(r)) {
    case Framework::pytorch:
      l.fix.push_back(
          "profile with the device's activities too (ProfilerActivity.CUDA) if the job has "
          "a device; on the CPU, torch.compile the model and set torch.set_num_threads to the "
          "physical cores");
      break;
    case Framework::tensorflow:
      l.fix.push_back(
          "jit_compile=True (XLA) fuses these operations; check "
          "tf.config.threading's intra- and inter-op threads");
      break;
    case Framework::trainscope:
      l.fix.push_back(r.device_events_off ? "capture with --trace-device on to see the device"
                                          : "a faster device (--backend, --device)");
      break;
    case Framework::other:
      l.fix.push_back("make the top host operators cheaper, or move them to a device");
      break;
  }
  return l;
}

}  // namespace ts::analysis::lever_rules
