// Two runs side by side (profiler/analysis/README.md, "Diff"): `trainscope diff A B` and the
// viewer's compare view. Figures that depend on the run's length (breakdown parts, kernel time) are
// compared per step, so a run of 100 steps and one of 1 000 compare fairly; counts are per step
// too. Both runs leave out the same warm-up (common_warmup()), the diff says which steps each
// side covers, and gives the speed-up over every step of both runs beside the steady state's.
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

// One lever (Report::levers) in both runs, by id. A lever only one run has keeps the other
// side's figures 0 (speed-up 0: the lever does not apply there).
struct LeverDelta {
  std::string id, title;
  bool in_a = false, in_b = false;
  Delta speedup;       // projected: the run's mean step / its step without the lever
  Delta step_time_ms;  // projected mean step time
  Delta saving;        // money saved over the run, at the device-hour price
  Delta saving_device_hours;
  std::string confidence_a, confidence_b;  // "measured", "modelled", "heuristic"; "" when absent
};

// Which steps one side's figures cover.
struct DiffScope {
  std::int64_t first = 0, last = 0, steps = 0;  // the analysed steps
  std::int64_t left_out = 0;                    // warm-up steps left out before them
  std::int64_t whole_first = 0, whole_last = 0, whole_steps = 0;  // every step of the run
  std::string why;  // why the warm-up was left out (the report's warm-up reason)
};

// What a speed-up is worth at a device-hour price, never more than the hour itself: when B is
// faster, the share of A's device time B does not need (1 - 1/speedup) of every hour A rents;
// when B is slower, the share of B's device time that A would not need (1 - speedup) of every
// hour B rents.
struct Saving {
  double share_pct = 0;        // of the hour named by b_slower: A's (B faster) or B's (B slower)
  double per_device_hour = 0;  // currency, 0 to the hour's price
  bool b_slower = false;
};
Saving saving_at(double speedup, double gpu_hour_price);

// The warm-up both runs leave out so that they compare like for like. The default rule
// (AnalysisOptions::kAutoWarmup) depends on a run's shape: a run with an input cache leaves out
// its whole first epoch, one without only its first step. A diff leaves out the larger of the two
// warm-ups in both runs (its first `steps` steps each, --skip-warmup N), so that the same part of
// the same job is compared. nullopt when one rule already applies to both: --steps, --skip-warmup,
// or both leave out as many steps.
struct CommonWarmup {
  int steps = 0;
  std::string why;  // "B: epoch 1 fills the input cache"
};
std::optional<CommonWarmup> common_warmup(const Report& a, const Report& b,
                                          const AnalysisOptions& options);
// The steps a report leaves out before its analysed ones, per process (rank).
std::int64_t warmup_steps(const Report& r);
// Whether re-analysing `r` with --skip-warmup `common.steps` leaves it steps to analyse (a run no
// longer than the other's warm-up keeps its own rule, and the scope line says so).
bool takes_common_warmup(const Report& r, const CommonWarmup& common);

struct RunDiff {
  std::string file_a, file_b;
  DiffScope scope_a, scope_b;
  std::optional<CommonWarmup> common;  // the warm-up both left out, when it was aligned
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
  // Every lever of either run, by the larger of its two savings, largest first (ties by id).
  std::vector<LeverDelta> levers;

  // The headline: how much faster B runs the same work (A's mean step time / B's; 0 when
  // either is unknown), and what that saves. A step holds the device for its wall time, so the
  // share of device time saved is 1 - 1/speedup, priced per device-hour A rents.
  double speedup = 0;
  double device_time_saved_pct = 0;  // of A's device time, for the same steps (negative: B needs
                                     // more)
  Saving saving;
  // The same over every step of both runs (warm-up included): each run's whole work.
  Delta whole_step_mean_ms;
  double whole_speedup = 0;
  Saving whole_saving;
  double gpu_hour_price = 2.50;
  std::string currency = "$";
  // Whether both sides cover the same step numbers.
  bool same_steps() const { return scope_a.first == scope_b.first && scope_a.last == scope_b.last; }
};

RunDiff diff(const Report& a, const Report& b, const std::optional<CommonWarmup>& common = {});

// "B is 1.95× faster than A: 0.73 ms → 0.37 ms per step, 44 038 → 86 034 samples/s; input wait
// per step -63 %." (the first line of to_text and of the viewer's compare page).
std::string headline(const RunDiff& d);
// What the speed-up saves, priced per device-hour; empty when the runs cannot be compared.
std::string saving_sentence(const RunDiff& d);
// Which steps each side covers: "Steps compared: 313-1564 of both (each run's first 313 steps
// left out as warm-up; B: epoch 1 fills the input cache)."
std::string scope_sentence(const RunDiff& d);
// The comparison over every step of both runs: "Over every step (A 0-1564, B 0-1564): B is 2.66×
// faster, 62 % less device time ($1.56 of every $2.50 device-hour A rents)."; empty when a run
// has no step time.
std::string whole_run_sentence(const RunDiff& d);

// One lever in a sentence: "Input pipeline: 2.13× in A, gone in B", "Optimizer: 1.20× → 1.05×",
// "Mixed precision: new in B (1.40×)".
std::string lever_sentence(const LeverDelta& l);

// Text: one line per figure, A, B, the change; then the kernel table and the levers.
std::string to_text(const RunDiff& d);
// JSON: {"a": {"file": ..}, "b": {..}, "step_time_ms": {"mean": {"a":..,"b":..,"delta":..,
// "change_pct":..}, ..}, "breakdown_ms_per_step": {..}, "input_pct": {..}, "verdict": {"a":..,
// "b":..}, "device": {..}, "samples_per_s": {..}, "bottleneck_stage": {..}, "kernels": [..],
// "levers": [{"id":.., "title":.., "in_a":.., "in_b":.., "change": "gone"|"new"|"both",
// "speedup": {..}, "step_time_ms": {..}, "saving": {..}, "saving_device_hours": {..},
// "confidence": {"a":.., "b":..}}]}.
std::string to_json(const RunDiff& d);

}  // namespace ts::analysis
