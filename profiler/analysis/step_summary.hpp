// One step's figures (StepSummary) and the types they are made of: the parts of a step's wall time,
// its input class and the causes of device idle time. Times are nanoseconds unless named _pct.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace ts::analysis {

// The parts of a step's wall time, in priority order (profiler/analysis/README.md,
// "Breakdown"): where intervals of several
// parts overlap, the earlier part here takes the time. The parts of a step sum to its wall time.
enum class Part : std::uint8_t {
  device_compute,
  collective,  // communication: collective kernels on a device, or the host blocked in one
  d2h,
  h2d,
  input_wait,
  input_handoff,  // the trainer taking a batch that was ready (trace::Category::input_handoff)
  launch,
  sync,
  host_compute,
  other,  // also idle time: nothing recorded
};
inline constexpr int kPartCount = 10;
std::string_view part_name(Part p);  // the report --json key: "device_compute", "d2h", ...

struct Breakdown {
  std::array<std::int64_t, kPartCount> ns{};
  std::int64_t& operator[](Part p) { return ns[static_cast<int>(p)]; }
  std::int64_t operator[](Part p) const { return ns[static_cast<int>(p)]; }
  std::int64_t total() const;
};

enum class Verdict : std::uint8_t { none, moderate, high };
std::string_view verdict_name(Verdict v);  // "none", "moderate", "high"

// Why the device sat idle during a gap, first match wins (profiler/analysis/README.md, "Device
// idle").
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
  std::int64_t device_busy_ns = 0;  // union of all device-queue events inside the step
  std::array<std::int64_t, kIdleCauseCount> idle_by_cause_ns{};  // device idle, by cause
  std::int64_t h2d_all_ns = 0;             // every h2d copy inside the step, exposed or hidden
  std::int64_t input_wait_all_ns = 0;      // the trainer's input wait (before priorities)
  std::int64_t input_work_in_wait_ns = 0;  // of it, the time during which an input stage ran
  int rank_index = 0;  // the step's process: an index into Report::ranks (0 if none)
  int epoch = 0;       // 1-based, when the trace records epochs; 0 otherwise
  // By the verdict's thresholds (AnalysisOptions::step_input_bound_pct, step_input_high_pct):
  // high at or above 20 % input, moderate at or above 5 %; input_bound: either of them. (The
  // one-byte fields sit together at the end: no padding between 8-byte ones, 208 bytes a step.)
  bool input_bound = false;
  Verdict input_verdict = Verdict::none;
  bool warmup = false;  // not analysed: warm-up, or outside AnalysisOptions::steps
  // false: the capture recorded device events on a sample of steps (Report::device_sampling) and
  // this step holds none, so its device figures are unknown, not zero.
  bool device_sampled = true;
};

}  // namespace ts::analysis
