#include "profiler/analysis/phases.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <map>
#include <tuple>

#include "profiler/analysis/step_breakdown.hpp"
#include "trainscope/meta_keys.hpp"

namespace ts::analysis {

namespace {

// A run of more than this many steps leaves its first step out by default.
constexpr std::size_t kFirstStepWarmupFrom = 6;

std::vector<std::int64_t> parse_list(const std::string& text) {
  std::vector<std::int64_t> out;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t j = text.find(',', i);
    if (j == std::string::npos) j = text.size();
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(text.data() + i, text.data() + j, v);
    if (ec == std::errc() && ptr == text.data() + j) out.push_back(v);
    i = j + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Device events on a sample of steps (Report::device_sampling): device busy is the sampled
// analysed steps' mean busy time per step times the analysed steps (a sampled step is slower by
// its events' cost, its device work is not), idle the rest of the step time, split by cause as
// in the sampled steps; the breakdown is the sampled steps' shares of their time, applied to
// the analysed steps' time. No sampled step: no device figures.
void extrapolate_sampled(const StepTable& per_step, Report& r) {
  Report::DeviceSampling& ds = *r.device_sampling;
  ds.steps = r.steps;
  ds.sampled_steps = 0;
  std::int64_t busy = 0, time = 0;
  std::array<std::int64_t, kIdleCauseCount> by_cause{};
  Breakdown parts;
  for (const StepSummary& s : per_step) {
    if (s.warmup || !s.device_sampled) continue;
    ++ds.sampled_steps;
    busy = sat_add(busy, s.device_busy_ns);
    time = sat_add(time, s.dur_ns);
    for (int c = 0; c < kIdleCauseCount; ++c)
      by_cause[c] = sat_add(by_cause[c], s.idle_by_cause_ns[c]);
    for (int p = 0; p < kPartCount; ++p) parts.ns[p] = sat_add(parts.ns[p], s.parts.ns[p]);
  }
  const auto total = static_cast<double>(r.step_time_total_ns);
  if (ds.sampled_steps == 0 || time <= 0) {
    r.device.busy_ns = r.device.idle_ns = 0;
    r.device.idle_by_cause_ns = {};
    return;
  }
  if (r.device.has_device) {
    const double per_step_busy = static_cast<double>(busy) / static_cast<double>(ds.sampled_steps);
    r.device.busy_ns =
        static_cast<std::int64_t>(std::min(total, per_step_busy * static_cast<double>(ds.steps)));
    r.device.idle_ns = r.step_time_total_ns - r.device.busy_ns;
    std::int64_t idle_sampled = 0;
    for (const std::int64_t ns : by_cause) idle_sampled = sat_add(idle_sampled, ns);
    for (int c = 0; c < kIdleCauseCount; ++c)
      r.device.idle_by_cause_ns[c] =
          idle_sampled > 0 ? static_cast<std::int64_t>(static_cast<double>(r.device.idle_ns) *
                                                       static_cast<double>(by_cause[c]) /
                                                       static_cast<double>(idle_sampled))
                           : 0;
  }
  std::int64_t assigned = 0;
  for (int p = 0; p < kPartCount; ++p) {
    r.breakdown.ns[p] = static_cast<std::int64_t>(total * static_cast<double>(parts.ns[p]) /
                                                  static_cast<double>(time));
    assigned = sat_add(assigned, r.breakdown.ns[p]);
  }
  r.breakdown[Part::other] += r.step_time_total_ns - assigned;  // the rounding: parts sum exactly
}

}  // namespace

RunShape run_shape(const store::Reader& reader) {
  RunShape s;
  s.epoch_first_steps = parse_list(reader.meta(meta_key::kFitEpochFirstSteps).value_or(""));
  const std::string cache = reader.meta(meta_key::kPipelineCache).value_or("none");
  s.cache_fills_in_first_epoch = !cache.empty() && cache != "none";
  s.step_range_capture = reader.meta(meta_key::kCaptureSteps).has_value();
  return s;
}

int epoch_of(const RunShape& shape, std::int64_t step) {
  const auto& f = shape.epoch_first_steps;
  if (f.empty()) return 0;
  const auto it = std::upper_bound(f.begin(), f.end(), step);
  return it == f.begin() ? 1 : static_cast<int>(it - f.begin());
}

StepRule::StepRule(const RunShape& shape, const AnalysisOptions& o, std::size_t count)
    : shape_(&shape) {
  if (o.steps) {
    kind_ = Kind::numbers;
    std::tie(from_, to_) = *o.steps;
    why_ =
        "outside the steps asked for (" + std::to_string(from_) + "-" + std::to_string(to_) + ")";
  } else if (o.skip_warmup >= 0) {
    kind_ = Kind::first_n;
    const std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(o.skip_warmup), count);
    from_ = static_cast<std::int64_t>(n);
    why_ = "the first " + std::to_string(n) + " step" + (n == 1 ? "" : "s") + " (--skip-warmup)";
  } else if (shape.cache_fills_in_first_epoch && shape.epoch_first_steps.size() >= 2) {
    kind_ = Kind::past_first_epoch;
    why_ = "epoch 1 fills the input cache";
  } else if (count >= kFirstStepWarmupFrom) {
    kind_ = Kind::past_first;
    why_ = shape.step_range_capture
               ? "the first step recorded (--trace-steps): recording starts in it, and a "
                 "device's clock is calibrated"
               : "the first step: first calls, compilation, the first batch";
  }
}

bool StepRule::analysed(std::size_t index, std::int64_t number) const {
  switch (kind_) {
    case Kind::numbers:
      return number >= from_ && number <= to_;
    case Kind::first_n:
      return index >= static_cast<std::size_t>(from_);
    case Kind::past_first_epoch:
      return epoch_of(*shape_, number) >= 2;
    case Kind::past_first:
      return index > 0;
    case Kind::all:
      break;
  }
  return true;
}

StepSelection select_steps(std::span<const store::Step> steps, const RunShape& shape,
                           const AnalysisOptions& o) {
  StepSelection sel;
  const StepRule rule(shape, o, steps.size());
  sel.analysed.resize(steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) sel.analysed[i] = rule.analysed(i, steps[i].step);
  sel.why = rule.why();
  // Leaving every step out would leave nothing to say: then every step counts.
  if (std::none_of(sel.analysed.begin(), sel.analysed.end(), [](bool b) { return b; })) {
    sel.analysed.assign(steps.size(), true);
    sel.why.clear();
  }
  bool any = false;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (!sel.analysed[i]) continue;
    const Interval w = event_interval(steps[i].start_ns, steps[i].dur_ns);
    sel.window =
        any ? Interval{std::min(sel.window.start, w.start), std::max(sel.window.end, w.end)} : w;
    any = true;
  }
  if (std::find(sel.analysed.begin(), sel.analysed.end(), false) != sel.analysed.end())
    sel.stage_window = sel.window;
  return sel;
}

namespace {

PhaseFigures phase_from_sums(std::int64_t first, std::int64_t last, std::int64_t steps,
                             std::int64_t total_ns, std::int64_t input_ns, std::int64_t idle_ns) {
  PhaseFigures p;
  p.first_step = first;
  p.last_step = last;
  p.steps = steps;
  p.step_mean_ms = steps > 0 ? static_cast<double>(total_ns) / static_cast<double>(steps) / 1e6 : 0;
  p.input_pct = percent(input_ns, total_ns);
  p.verdict = verdict_for(p.input_pct);
  p.device_idle_pct = percent(idle_ns, total_ns);
  return p;
}

}  // namespace

std::optional<PhaseFigures> PhaseSums::figures() const {
  if (steps_ == 0) return std::nullopt;
  // Steps without device events (sampled capture): busy extrapolated from the others' mean.
  std::int64_t idle = idle_;
  if (sampled_ < steps_)
    idle = sampled_ == 0 ? 0
                         : total_ - static_cast<std::int64_t>(std::min(
                                        static_cast<double>(total_),
                                        static_cast<double>(busy_) / static_cast<double>(sampled_) *
                                            static_cast<double>(steps_)));
  return phase_from_sums(first_, last_, steps_, total_, input_, idle);
}

std::vector<PhaseFigures> epoch_figures(const StepTable& per_step, const RunShape& shape,
                                        const std::string& why) {
  std::vector<PhaseFigures> out;
  if (shape.epoch_first_steps.empty()) return out;
  // Every epoch's sums in one pass over the steps (epochs 1 and up; steps follow epochs in
  // order, so the epoch looked up last is nearly always the next step's).
  std::map<int, PhaseSums> epochs;
  std::map<int, PhaseSums>::iterator last = epochs.end();
  for (const StepSummary& s : per_step) {
    if (s.epoch < 1) continue;
    if (last == epochs.end() || last->first != s.epoch) last = epochs.try_emplace(s.epoch).first;
    last->second.add(s);
  }
  for (const auto& [e, sums] : epochs) {
    auto p = sums.figures();
    if (!p) continue;
    p->name = "epoch " + std::to_string(e);
    p->warmup = sums.all_warmup();
    if (p->warmup) p->why = why;
    out.push_back(std::move(*p));
  }
  return out;
}

void sum_analysed(const StepTable& per_step, Report& r) {
  r.breakdown = {};
  r.step_time_total_ns = r.h2d_total_ns = r.input_bound_steps = r.input_bound_steps_high = 0;
  r.steps = 0;
  r.device.busy_ns = r.device.idle_ns = 0;
  r.device.idle_by_cause_ns = {};
  bool first = true;
  for (const StepSummary& s : per_step) {
    if (s.warmup) continue;
    if (first || s.step < r.analysed_first_step) r.analysed_first_step = s.step;
    if (first || s.step > r.analysed_last_step) r.analysed_last_step = s.step;
    first = false;
    ++r.steps;
    for (int p = 0; p < kPartCount; ++p)
      r.breakdown.ns[p] = sat_add(r.breakdown.ns[p], s.parts.ns[p]);
    r.step_time_total_ns = sat_add(r.step_time_total_ns, s.dur_ns);
    r.h2d_total_ns = sat_add(r.h2d_total_ns, s.h2d_all_ns);
    if (s.input_bound) ++r.input_bound_steps;
    if (s.input_verdict == Verdict::high) ++r.input_bound_steps_high;
    if (r.device.has_device) {
      r.device.busy_ns = sat_add(r.device.busy_ns, s.device_busy_ns);
      for (int c = 0; c < kIdleCauseCount; ++c)
        r.device.idle_by_cause_ns[c] = sat_add(r.device.idle_by_cause_ns[c], s.idle_by_cause_ns[c]);
    }
  }
  if (r.device.has_device) r.device.idle_ns = r.step_time_total_ns - r.device.busy_ns;
  if (r.device_sampling) extrapolate_sampled(per_step, r);
  r.input_pct = percent(input_ns(r.breakdown), r.step_time_total_ns);
  r.verdict = verdict_for(r.input_pct);
  r.device.busy_pct = percent(r.device.busy_ns, r.step_time_total_ns);
  r.device.idle_pct = percent(r.device.idle_ns, r.step_time_total_ns);
}

}  // namespace ts::analysis
