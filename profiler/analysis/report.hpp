// What analysis makes of one trace (definitions in profiler/analysis/README.md): the per-step
// breakdown, the input-bound verdict, device busy/idle time with each idle gap's cause, kernel and
// pipeline stage statistics and recommendations. `report --json`, `check`, `diff` and the viewer's
// overview all read this one struct, so the figures they show cannot disagree. Times are
// nanoseconds unless named _ms/_pct.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "profiler/analysis/step_summary.hpp"
#include "profiler/analysis/step_table.hpp"

namespace ts::store {
class Reader;
}

namespace ts::analysis {

struct StepTime {
  double mean_ms = 0, p50_ms = 0, p90_ms = 0, min_ms = 0, max_ms = 0;
};

struct DeviceStats {
  bool has_device = false;                // the trace has device-queue tracks with events
  std::int64_t busy_ns = 0, idle_ns = 0;  // inside steps; busy + idle == summed step time
  double busy_pct = 0, idle_pct = 0;
  std::array<std::int64_t, kIdleCauseCount> idle_by_cause_ns{};
  std::vector<IdleGap> gaps;  // every listed idle gap, in time order (AnalysisOptions::keep_gaps)
  std::int64_t listed_gaps = 0;  // how many gaps are listed, kept in `gaps` or not
};

struct KernelStat {
  std::string name;
  std::int64_t count = 0;
  std::int64_t total_ns = 0, mean_ns = 0, min_ns = 0, max_ns = 0;
  double share_pct = 0;  // of the summed duration of all kernels
};

// One input pipeline stage (input_read, input_decode, input_map, input_batch) over all workers.
struct StageStat {
  std::string stage;       // "read", "decode", "map", "batch"
  std::string main_event;  // the event name holding most of the stage's time ("Map", "decode")
  std::int64_t count = 0;
  std::int64_t total_ns = 0;
  double ns_per_sample = 0;
  int threads = 0;             // tracks the stage ran on
  double utilisation_pct = 0;  // stage time / (threads × run wall time)
};

struct PipelineStats {
  std::vector<StageStat> stages;
  std::optional<std::string> bottleneck_stage;  // the slowest stage on the critical path
  std::optional<double> prefetch_fill_mean;     // mean of the prefetch buffer fill counter
  std::optional<int> workers;                   // from meta pipeline.parallel
  std::optional<int> prefetch;                  // from meta pipeline.prefetch
  std::optional<std::string> cache;             // from meta pipeline.cache ("none", "memory")
  bool prefetch_to_device = false;              // from meta pipeline.options
  // Of the trainer's input wait in the analysed steps, the share during which some input stage
  // was running (on a worker or the trainer): low means the workers sat idle while the trainer
  // waited, so no stage's speed explains the wait (nullopt: no waits or no stages recorded).
  std::optional<double> busy_during_waits_pct;
  std::int64_t samples = 0;  // samples the stage figures are per (0: unknown, figures per event)
};

// The figures of one process of a trace of several (a rank of a distributed job, one file of
// an import), over that process's own steps and tracks.
struct RankFigures {
  std::int64_t process = 0;          // the process id in the trace
  std::optional<std::int64_t> rank;  // the distributed rank, when known
  std::string name;                  // the process's name in the trace
  std::int64_t steps = 0;
  StepTime step_time;
  Breakdown breakdown;  // summed over the process's steps
  std::int64_t step_time_total_ns = 0;
  double input_pct = 0;
  Verdict verdict = Verdict::none;
  std::int64_t input_bound_steps = 0;       // moderately or highly input-bound
  std::int64_t input_bound_steps_high = 0;  // of them, highly input-bound
  bool has_device = false;
  double device_busy_pct = 0, device_idle_pct = 0;
  std::array<std::int64_t, kIdleCauseCount> idle_by_cause_ns{};
  double samples_per_s = 0;
  // Of the rank's collective kernel time, the share with a compute kernel running on its device
  // too (Report::communication_overlap_pct); nullopt: no collective kernels.
  std::optional<double> communication_overlap_pct;
};

// A job of several ranks at a glance (job_overview.hpp): the ranks' per-step figures as a
// distribution, the ranks with the most own work, and the ranks that hold the others back.
// Indices point into Report::ranks; figures are milliseconds per step unless named otherwise.
struct JobOverview {
  struct Spread {  // over the ranks (linear interpolation, as step times)
    double median = 0, p90 = 0, max = 0;
  };
  struct RankRow {
    int index = 0;
    double step_ms = 0, input_ms = 0, collective_ms = 0, own_ms = 0;
  };
  struct HoldingBack {
    int index = 0;
    double own_ms = 0;
    double excess_ms = 0;  // own work per step over the median rank's
    // "input", "device compute", "host compute", "synchronisation" or "other": the part of its
    // own work with the largest excess over the median rank's same part.
    std::string cause;
    double cause_excess_ms = 0;  // that part per step over the median rank's
    double cause_pct = 0;        // that part's share of the rank's own step time
    // The other ranks' wait for it, as if it were the only rank holding them back: summed over
    // them, per step and over their analysed steps, and that as a share of the job's device time.
    double wait_ms_per_step = 0;
    double wait_ms = 0;
    double wait_pct = 0;
  };
  int ranks = 0;  // processes with analysed steps
  Spread step_ms, input_ms, collective_ms, own_ms;
  // The rank in the middle by own work (the lower middle for an even count); holding back is
  // own work more than threshold_ms over its own work.
  int median_rank = 0;
  double threshold_ms = 0;
  std::vector<RankRow> worst;             // the most own work per step first, up to 5
  std::vector<HoldingBack> holding_back;  // the largest excess first
  double device_ms = 0;                   // the job's device time: every rank's summed step time
};

struct AnalysisOptions {
  // A step is input-bound (moderately) at or above step_input_bound_pct of input, highly at or
  // above step_input_high_pct too: the run verdict's 5 % and 20 % (XProf's split) by default.
  double step_input_bound_pct = 5.0;
  double step_input_high_pct = 20.0;
  double gpu_hour_price = 2.50;  // what an hour of the device costs, for idle cost
  std::string currency = "$";
  // Idle gaps shorter than this are counted in every figure but not listed in
  // DeviceStats::gaps (a 10 M-event trace has millions of sub-microsecond gaps between kernels).
  std::int64_t min_listed_gap_ns = 0;
  // false: DeviceStats::gaps stays empty and DeviceStats::listed_gaps only counts them. What
  // needs only the number (the text and JSON reports, check, diff) saves 32 bytes a gap: a
  // 100 M-event trace has tens of millions.
  bool keep_gaps = true;
  // Threads reading the trace: 0 picks up to 4 (hardware threads) for traces of 256 steps or
  // more and 1 below; n > 1 splits any trace of at least n steps into n parts. The figures do
  // not depend on it.
  int threads = 0;
  // Which steps the figures cover (the others are listed, and summed up as warm-up):
  //  - `steps` (first, last step number, inclusive) when set: exactly those;
  //  - else the steps after the warm-up: the first `skip_warmup` steps, or with kAutoWarmup the
  //    cache-filling first epoch of a run of several epochs with a cache, else the first step of
  //    a run of more than 5 steps (first calls, kernel compilation, the first batch).
  std::optional<std::pair<std::int64_t, std::int64_t>> steps;
  static constexpr int kAutoWarmup = -1;
  int skip_warmup = kAutoWarmup;
};

// Figures of a stretch of steps (an epoch, the warm-up, the whole run).
struct PhaseFigures {
  std::string name;  // "epoch 1", "warm-up", "whole run"
  std::int64_t first_step = 0, last_step = 0, steps = 0;
  double step_mean_ms = 0;
  double input_pct = 0;
  Verdict verdict = Verdict::none;
  double device_idle_pct = 0;
  bool warmup = false;  // left out of the analysed figures
  std::string why;      // why it is warm-up ("fills the cache", "first calls, compilation")
};

// What a lever would be worth, projected from the analysed steps: the step time without the
// time the lever removes, and what that saves over the whole run at the device-hour price.
struct WhatIf {
  std::string lever;         // "input_hidden", "sync_removed", "host_bound_removed", ...
  std::string description;   // "input fully hidden behind compute"
  double step_time_ms = 0;   // projected mean step time
  double speedup = 1;        // measured mean step time / projected
  double samples_per_s = 0;  // projected (0 when the batch is unknown)
  double device_hours = 0;   // the whole run's steps at the projected step time
  double saving = 0;         // money saved over the whole run, at the device-hour price
  double saving_device_hours = 0;
};

// One row of the levers table (profiler/analysis/README.md, "Levers"): a change to the run that
// the trace's figures say is worth making, with the figures that say so, where to act, what is
// already on (never recommended again), the fix in the trace's own framework and what it would
// save.
struct Lever {
  std::string id;     // "input_pipeline", "host_overhead", "optimizer", "mixed_precision", ...
  std::string title;  // "Input pipeline"
  std::vector<std::string> evidence;    // sentences quoting the figures that fired it
  std::vector<std::string> points_at;   // names: kernels, operators, host regions, stages
  std::vector<std::string> already_on;  // what the trace shows is already on
  std::vector<std::string> fix;         // what to change, in the trace's framework
  WhatIf projection;                    // lever = id; speedup 1 when it saves no step time
  std::string confidence;               // "measured", "modelled" or "heuristic"
  std::string confidence_why;           // one sentence: how the projection was made
};

struct Report {
  std::string file;
  std::int64_t steps = 0;
  StepTime step_time;
  Breakdown breakdown;   // summed over the steps
  double input_pct = 0;  // summed input / summed step time × 100
  Verdict verdict = Verdict::none;
  std::int64_t input_bound_steps = 0;       // analysed steps moderately or highly input-bound
  std::int64_t input_bound_steps_high = 0;  // of them, highly input-bound
  // The thresholds the steps were classed by (AnalysisOptions::step_input_bound_pct, _high_pct).
  double step_input_bound_pct = 5.0, step_input_high_pct = 20.0;
  DeviceStats device;
  double samples_per_s = 0;  // batch × steps / summed step time (0 when the batch is unknown)
  std::optional<std::int64_t> batch;
  PipelineStats pipeline;
  std::vector<KernelStat> kernels;           // by total time, largest first
  std::vector<std::string> recommendations;  // by what each would save, largest first
  double idle_cost_per_1000_steps = 0;       // device idle time priced at gpu_hour_price
  double gpu_hour_price = 2.50;              // the AnalysisOptions price and currency used
  std::string currency = "$";
  StepTable per_step;                // in step order, packed
  std::uint64_t dropped_events = 0;  // from meta: the trace is incomplete when nonzero
  // What the trace lacks, one sentence each (never silent): events dropped or lost to a write
  // error, a capture that did not stop (killed), ranks missing from a job, a cut-off import.
  // Empty for a complete trace; `check` fails on them unless told they are expected.
  std::vector<std::string> warnings;
  std::string model, backend, device_name;  // from meta, empty when absent
  // The capture left device events out on purpose (meta capture.device_events = off, `train
  // --trace-device off`): no device figures, and not because the run had no device.
  bool device_events_off = false;
  // Device events on one step in K (meta capture.device_event_every = K > 1, `train
  // --trace-device every:K|auto`): the device figures (busy, idle and its causes, the breakdown,
  // the kernel table's counts and totals, the levers' facts) come from the analysed steps that
  // hold device events, extrapolated to all analysed steps (busy: their mean busy time per step).
  struct DeviceSampling {
    std::int64_t every = 1;          // K
    std::int64_t sampled_steps = 0;  // analysed steps holding device events
    std::int64_t steps = 0;          // analysed steps
  };
  std::optional<DeviceSampling> device_sampling;
  // "A-B" when the capture recorded those steps only (meta capture.steps, `train --trace-steps`):
  // the trace's steps are then not the whole run's.
  std::string recorded_steps;
  std::int64_t step_time_total_ns = 0;  // summed wall time of the steps (breakdown.total())
  std::int64_t h2d_total_ns = 0;  // all h2d time inside steps; breakdown[h2d] is the exposed part
  std::int64_t events = 0;        // events read

  // A trace of several processes that hold steps: one entry per process, ordered by rank (or
  // process id). The figures above then cover all of them: every process's steps count (steps,
  // step times and the breakdown are summed over them) and samples/s is the sum of the
  // processes' rates (data-parallel ranks train at the same time). Empty for one process.
  std::vector<RankFigures> ranks;
  // Several ranks (ranks.hpp): collective time / step time, XProf's verdict for it, the rank
  // that holds the others back, and how uneven the ranks' own work is.
  double communication_pct = 0;
  Verdict communication_verdict = Verdict::none;
  struct Straggler {
    std::int64_t rank = 0;
    std::string cause;  // as JobOverview::HoldingBack::cause
    double cause_pct = 0;
    double wait_ms_per_step = 0;  // each other rank's wait for it per step, on average
    std::string sentence;
  };
  std::optional<Straggler> straggler;  // the first of job->holding_back
  double load_imbalance_pct = 0;
  // The ranks as a distribution and the ones holding the job back (nullopt: fewer than two
  // processes with steps).
  std::optional<JobOverview> job;
  // Communication-computation overlap (HTA's): of the collective kernels' time on the device
  // queues (their union, per rank), the share during which a compute kernel ran on the same
  // rank's queues, over the levers' sampled steps (lever_facts.hpp); nullopt without collective
  // kernels. Low overlap: the ranks wait for communication that could hide behind compute.
  std::optional<double> communication_overlap_pct;
  // Kernels' time-weighted achieved occupancy (Kineto's "est. achieved occupancy %", weighted by
  // each kernel's duration, meta kernels.achieved_occupancy_pct); nullopt: not in the trace.
  std::optional<double> achieved_occupancy_pct;

  // Where the trace came from, for imported ones: the format ("kineto", "chrome", ...; empty
  // for a trainscope capture), how its steps were found, and what the import skipped, by reason.
  std::string source_format;
  std::string steps_source;
  std::vector<std::pair<std::string, std::uint64_t>> skipped;
  // The trace holds no step structure: the figures cover its whole profiled window as one step
  // (whole_window_step(), steps.hpp; steps_source says so).
  bool whole_window = false;

  // Phases. The figures above cover the analysed steps (AnalysisOptions::steps / skip_warmup);
  // `warmup` sums up the steps left out before them, `whole_run` every step, `epochs` each epoch
  // when the trace records them (meta fit.epoch_first_steps).
  std::int64_t analysed_first_step = 0, analysed_last_step = 0;
  PhaseFigures warmup;  // steps == 0: nothing was left out
  PhaseFigures whole_run;
  std::vector<PhaseFigures> epochs;
  std::int64_t before_first_step_ns = 0;  // device work before the first step (compilation, ...)
  std::int64_t warmup_kernels = 0;        // kernels outside the analysed steps, not in `kernels`
  std::int64_t warmup_kernel_ns = 0;
  double run_device_hours = 0;  // summed step time of the whole run, in hours
  std::vector<WhatIf> what_if;  // largest saving first
  std::vector<Lever> levers;    // every lever that applies, largest saving first (levers.hpp)

  // The host's CPU over the analysed steps, from the capture's counter "host CPU (cores busy)"
  // and meta host.cores: when its cores are saturated, more input workers cannot help.
  struct HostCpu {
    double busy_pct = 0;  // mean busy cores / cores × 100
    int cores = 0;
    bool saturated = false;  // busy_pct >= kSaturatedCpuPct
  };
  std::optional<HostCpu> host_cpu;
};
inline constexpr double kSaturatedCpuPct = 90.0;

// Reads the trace and analyses it. Throws store::Error for unreadable files.
Report analyse(const store::Reader& reader, const AnalysisOptions& options = {});

// `report --json`: the keys listed in profiler/analysis/README.md, and more. Stable: extend,
// don't rename.
std::string to_json(const Report& report);
// How `report` lays out its text.
struct TextOptions {
  // `report --wide`: the kernel table prints each name in full (after the figures) instead of
  // shortened and elided to its column (kernel_names.hpp).
  bool wide_names = false;
};
// `report`: the verdict in one sentence, the figures, a compact per-step summary, the
// recommendations.
std::string to_text(const Report& report, const TextOptions& options = {});
// The verdict as one sentence, e.g. "Highly input-bound: 63.0 % of step time is spent waiting
// for input." (the first line of to_text and the viewer's overview).
std::string verdict_sentence(const Report& report);

}  // namespace ts::analysis
