// Two runs side by side (profiler/analysis/README.md, "Diff"): `trainscope diff A B` and the
// viewer's compare view. Figures that depend on the run's length (breakdown parts, kernel time) are
// compared per step, so a run of 100 steps and one of 1 000 compare fairly; counts are per step
// too.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiler/analysis/report.hpp"

namespace ts::analysis {

// One figure in both runs. delta = b - a; change_pct = delta / a × 100 (nullopt when a is 0).
struct Delta {
  double a = 0, b = 0;
  double delta() const { return b - a; }
  std::optional<double> change_pct() const;
};

struct KernelDelta {
  std::string name;
  bool in_a = false, in_b = false;  // a kernel only in one run has the other side's figures 0
  Delta count_per_step;
  Delta ms_per_step;  // total time / steps
  Delta mean_us;      // per launch
  Delta share_pct;
};

struct RunDiff {
  std::string file_a, file_b;
  Delta steps;
  Delta step_mean_ms, step_p50_ms, step_p90_ms;
  std::array<Delta, kPartCount> breakdown_ms_per_step;  // mean ms per step of each part
  Delta input_pct;
  Verdict verdict_a = Verdict::none, verdict_b = Verdict::none;
  Delta input_bound_steps;
  bool device_a = false, device_b = false;  // has_device
  Delta device_busy_pct, device_idle_pct;
  std::array<Delta, kIdleCauseCount> idle_by_cause_ms_per_step;
  Delta idle_cost_per_1000_steps;
  Delta samples_per_s;
  std::optional<std::string> bottleneck_a, bottleneck_b;
  // Every kernel of either run, by |ms_per_step delta|, largest first (ties by name).
  std::vector<KernelDelta> kernels;

  // The headline: how much faster B runs the same work (A's mean step time / B's; 0 when
  // either is unknown), and what that saves. A step holds the device for its wall time, so the
  // share of device time saved is 1 - 1/speedup, priced per device-hour A rents.
  double speedup = 0;
  double device_time_saved_pct = 0;   // of A's device time, for the same steps
  double saving_per_device_hour = 0;  // currency per device-hour of A's run
  double gpu_hour_price = 2.50;
  std::string currency = "$";
};

RunDiff diff(const Report& a, const Report& b);

// "B is 1.95× faster than A: 0.73 ms → 0.37 ms per step, 44 038 → 86 034 samples/s; input wait
// per step -63 %." (the first line of to_text and of the viewer's compare page).
std::string headline(const RunDiff& d);
// What the speed-up saves, priced per device-hour; empty when the runs cannot be compared.
std::string saving_sentence(const RunDiff& d);

// Text: one line per figure, A, B, the change; then the kernel table and the verdicts.
std::string to_text(const RunDiff& d);
// JSON: {"a": {"file": ..}, "b": {..}, "step_time_ms": {"mean": {"a":..,"b":..,"delta":..,
// "change_pct":..}, ..}, "breakdown_ms_per_step": {..}, "input_pct": {..}, "verdict": {"a":..,
// "b":..}, "device": {..}, "samples_per_s": {..}, "bottleneck_stage": {..}, "kernels": [..]}.
std::string to_json(const RunDiff& d);

}  // namespace ts::analysis
