// What analysis makes of one trace (DESIGN §4): the per-step breakdown, the input-bound verdict,
// device busy/idle time with each idle gap's cause, kernel and pipeline stage statistics and
// recommendations. `report --json`, `check`, `diff` and the viewer's overview all read this one
// struct, so the figures they show cannot disagree. Times are nanoseconds unless named _ms/_pct.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ts::store {
class Reader;
}

namespace ts::analysis {

// The parts of a step's wall time, in priority order (DESIGN §4): where intervals of several
// parts overlap, the earlier part here takes the time. The parts of a step sum to its wall time.
enum class Part : std::uint8_t {
  device_compute,
  collective,  // communication: collective kernels on a device, or the host blocked in one
  d2h,
  h2d,
  input_wait,
  launch,
  sync,
  host_compute,
  other,  // also idle time: nothing recorded
};
inline constexpr int kPartCount = 9;
std::string_view part_name(Part p);  // the report --json key: "device_compute", "d2h", ...

struct Breakdown {
  std::array<std::int64_t, kPartCount> ns{};
  std::int64_t& operator[](Part p) { return ns[static_cast<int>(p)]; }
  std::int64_t operator[](Part p) const { return ns[static_cast<int>(p)]; }
  std::int64_t total() const;
};

enum class Verdict : std::uint8_t { none, moderate, high };
std::string_view verdict_name(Verdict v);  // "none", "moderate", "high"

// Why the device sat idle during a gap, first match wins (DESIGN §4).
enum class IdleCause : std::uint8_t { input, collective, host, sync, other };
inline constexpr int kIdleCauseCount = 5;
// "input", "collective", "host", "sync", "other"
std::string_view idle_cause_name(IdleCause c);

struct IdleGap {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::int64_t step = 0;  // the step the gap lies in
  IdleCause cause = IdleCause::other;
};

struct StepSummary {
  std::int64_t step = 0;
  std::int64_t start_ns = 0;
  std::int64_t dur_ns = 0;
  Breakdown parts;                  // parts.total() == dur_ns
  std::int64_t input_ns = 0;        // input wait + h2d on the critical path
  double input_pct = 0;             // input_ns / dur_ns * 100
  bool input_bound = false;         // input_pct >= AnalysisOptions::step_input_bound_pct
  std::int64_t device_busy_ns = 0;  // union of all device-queue events inside the step
  int rank_index = 0;               // the step's process: an index into Report::ranks (0 if none)
};

struct StepTime {
  double mean_ms = 0, p50_ms = 0, p90_ms = 0, min_ms = 0, max_ms = 0;
};

struct DeviceStats {
  bool has_device = false;                // the trace has device-queue tracks with events
  std::int64_t busy_ns = 0, idle_ns = 0;  // inside steps; busy + idle == summed step time
  double busy_pct = 0, idle_pct = 0;
  std::array<std::int64_t, kIdleCauseCount> idle_by_cause_ns{};
  std::vector<IdleGap> gaps;  // every idle gap, in time order
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
  std::int64_t input_bound_steps = 0;
  bool has_device = false;
  double device_busy_pct = 0, device_idle_pct = 0;
  std::array<std::int64_t, kIdleCauseCount> idle_by_cause_ns{};
  double samples_per_s = 0;
};

struct AnalysisOptions {
  double step_input_bound_pct = 5.0;  // a step is input-bound at or above this input %
  double gpu_hour_price = 2.50;       // what an hour of the device costs, for idle cost
  std::string currency = "$";
  // Idle gaps shorter than this are counted in every figure but not listed in
  // DeviceStats::gaps (a 10 M-event trace has millions of sub-microsecond gaps between kernels).
  std::int64_t min_listed_gap_ns = 0;
  // Threads reading the trace: 0 picks up to 4 (hardware threads) for traces of 256 steps or
  // more and 1 below; n > 1 splits any trace of at least n steps into n parts. The figures do
  // not depend on it.
  int threads = 0;
};

struct Report {
  std::string file;
  std::int64_t steps = 0;
  StepTime step_time;
  Breakdown breakdown;   // summed over the steps
  double input_pct = 0;  // summed input / summed step time × 100
  Verdict verdict = Verdict::none;
  std::int64_t input_bound_steps = 0;
  DeviceStats device;
  double samples_per_s = 0;  // batch × steps / summed step time (0 when the batch is unknown)
  std::optional<std::int64_t> batch;
  PipelineStats pipeline;
  std::vector<KernelStat> kernels;  // by total time, largest first
  std::vector<std::string> recommendations;
  double idle_cost_per_1000_steps = 0;  // device idle time priced at gpu_hour_price
  double gpu_hour_price = 2.50;         // the AnalysisOptions price and currency used
  std::string currency = "$";
  std::vector<StepSummary> per_step;        // in step order
  std::uint64_t dropped_events = 0;         // from meta: the trace is incomplete when nonzero
  std::string model, backend, device_name;  // from meta, empty when absent
  std::int64_t step_time_total_ns = 0;      // summed wall time of the steps (breakdown.total())
  std::int64_t h2d_total_ns = 0;  // all h2d time inside steps; breakdown[h2d] is the exposed part
  std::int64_t events = 0;        // events read

  // A trace of several processes that hold steps: one entry per process, ordered by rank (or
  // process id). The figures above then cover all of them: every process's steps count (steps,
  // step times and the breakdown are summed over them) and samples/s is the sum of the
  // processes' rates (data-parallel ranks train at the same time). Empty for one process.
  std::vector<RankFigures> ranks;

  // Where the trace came from, for imported ones: the format ("kineto", "chrome", ...; empty
  // for a trainscope capture), how its steps were found, and what the import skipped, by reason.
  std::string source_format;
  std::string steps_source;
  std::vector<std::pair<std::string, std::uint64_t>> skipped;
};

// Reads the trace and analyses it. Throws store::Error for unreadable files.
Report analyse(const store::Reader& reader, const AnalysisOptions& options = {});

// `report --json`: the DESIGN §5 keys and more. Stable: extend, don't rename.
std::string to_json(const Report& report);
// `report`: the verdict in one sentence, the figures, a compact per-step summary, the
// recommendations.
std::string to_text(const Report& report);
// The verdict as one sentence, e.g. "Highly input-bound: 63.0 % of step time is spent waiting
// for input." (the first line of to_text and the viewer's overview).
std::string verdict_sentence(const Report& report);

}  // namespace ts::analysis
