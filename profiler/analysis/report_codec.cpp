#include "profiler/analysis/report_codec.hpp"

#include <algorithm>
#include <cmath>
#include <concepts>
#include <span>
#include <type_traits>

#include "profiler/store/byte_codec.hpp"
#include "profiler/store/varint.hpp"

namespace ts::analysis {

namespace {

namespace varint = store::varint;

constexpr std::string_view kMagic = "TSRP";
// 2: a step's input class (StepSummary::input_verdict) and the counts and thresholds of it.
// 3: the breakdown's input hand-over part (Part::input_handoff).
// 4: the levers table (Report::levers).
// 5: communication-computation overlap (Report and RankFigures), achieved occupancy.
// 6: a trace analysed as one whole-window step (Report::whole_window).
// 7: the job overview of several ranks (Report::job).
constexpr unsigned char kFormat = 7;
// No encoded step is shorter: 28 one-byte varints and one double.
constexpr std::uint64_t kMinStepBytes = 36;

// A field added to a report struct must be added to its fields() below (and the format's
// number raised): these sizes (x86-64 and AArch64 with libstdc++) catch one that was not.
static_assert(sizeof(void*) != 8 || sizeof(StepSummary) == 208, "StepSummary changed");
static_assert(sizeof(void*) != 8 || sizeof(DeviceStats) == 112, "DeviceStats changed");
static_assert(sizeof(void*) != 8 || sizeof(KernelStat) == 80, "KernelStat changed");
static_assert(sizeof(void*) != 8 || sizeof(StageStat) == 104, "StageStat changed");
static_assert(sizeof(void*) != 8 || sizeof(PipelineStats) == 168, "PipelineStats changed");
static_assert(sizeof(void*) != 8 || sizeof(RankFigures) == 312, "RankFigures changed");
static_assert(sizeof(void*) != 8 || sizeof(PhaseFigures) == 128, "PhaseFigures changed");
static_assert(sizeof(void*) != 8 || sizeof(WhatIf) == 112, "WhatIf changed");
static_assert(sizeof(void*) != 8 || sizeof(Lever) == 336, "Lever changed");
static_assert(sizeof(void*) != 8 || sizeof(Report::Straggler) == 88, "Straggler changed");
static_assert(sizeof(void*) != 8 || sizeof(Report::HostCpu) == 16, "HostCpu changed");
static_assert(sizeof(void*) != 8 || sizeof(JobOverview::Spread) == 24, "Spread changed");
static_assert(sizeof(void*) != 8 || sizeof(JobOverview::RankRow) == 40, "RankRow changed");
static_assert(sizeof(void*) != 8 || sizeof(JobOverview::HoldingBack) == 96, "HoldingBack changed");
static_assert(sizeof(void*) != 8 || sizeof(JobOverview) == 176, "JobOverview changed");
static_assert(sizeof(void*) != 8 || sizeof(Report) == 1760, "Report changed");

// Every field of each struct, once, for both directions: S is the struct, const when encoding.
template <class S, class T>
concept Is = std::same_as<std::remove_const_t<S>, T>;

template <class IO, Is<Breakdown> S>
void fields(IO& io, S& s) {
  io(s.ns);
}

template <class IO, Is<StepTime> S>
void fields(IO& io, S& s) {
  io(s.mean_ms), io(s.p50_ms), io(s.p90_ms), io(s.min_ms), io(s.max_ms);
}

// The step number and start are delta-coded by the caller.
template <class IO, Is<StepSummary> S>
void fields(IO& io, S& s) {
  io(s.dur_ns), io(s.parts), io(s.input_ns), io(s.input_pct), io(s.input_bound);
  io(s.input_verdict);
  io(s.device_busy_ns), io(s.idle_by_cause_ns), io(s.h2d_all_ns), io(s.input_wait_all_ns);
  io(s.input_work_in_wait_ns), io(s.rank_index), io(s.epoch), io(s.warmup);
  io(s.device_sampled);
}

template <class IO, Is<Report::DeviceSampling> S>
void fields(IO& io, S& s) {
  io(s.every), io(s.sampled_steps), io(s.steps);
}

// Without the gaps themselves: a kept report only says how many were listed.
template <class IO, Is<DeviceStats> S>
void fields(IO& io, S& s) {
  io(s.has_device), io(s.busy_ns), io(s.idle_ns), io(s.busy_pct), io(s.idle_pct);
  io(s.idle_by_cause_ns), io(s.listed_gaps);
}

template <class IO, Is<KernelStat> S>
void fields(IO& io, S& s) {
  io(s.name), io(s.count), io(s.total_ns), io(s.mean_ns), io(s.min_ns), io(s.max_ns);
  io(s.share_pct);
}

template <class IO, Is<StageStat> S>
void fields(IO& io, S& s) {
  io(s.stage), io(s.main_event), io(s.count), io(s.total_ns), io(s.ns_per_sample), io(s.threads);
  io(s.utilisation_pct);
}

template <class IO, Is<PipelineStats> S>
void fields(IO& io, S& s) {
  io(s.stages), io(s.bottleneck_stage), io(s.prefetch_fill_mean), io(s.workers), io(s.prefetch);
  io(s.cache), io(s.prefetch_to_device), io(s.busy_during_waits_pct), io(s.samples);
}

template <class IO, Is<RankFigures> S>
void fields(IO& io, S& s) {
  io(s.process), io(s.rank), io(s.name), io(s.steps), io(s.step_time), io(s.breakdown);
  io(s.step_time_total_ns), io(s.input_pct), io(s.verdict), io(s.input_bound_steps);
  io(s.input_bound_steps_high), io(s.has_device), io(s.device_busy_pct), io(s.device_idle_pct),
      io(s.idle_by_cause_ns);
  io(s.samples_per_s), io(s.communication_overlap_pct);
}

template <class IO, Is<PhaseFigures> S>
void fields(IO& io, S& s) {
  io(s.name), io(s.first_step), io(s.last_step), io(s.steps), io(s.step_mean_ms), io(s.input_pct);
  io(s.verdict), io(s.device_idle_pct), io(s.warmup), io(s.why);
}

template <class IO, Is<WhatIf> S>
void fields(IO& io, S& s) {
  io(s.lever), io(s.description), io(s.step_time_ms), io(s.speedup), io(s.samples_per_s);
  io(s.device_hours), io(s.saving), io(s.saving_device_hours);
}

template <class IO, Is<Lever> S>
void fields(IO& io, S& s) {
  io(s.id), io(s.title), io(s.evidence), io(s.points_at), io(s.already_on), io(s.fix);
  io(s.projection), io(s.confidence), io(s.confidence_why);
}

template <class IO, Is<Report::Straggler> S>
void fields(IO& io, S& s) {
  io(s.rank), io(s.cause), io(s.cause_pct), io(s.wait_ms_per_step), io(s.sentence);
}

template <class IO, Is<JobOverview::Spread> S>
void fields(IO& io, S& s) {
  io(s.median), io(s.p90), io(s.max);
}

template <class IO, Is<JobOverview::RankRow> S>
void fields(IO& io, S& s) {
  io(s.index), io(s.step_ms), io(s.input_ms), io(s.collective_ms), io(s.own_ms);
}

template <class IO, Is<JobOverview::HoldingBack> S>
void fields(IO& io, S& s) {
  io(s.index), io(s.own_ms), io(s.excess_ms), io(s.cause), io(s.cause_excess_ms), io(s.cause_pct);
  io(s.wait_ms_per_step), io(s.wait_ms), io(s.wait_pct);
}

template <class IO, Is<JobOverview> S>
void fields(IO& io, S& s) {
  io(s.ranks), io(s.step_ms), io(s.input_ms), io(s.collective_ms), io(s.own_ms);
  io(s.median_rank), io(s.threshold_ms), io(s.worst), io(s.holding_back), io(s.device_ms);
}

template <class IO, Is<Report::HostCpu> S>
void fields(IO& io, S& s) {
  io(s.busy_pct), io(s.cores), io(s.saturated);
}

// Everything but per_step.
template <class IO, Is<Report> S>
void fields(IO& io, S& s) {
  io(s.file), io(s.steps), io(s.step_time), io(s.breakdown), io(s.input_pct), io(s.verdict);
  io(s.input_bound_steps), io(s.input_bound_steps_high), io(s.step_input_bound_pct);
  io(s.step_input_high_pct), io(s.device), io(s.samples_per_s), io(s.batch), io(s.pipeline);
  io(s.kernels), io(s.recommendations), io(s.idle_cost_per_1000_steps), io(s.gpu_hour_price);
  io(s.currency), io(s.dropped_events), io(s.warnings), io(s.model), io(s.backend);
  io(s.device_name), io(s.step_time_total_ns), io(s.h2d_total_ns), io(s.events), io(s.ranks);
  io(s.communication_pct), io(s.communication_verdict), io(s.straggler);
  io(s.load_imbalance_pct), io(s.source_format), io(s.steps_source), io(s.skipped);
  io(s.whole_window);
  io(s.analysed_first_step), io(s.analysed_last_step), io(s.warmup), io(s.whole_run);
  io(s.epochs), io(s.before_first_step_ns), io(s.warmup_kernels), io(s.warmup_kernel_ns);
  io(s.device_events_off), io(s.recorded_steps), io(s.device_sampling);
  io(s.run_device_hours), io(s.what_if), io(s.host_cpu), io(s.levers);
  io(s.communication_overlap_pct), io(s.achieved_occupancy_pct), io(s.job);
}

class Out {
 public:
  std::string bytes;

  void operator()(std::int64_t v) { varint::append(bytes, varint::zigzag(v)); }
  void operator()(int v) { (*this)(std::int64_t{v}); }
  void operator()(std::uint64_t v) { varint::append(bytes, v); }
  void operator()(bool v) { bytes.push_back(v ? '\1' : '\0'); }
  void operator()(double v) { store::put_f64(bytes, v); }
  void operator()(Verdict v) { (*this)(static_cast<std::uint64_t>(v)); }
  void operator()(const std::string& v) {
    (*this)(static_cast<std::uint64_t>(v.size()));
    bytes += v;
  }
  template <class T, std::size_t N>
  void operator()(const std::array<T, N>& a) {
    for (const T& x : a) (*this)(x);
  }
  template <class T>
  void operator()(const std::optional<T>& o) {
    (*this)(o.has_value());
    if (o) (*this)(*o);
  }
  template <class T>
  void operator()(const std::vector<T>& v) {
    (*this)(static_cast<std::uint64_t>(v.size()));
    for (const T& x : v) (*this)(x);
  }
  template <class A, class B>
  void operator()(const std::pair<A, B>& p) {
    (*this)(p.first), (*this)(p.second);
  }
  template <class T>
  requires std::is_class_v<T>
  void operator()(const T& s) { fields(*this, s); }
};

class In {
 public:
  explicit In(std::string_view bytes) : in_(bytes) {}
  bool ok() const { return ok_; }
  bool done() const { return ok_ && in_.left() == 0; }
  store::ByteInput& input() { return in_; }
  void fail() { ok_ = false; }

  void operator()(std::int64_t& v) {
    if (ok_ && !in_.i64(v)) ok_ = false;
  }
  void operator()(int& v) {
    std::int64_t w = 0;
    (*this)(w);
    if (w < INT32_MIN || w > INT32_MAX) ok_ = false;
    v = static_cast<int>(w);
  }
  void operator()(std::uint64_t& v) {
    if (ok_ && !in_.u64(v)) ok_ = false;
  }
  void operator()(bool& v) {
    std::uint64_t u = 0;
    (*this)(u);
    if (u > 1) ok_ = false;
    v = u == 1;
  }
  // Only what an analysis writes: finite, and within what its figures convert to integers.
  void operator()(double& v) {
    if (ok_ && (!in_.f64(v) || !(std::abs(v) <= 0x1p62))) ok_ = false;
  }
  void operator()(Verdict& v) {
    std::uint64_t u = 0;
    (*this)(u);
    if (u > static_cast<std::uint64_t>(Verdict::high)) ok_ = false;
    v = static_cast<Verdict>(ok_ ? u : 0);
  }
  void operator()(std::string& v) {
    std::uint64_t n = 0;
    (*this)(n);
    if (ok_ && (n > in_.left() || !in_.bytes(static_cast<std::size_t>(n), v))) ok_ = false;
  }
  template <class T, std::size_t N>
  void operator()(std::array<T, N>& a) {
    for (T& x : a) (*this)(x);
  }
  template <class T>
  void operator()(std::optional<T>& o) {
    bool present = false;
    (*this)(present);
    if (!ok_ || !present) return;
    o = T{};  // not emplace(): clang takes Report's nested structs as not default-constructible
    (*this)(*o);
  }
  template <class T>
  void operator()(std::vector<T>& v) {
    std::size_t n = 0;
    if (!ok_ || !in_.count(n, 1)) {
      ok_ = false;
      return;
    }
    v.resize(n);
    for (T& x : v) {
      (*this)(x);
      if (!ok_) return;
    }
  }
  template <class A, class B>
  void operator()(std::pair<A, B>& p) {
    (*this)(p.first), (*this)(p.second);
  }
  template <class T>
  requires std::is_class_v<T>
  void operator()(T& s) { fields(*this, s); }

 private:
  store::ByteInput in_;
  bool ok_ = true;
};

// The job overview points into Report::ranks: a report whose indices do not is refused whole.
bool job_indices_valid(const Report& r) {
  if (!r.job) return true;
  const auto valid = [&](int index) {
    return index >= 0 && static_cast<std::size_t>(index) < r.ranks.size();
  };
  const JobOverview& job = *r.job;
  return valid(job.median_rank) &&
         std::all_of(job.worst.begin(), job.worst.end(),
                     [&](const JobOverview::RankRow& w) { return valid(w.index); }) &&
         std::all_of(job.holding_back.begin(), job.holding_back.end(),
                     [&](const JobOverview::HoldingBack& h) { return valid(h.index); });
}

}  // namespace

std::size_t report_parts(const Report& report) {
  return 1 + (report.per_step.size() + kStepsPerPart - 1) / kStepsPerPart;
}

std::string encode_report_part(const Report& report, std::size_t part) {
  Out out;
  if (part == 0) {
    out.bytes = kMagic;
    out.bytes.push_back(static_cast<char>(kFormat));
    out(static_cast<std::uint64_t>(report.per_step.size()));
    out(report);
    return std::move(out.bytes);
  }
  const StepTable& steps = report.per_step;
  const std::size_t at = (part - 1) * kStepsPerPart;
  const std::size_t n = at < steps.size() ? std::min(kStepsPerPart, steps.size() - at) : 0;
  const std::vector<StepSummary> run(steps.begin() + static_cast<std::ptrdiff_t>(at),
                                     steps.begin() + static_cast<std::ptrdiff_t>(at + n));
  const std::optional<StepSummary> before =
      at == 0 ? std::nullopt : std::optional<StepSummary>(steps[at - 1]);
  return encode_step_run(run, before ? &*before : nullptr);
}

std::string encode_step_run(std::span<const StepSummary> steps, const StepSummary* before) {
  Out out;
  out.bytes.reserve(steps.size() * 64);
  out(static_cast<std::uint64_t>(steps.size()));
  // Deltas from the step before the run, as the decoder reads them.
  std::int64_t step = before ? before->step : 0;
  std::int64_t start = before ? before->start_ns : 0;
  for (const StepSummary& s : steps) {
    out(varint::wrapping_sub(s.step, step));
    out(varint::wrapping_sub(s.start_ns, start));
    step = s.step;
    start = s.start_ns;
    out(s);
  }
  return std::move(out.bytes);
}

std::optional<StepRunHead> step_run_head(std::string_view run) {
  In in(run);
  std::size_t n = 0;
  if (!in.input().count(n, kMinStepBytes)) return std::nullopt;
  return StepRunHead{n, run.size() - in.input().left()};
}

std::optional<std::size_t> decode_steps_at(std::string_view run, std::size_t offset, std::size_t n,
                                           const StepSummary* before,
                                           std::vector<StepSummary>& out) {
  if (offset > run.size()) return std::nullopt;
  In in(run.substr(offset));
  std::int64_t step = before ? before->step : 0;
  std::int64_t start = before ? before->start_ns : 0;
  out.reserve(out.size() + n);
  for (std::size_t i = 0; i < n && in.ok(); ++i) {
    std::int64_t step_delta = 0, start_delta = 0;
    in(step_delta), in(start_delta);
    StepSummary& s = out.emplace_back();
    s.step = step = varint::wrapping_add(step, step_delta);
    s.start_ns = start = varint::wrapping_add(start, start_delta);
    in(s);
  }
  if (!in.ok()) return std::nullopt;
  return run.size() - in.input().left();
}

bool decode_step_run(std::string_view bytes, const StepSummary* before, std::size_t most,
                     std::vector<StepSummary>& out) {
  const std::optional<StepRunHead> head = step_run_head(bytes);
  if (!head || head->count == 0 || head->count > most) return false;
  const auto end = decode_steps_at(bytes, head->first_offset, head->count, before, out);
  return end && *end == bytes.size();
}

std::vector<std::string> encode_report(const Report& report) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < report_parts(report); ++i)
    parts.push_back(encode_report_part(report, i));
  return parts;
}

bool ReportDecoder::add(std::string_view part, std::uint64_t all_bytes) {
  if (failed_) return false;
  if (parts_++ > 0) {
    std::vector<StepSummary> steps;
    failed_ =
        !decode_step_run(part, last_step_ ? &*last_step_ : nullptr,
                         std::min<std::uint64_t>(kStepsPerPart, steps_ - decoded_steps_), steps);
    if (failed_) return false;
    decoded_steps_ += steps.size();
    last_step_ = steps.back();
    if (sink_)
      sink_(steps);
    else
      for (const StepSummary& s : steps) report_.per_step.push_back(s);
    return true;
  }
  In in(part);
  std::uint64_t format = 0;
  if (!in.input().skip(kMagic) || !in.input().u64(format) || format != kFormat) {
    failed_ = true;
    return false;
  }
  in(steps_);
  if (!in.ok() || steps_ > all_bytes / kMinStepBytes) {
    failed_ = true;
    return false;
  }
  in(report_);
  if (!job_indices_valid(report_)) in.fail();
  if (!sink_) report_.per_step.reserve(static_cast<std::size_t>(steps_));
  if (!in.done()) failed_ = true;
  return !failed_;
}

std::optional<Report> ReportDecoder::finish() {
  if (failed_ || parts_ == 0 || decoded_steps_ != steps_) return std::nullopt;
  failed_ = true;  // the report moves out once
  return std::move(report_);
}

}  // namespace ts::analysis
