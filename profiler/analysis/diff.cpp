#include "profiler/analysis/diff.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "profiler/analysis/figure_format.hpp"
#include "profiler/analysis/printable.hpp"
#include "profiler/analysis/step_breakdown.hpp"
#include "profiler/json/writer.hpp"

namespace ts::analysis {

namespace {

constexpr std::size_t kTextKernels = 15;

// Every lever of either run, by id, ordered by the larger of its savings.
std::vector<LeverDelta> lever_deltas(const Report& a, const Report& b) {
  std::map<std::string, LeverDelta, std::less<>> by_id;
  auto take = [&](const Report& r, bool side_b) {
    for (const Lever& l : r.levers) {
      LeverDelta& ld = by_id[l.id];
      ld.id = l.id;
      if (ld.title.empty() || side_b) ld.title = l.title;
      (side_b ? ld.in_b : ld.in_a) = true;
      auto set = [&](Delta& delta, double v) { (side_b ? delta.b : delta.a) = v; };
      set(ld.speedup, l.projection.speedup);
      set(ld.step_time_ms, l.projection.step_time_ms);
      set(ld.saving, l.projection.saving);
      set(ld.saving_device_hours, l.projection.saving_device_hours);
      (side_b ? ld.confidence_b : ld.confidence_a) = l.confidence;
    }
  };
  take(a, false);
  take(b, true);
  std::vector<LeverDelta> out;
  for (auto& [id, ld] : by_id) out.push_back(std::move(ld));
  const auto largest = [](const LeverDelta& l) {
    return std::max(l.saving_device_hours.a, l.saving_device_hours.b);
  };
  std::stable_sort(out.begin(), out.end(), [&](const LeverDelta& x, const LeverDelta& y) {
    if (largest(x) != largest(y)) return largest(x) > largest(y);
    return std::max(x.speedup.a, x.speedup.b) > std::max(y.speedup.a, y.speedup.b);
  });
  return out;
}

// "2.13×", or "no step time" for a lever that projects none.
std::string projected(double speedup) {
  return speedup > 1.0 ? fmt::printf("%.2f×", speedup) : std::string("no step time");
}

std::string_view lever_change(const LeverDelta& l) {
  return !l.in_b ? "gone" : !l.in_a ? "new" : "both";
}

double per_step(double total, std::int64_t steps) {
  return steps > 0 ? total / static_cast<double>(steps) : 0.0;
}

double ms_per_step(std::int64_t ns, std::int64_t steps) {
  return per_step(fmt::to_ms(ns), steps);
}

std::string signed_fixed(double v, int decimals) {
  return fmt::printf("%+.*f", decimals, std::isfinite(v) ? v : 0.0);
}

// "  label                      A          B     change"
constexpr std::size_t kLabelWidth = 34;  // "  " + label, padded; longer labels are cut

// Percentages change by percentage points ("-21.1 pp"); a relative change of a share would read
// as the share itself. Times (in ms) read in the unit their size needs ("26 ns", "4.12 µs",
// "19.4 ms"), not a fixed "0.000 ms". Other figures show their relative change too.
enum class Kind { value, share, time, money };

std::string signed_duration(double ms) {
  const auto ns = std::llround(std::isfinite(ms) ? ms * 1e6 : 0.0);
  std::string out(1, ns < 0 ? '-' : '+');
  out += fmt::duration(ns < 0 ? -ns : ns);
  return out;
}

std::string row(std::string_view label, const Delta& d, int decimals, std::string_view unit,
                Kind kind = Kind::value, std::string_view currency = "") {
  auto cell = [&](double v) {
    if (kind == Kind::time) return fmt::duration(std::llround(std::isfinite(v) ? v * 1e6 : 0.0));
    if (kind == Kind::money) return fmt::money(v, currency);
    return fmt::printf("%.*f", decimals, v) + std::string(unit);
  };
  std::string change =
      kind == Kind::time    ? signed_duration(d.delta())
      : kind == Kind::money ? (d.delta() > 0 ? "+" : "") + fmt::money(d.delta(), currency)
      : kind == Kind::share ? fmt::pp(d.delta())
                            : signed_fixed(d.delta(), decimals) + std::string(unit);
  if (kind != Kind::share)
    if (const auto pct = d.change_pct()) change += fmt::printf(" (%+.1f %%)", *pct);
  std::string out = "  " + std::string(label);
  if (out.size() >= kLabelWidth) out = out.substr(0, kLabelWidth - 4) + "... ";
  out.resize(kLabelWidth, ' ');
  // Padded by characters, not bytes ("µs" is three bytes for two characters).
  const auto pad = [](const std::string& s) {
    const auto chars = static_cast<std::size_t>(
        std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
    return std::string(chars < 14 ? 14 - chars : 0, ' ') + s;
  };
  out += pad(cell(d.a)) + pad(cell(d.b));
  return out + "   " + change + "\n";
}

DiffScope scope_of(const Report& r) {
  DiffScope s;
  s.first = r.analysed_first_step;
  s.last = r.analysed_last_step;
  s.steps = r.steps;
  s.left_out = warmup_steps(r);
  s.why = r.warmup.steps > 0 ? r.warmup.why : "";
  s.whole_first = r.whole_run.first_step;
  s.whole_last = r.whole_run.last_step;
  s.whole_steps = r.whole_run.steps;
  return s;
}

// How much faster B runs than A from their mean step times and throughputs: samples/s compares
// runs of different batch sizes fairly; step time when a batch is unknown. 0 when unknown.
double speedup_of(double mean_a, double mean_b, double rate_a, double rate_b) {
  if (rate_a > 0 && rate_b > 0) return rate_b / rate_a;
  if (mean_a > 0 && mean_b > 0) return mean_a / mean_b;
  return 0;
}

double samples_per_s(const Report& r) {
  return r.samples_per_s > 0 && r.batch ? r.samples_per_s : 0.0;
}

// Throughput over every step: for the same batch and ranks it scales as 1 / mean step time.
double whole_samples_per_s(const Report& r) {
  const double rate = samples_per_s(r);
  return rate > 0 && r.whole_run.step_mean_ms > 0
             ? rate * r.step_time.mean_ms / r.whole_run.step_mean_ms
             : 0.0;
}

std::string step_span(std::int64_t first, std::int64_t last) {
  return first == last ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(last);
}

std::string steps_word(std::int64_t n) {
  return fmt::count(n) + (n == 1 ? " step" : " steps");
}

// "first step", "first 313 steps"
std::string first_steps(std::int64_t n) {
  return n == 1 ? "first step" : "first " + fmt::count(n) + " steps";
}

// B faster: "62 % less device time: $1.56 saved of every $2.50 device-hour A rents"; B slower:
// "91 % of B's device time is time A would not need ($2.28 of every $2.50 device-hour B rents)".
// Either is a share of one hour, so never more than its price.
std::string saving_clause(const Saving& s, const RunDiff& d, std::string_view hour) {
  const std::string price = fmt::money(d.gpu_hour_price, d.currency);
  const std::string time = hour == "device-hour" ? "device time" : "machine time";
  if (s.b_slower)
    return fmt::printf("%.0f %% of B's ", s.share_pct) + time + " is time A would not need (" +
           fmt::money(s.per_device_hour, d.currency) + " of every " + price + " " +
           std::string(hour) + " B rents)";
  return fmt::printf("%.0f %% less ", s.share_pct) + time + ": " +
         fmt::money(s.per_device_hour, d.currency) + " saved of every " + price + " " +
         std::string(hour) + " A rents";
}

void saving_json(json::IndentedWriter& j, std::string_view key, const Saving& s) {
  j.key(key)
      .begin_object()
      .field("share_pct", s.share_pct)
      .field("of", s.b_slower ? "b" : "a")
      .field("per_device_hour", s.b_slower ? -s.per_device_hour : s.per_device_hour)
      .end_object();
}

void scope_json(json::IndentedWriter& j, std::string_view key, const DiffScope& s) {
  j.key(key)
      .begin_object()
      .field("first_step", s.first)
      .field("last_step", s.last)
      .field("steps", s.steps)
      .field("warmup_steps", s.left_out)
      .field("warmup_why", s.why)
      .field("whole_run_first_step", s.whole_first)
      .field("whole_run_last_step", s.whole_last)
      .field("whole_run_steps", s.whole_steps)
      .end_object();
}

void delta_json(json::IndentedWriter& j, std::string_view key, const Delta& d) {
  j.key(key).begin_object().field("a", d.a).field("b", d.b).field("delta", d.delta());
  j.key("change_pct");
  if (const auto pct = d.change_pct()) {
    j.num(*pct);
  } else {
    j.null();
  }
  j.end_object();
}

}  // namespace

std::optional<double> Delta::change_pct() const {
  if (a == 0 || !std::isfinite(a) || !std::isfinite(b)) return std::nullopt;
  return (b - a) / std::fabs(a) * 100.0;
}

Saving saving_at(double speedup, double gpu_hour_price) {
  Saving s;
  if (!(speedup > 0) || !std::isfinite(speedup)) return s;
  s.b_slower = speedup < 1.0;
  s.share_pct = (s.b_slower ? 1.0 - speedup : 1.0 - 1.0 / speedup) * 100.0;
  s.per_device_hour = gpu_hour_price * s.share_pct / 100.0;
  return s;
}

std::int64_t warmup_steps(const Report& r) {
  const auto processes = static_cast<std::int64_t>(std::max<std::size_t>(1, r.ranks.size()));
  return r.warmup.steps / processes;
}

bool takes_common_warmup(const Report& r, const CommonWarmup& common) {
  const auto processes = static_cast<std::int64_t>(std::max<std::size_t>(1, r.ranks.size()));
  return warmup_steps(r) != common.steps && r.whole_run.steps / processes > common.steps;
}

std::optional<CommonWarmup> common_warmup(const Report& a, const Report& b,
                                          const AnalysisOptions& options) {
  if (options.steps || options.skip_warmup != AnalysisOptions::kAutoWarmup) return std::nullopt;
  const std::int64_t wa = warmup_steps(a), wb = warmup_steps(b);
  if (wa == wb) return std::nullopt;
  CommonWarmup c;
  const Report& larger = wa > wb ? a : b;
  c.steps = static_cast<int>(std::min<std::int64_t>(std::max(wa, wb), INT32_MAX));
  c.why = std::string(wa > wb ? "A: " : "B: ") + larger.warmup.why;
  return c;
}

RunDiff diff(const Report& a, const Report& b, const std::optional<CommonWarmup>& common) {
  RunDiff d;
  d.file_a = a.file;
  d.file_b = b.file;
  d.scope_a = scope_of(a);
  d.scope_b = scope_of(b);
  d.common = common;
  d.steps = {static_cast<double>(a.steps), static_cast<double>(b.steps)};
  d.step_mean_ms = {a.step_time.mean_ms, b.step_time.mean_ms};
  d.step_p50_ms = {a.step_time.p50_ms, b.step_time.p50_ms};
  d.step_p90_ms = {a.step_time.p90_ms, b.step_time.p90_ms};
  for (int p = 0; p < kPartCount; ++p)
    d.breakdown_ms_per_step[p] = {ms_per_step(a.breakdown.ns[p], a.steps),
                                  ms_per_step(b.breakdown.ns[p], b.steps)};
  d.input_pct = {a.input_pct, b.input_pct};
  d.verdict_a = a.verdict;
  d.verdict_b = b.verdict;
  d.input_bound_steps = {static_cast<double>(a.input_bound_steps),
                         static_cast<double>(b.input_bound_steps)};
  d.device_a = a.device.has_device;
  d.device_b = b.device.has_device;
  d.device_busy_pct = {a.device.busy_pct, b.device.busy_pct};
  d.device_idle_pct = {a.device.idle_pct, b.device.idle_pct};
  for (int c = 0; c < kIdleCauseCount; ++c)
    d.idle_by_cause_ms_per_step[c] = {ms_per_step(a.device.idle_by_cause_ns[c], a.steps),
                                      ms_per_step(b.device.idle_by_cause_ns[c], b.steps)};
  d.idle_cost_per_1000_steps = {a.idle_cost_per_1000_steps, b.idle_cost_per_1000_steps};
  d.samples_per_s = {a.samples_per_s, b.samples_per_s};
  d.bottleneck_a = a.pipeline.bottleneck_stage;
  d.bottleneck_b = b.pipeline.bottleneck_stage;

  std::map<std::string, KernelDelta, std::less<>> by_name;
  auto take = [&](const Report& r, bool side_b) {
    for (const KernelStat& k : r.kernels) {
      KernelDelta& kd = by_name[k.name];
      kd.name = k.name;
      (side_b ? kd.in_b : kd.in_a) = true;
      auto set = [&](Delta& delta, double v) { (side_b ? delta.b : delta.a) = v; };
      set(kd.count_per_step, per_step(static_cast<double>(k.count), r.steps));
      set(kd.ms_per_step, ms_per_step(k.total_ns, r.steps));
      set(kd.mean_us, static_cast<double>(k.mean_ns) / 1e3);
      set(kd.share_pct, k.share_pct);
    }
  };
  take(a, false);
  take(b, true);
  for (auto& [name, kd] : by_name) d.kernels.push_back(std::move(kd));
  d.levers = lever_deltas(a, b);
  std::stable_sort(d.kernels.begin(), d.kernels.end(),
                   [](const KernelDelta& x, const KernelDelta& y) {
                     return std::fabs(x.ms_per_step.delta()) > std::fabs(y.ms_per_step.delta());
                   });

  d.speedup =
      speedup_of(a.step_time.mean_ms, b.step_time.mean_ms, samples_per_s(a), samples_per_s(b));
  d.gpu_hour_price = a.gpu_hour_price;
  d.currency = a.currency;
  if (d.speedup > 0) d.device_time_saved_pct = (1.0 - 1.0 / d.speedup) * 100.0;
  d.saving = saving_at(d.speedup, d.gpu_hour_price);
  d.whole_step_mean_ms = {a.whole_run.step_mean_ms, b.whole_run.step_mean_ms};
  d.whole_speedup = speedup_of(a.whole_run.step_mean_ms, b.whole_run.step_mean_ms,
                               whole_samples_per_s(a), whole_samples_per_s(b));
  d.whole_saving = saving_at(d.whole_speedup, d.gpu_hour_price);
  return d;
}

std::string headline(const RunDiff& d) {
  if (d.speedup <= 0) return "A and B cannot be compared: a run has no step time.";
  const bool faster = d.speedup >= 1.0;
  std::string out = faster ? fmt::printf("B is %.2f× faster than A", d.speedup)
                           : fmt::printf("B is %.2f× slower than A", 1.0 / d.speedup);
  if (d.same_steps())
    out += " over steps " + step_span(d.scope_a.first, d.scope_a.last) + " of both";
  out += ": " + fmt::ms(d.step_mean_ms.a) + " → " + fmt::ms(d.step_mean_ms.b) + " per step";
  if (d.samples_per_s.a > 0 && d.samples_per_s.b > 0)
    out += ", " + fmt::count(std::llround(d.samples_per_s.a)) + " → " +
           fmt::count(std::llround(d.samples_per_s.b)) + " samples/s";
  const Delta& wait = d.breakdown_ms_per_step[static_cast<int>(Part::input_wait)];
  if (const auto pct = wait.change_pct(); pct && std::fabs(*pct) >= 1.0)
    out += fmt::printf("; input wait per step %+.0f %%", *pct);
  return out + ".";
}

namespace {

// Runs without a device (CPU training) rent the machine: its hours, no device idle time.
std::string_view hour_of(const RunDiff& d) {
  return d.device_a || d.device_b ? "device-hour" : "machine-hour";
}

}  // namespace

std::string saving_sentence(const RunDiff& d) {
  if (d.speedup <= 0) return "";
  const std::string_view hour = hour_of(d);
  std::string out = d.saving.b_slower
                        ? fmt::printf("B needs %.2f× A's ", 1.0 / d.speedup) +
                              std::string(hour == "device-hour" ? "device" : "machine") +
                              " time for the same work; " + saving_clause(d.saving, d, hour)
                        : "B does A's work in " + saving_clause(d.saving, d, hour);
  if (d.device_a || d.device_b)
    out += "; idle device time " + fmt::pct(d.device_idle_pct.a) + " → " +
           fmt::pct(d.device_idle_pct.b);
  return out + ".";
}

std::string scope_sentence(const RunDiff& d) {
  const DiffScope &a = d.scope_a, &b = d.scope_b;
  const auto side = [](const DiffScope& s) {
    std::string out = step_span(s.first, s.last);
    if (s.steps != s.whole_steps)
      out += " (" + fmt::count(s.steps) + " of " + steps_word(s.whole_steps) + ")";
    return out;
  };
  std::string out;
  if (d.same_steps())
    out = "Steps compared: " + side(a) + " of both runs";
  else
    out = "Steps compared: A " + side(a) + ", B " + side(b);
  if (d.common && d.scope_a.left_out == d.scope_b.left_out) {
    out += " (each run's " + first_steps(d.common->steps) + " left out as warm-up; " +
           printable(d.common->why) + ")";
  } else if (a.left_out == b.left_out && a.left_out > 0 && a.why == b.why) {
    out += " (each run's " + first_steps(a.left_out) + " left out: " + printable(a.why) + ")";
  } else {
    std::vector<std::string> parts;
    if (a.left_out > 0) parts.push_back("A leaves out " + printable(a.why));
    if (b.left_out > 0) parts.push_back("B leaves out " + printable(b.why));
    if (!parts.empty()) {
      out += " (";
      for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "; " : "") + parts[i];
      out += ")";
    }
    if (!d.same_steps()) out += ". The runs cover different steps: compare the whole-run line too";
  }
  return out + ".";
}

std::string whole_run_sentence(const RunDiff& d) {
  if (d.whole_speedup <= 0) return "";
  const DiffScope &a = d.scope_a, &b = d.scope_b;
  std::string out = d.whole_speedup >= 1.0
                        ? fmt::printf("B is %.2f× faster", d.whole_speedup)
                        : fmt::printf("B is %.2f× slower", 1.0 / d.whole_speedup);
  out += " over every step (A " + step_span(a.whole_first, a.whole_last) + ", B " +
         step_span(b.whole_first, b.whole_last) + "): " + fmt::ms(d.whole_step_mean_ms.a) + " → " +
         fmt::ms(d.whole_step_mean_ms.b) + " per step; " +
         saving_clause(d.whole_saving, d, hour_of(d));
  return out + ".";
}

std::string lever_sentence(const LeverDelta& l) {
  const std::string title = printable(l.title);
  if (!l.in_b) return title + ": " + projected(l.speedup.a) + " in A, gone in B";
  if (!l.in_a) return title + ": new in B (" + projected(l.speedup.b) + ")";
  return title + ": " + projected(l.speedup.a) + " in A → " + projected(l.speedup.b) + " in B";
}

std::string to_text(const RunDiff& d) {
  std::string out = headline(d) + "\n" + scope_sentence(d) + "\n";
  if (const std::string saving = saving_sentence(d); !saving.empty())
    out += "Saving: " + saving + "\n";
  if (const std::string whole = whole_run_sentence(d); !whole.empty())
    out += "Whole run: " + whole + "\n";
  out += "\nA  " + printable(d.file_a) + "\nB  " + printable(d.file_b) + "\n\n";
  out += "verdict" + std::string(kLabelWidth - 7, ' ') + std::string(verdict_name(d.verdict_a)) +
         " -> " + std::string(verdict_name(d.verdict_b)) +
         (d.verdict_a == d.verdict_b ? " (unchanged)" : "") + "\n";
  out += "bottleneck stage" + std::string(kLabelWidth - 16, ' ') + d.bottleneck_a.value_or("none") +
         " -> " + d.bottleneck_b.value_or("none") + "\n\n";
  out += std::string(kLabelWidth + 13, ' ') + "A             B   change (B - A)\n";
  out += row("steps", d.steps, 0, "");
  out += row("step time mean", d.step_mean_ms, 3, " ms", Kind::time);
  out += row("step time p50", d.step_p50_ms, 3, " ms", Kind::time);
  out += row("step time p90", d.step_p90_ms, 3, " ms", Kind::time);
  out += row("input", d.input_pct, 1, " %", Kind::share);
  out += row("input-bound steps", d.input_bound_steps, 0, "");
  out += row("samples/s", d.samples_per_s, 0, "");
  out += "\nbreakdown per step\n";
  for (int p = 0; p < kPartCount; ++p)
    out += row(part_name(static_cast<Part>(p)), d.breakdown_ms_per_step[p], 3, " ms", Kind::time);
  if (d.device_a || d.device_b) {
    out += "\ndevice\n";
    out += row("busy", d.device_busy_pct, 1, " %", Kind::share);
    out += row("idle", d.device_idle_pct, 1, " %", Kind::share);
    for (int c = 0; c < kIdleCauseCount; ++c)
      out += row("idle " + std::string(idle_cause_name(static_cast<IdleCause>(c))) + " per step",
                 d.idle_by_cause_ms_per_step[c], 3, " ms", Kind::time);
    // Money at a scale where it reads in cents, with its currency.
    const fmt::CostScale scale = fmt::cost_scale(
        std::max(std::fabs(d.idle_cost_per_1000_steps.a), std::fabs(d.idle_cost_per_1000_steps.b)) /
        1e3);
    const double k = scale.steps / 1e3;
    out += row("idle cost per " + scale.name,
               {d.idle_cost_per_1000_steps.a * k, d.idle_cost_per_1000_steps.b * k}, 2, "",
               Kind::money, d.currency);
  }
  if (!d.kernels.empty()) {
    out += "\nkernels per step (largest change first)\n";
    for (std::size_t i = 0; i < d.kernels.size() && i < kTextKernels; ++i) {
      const KernelDelta& k = d.kernels[i];
      std::string label = printable(k.name);
      if (!k.in_a) label += " (only in B)";
      if (!k.in_b) label += " (only in A)";
      out += row(label, k.ms_per_step, 3, " ms", Kind::time);
    }
    if (d.kernels.size() > kTextKernels)
      out += fmt::printf("  … and %zu more kernels\n", d.kernels.size() - kTextKernels);
  }
  out += "\nlevers (projected speed-up; device time and money saved over the run, A → B)\n";
  if (d.levers.empty()) out += "  none in either run\n";
  const auto saved = [&](bool present, double hours, double money) {
    return present ? fmt::device_time(hours) + " (" + fmt::money(money, d.currency) + ")"
                   : std::string("-");
  };
  for (const LeverDelta& l : d.levers)
    out += "  " + lever_sentence(l) + "; saves " +
           saved(l.in_a, l.saving_device_hours.a, l.saving.a) + " → " +
           saved(l.in_b, l.saving_device_hours.b, l.saving.b) + "\n";
  return out;
}

std::string to_json(const RunDiff& d) {
  json::IndentedWriter j;
  j.begin_object();
  j.key("a").begin_object().field("file", d.file_a).end_object();
  j.key("b").begin_object().field("file", d.file_b).end_object();
  j.key("steps_compared").begin_object();
  scope_json(j, "a", d.scope_a);
  scope_json(j, "b", d.scope_b);
  j.field("same_steps", d.same_steps());
  j.key("common_warmup_steps");
  if (d.common) {
    j.integer(d.common->steps);
  } else {
    j.null();
  }
  j.end_object();
  delta_json(j, "steps", d.steps);
  j.key("step_time_ms").begin_object();
  delta_json(j, "mean", d.step_mean_ms);
  delta_json(j, "p50", d.step_p50_ms);
  delta_json(j, "p90", d.step_p90_ms);
  j.end_object();
  j.key("breakdown_ms_per_step").begin_object();
  for (int p = 0; p < kPartCount; ++p)
    delta_json(j, part_name(static_cast<Part>(p)), d.breakdown_ms_per_step[p]);
  j.end_object();
  delta_json(j, "input_pct", d.input_pct);
  j.key("verdict")
      .begin_object()
      .field("a", verdict_name(d.verdict_a))
      .field("b", verdict_name(d.verdict_b))
      .end_object();
  delta_json(j, "input_bound_steps", d.input_bound_steps);
  j.key("device").begin_object();
  j.field("present_a", d.device_a).field("present_b", d.device_b);
  delta_json(j, "busy_pct", d.device_busy_pct);
  delta_json(j, "idle_pct", d.device_idle_pct);
  j.key("idle_by_cause_ms_per_step").begin_object();
  for (int c = 0; c < kIdleCauseCount; ++c)
    delta_json(j, idle_cause_name(static_cast<IdleCause>(c)), d.idle_by_cause_ms_per_step[c]);
  j.end_object();
  delta_json(j, "idle_cost_per_1000_steps", d.idle_cost_per_1000_steps);
  j.end_object();
  delta_json(j, "samples_per_s", d.samples_per_s);
  j.key("bottleneck_stage")
      .begin_object()
      .key("a")
      .opt_str(d.bottleneck_a)
      .key("b")
      .opt_str(d.bottleneck_b)
      .end_object();
  j.field("speedup", d.speedup);
  j.key("saving")
      .begin_object()
      .field("device_time_pct", d.device_time_saved_pct)
      .field("share_pct", d.saving.share_pct)
      .field("of", d.saving.b_slower ? "b" : "a")
      .field("per_device_hour",
             d.saving.b_slower ? -d.saving.per_device_hour : d.saving.per_device_hour)
      .field("gpu_hour_price", d.gpu_hour_price)
      .field("currency", d.currency)
      .end_object();
  j.key("whole_run").begin_object();
  delta_json(j, "step_time_mean_ms", d.whole_step_mean_ms);
  j.field("speedup", d.whole_speedup);
  saving_json(j, "saving", d.whole_saving);
  j.end_object();
  j.key("kernels").begin_array();
  for (const KernelDelta& k : d.kernels) {
    j.begin_object().field("name", k.name).field("in_a", k.in_a).field("in_b", k.in_b);
    delta_json(j, "count_per_step", k.count_per_step);
    delta_json(j, "ms_per_step", k.ms_per_step);
    delta_json(j, "mean_us", k.mean_us);
    delta_json(j, "share_pct", k.share_pct);
    j.end_object();
  }
  j.end_array();
  j.key("levers").begin_array();
  for (const LeverDelta& l : d.levers) {
    j.begin_object().field("id", l.id).field("title", l.title);
    j.field("in_a", l.in_a).field("in_b", l.in_b).field("change", lever_change(l));
    delta_json(j, "speedup", l.speedup);
    delta_json(j, "step_time_ms", l.step_time_ms);
    delta_json(j, "saving", l.saving);
    delta_json(j, "saving_device_hours", l.saving_device_hours);
    j.key("confidence")
        .begin_object()
        .field("a", l.confidence_a)
        .field("b", l.confidence_b)
        .end_object();
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.finish();
}

}  // namespace ts::analysis
