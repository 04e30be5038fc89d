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
enum class Kind { value, share, time };

std::string signed_duration(double ms) {
  const auto ns = std::llround(std::isfinite(ms) ? ms * 1e6 : 0.0);
  std::string out(1, ns < 0 ? '-' : '+');
  out += fmt::duration(ns < 0 ? -ns : ns);
  return out;
}

std::string row(std::string_view label, const Delta& d, int decimals, std::string_view unit,
                Kind kind = Kind::value) {
  auto cell = [&](double v) {
    if (kind == Kind::time) return fmt::duration(std::llround(std::isfinite(v) ? v * 1e6 : 0.0));
    return fmt::printf("%.*f", decimals, v) + std::string(unit);
  };
  std::string change = kind == Kind::time ? signed_duration(d.delta())
                       : kind == Kind::share
                           ? signed_fixed(d.delta(), decimals) + " pp"
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

RunDiff diff(const Report& a, const Report& b) {
  RunDiff d;
  d.file_a = a.file;
  d.file_b = b.file;
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
  std::stable_sort(d.kernels.begin(), d.kernels.end(),
                   [](const KernelDelta& x, const KernelDelta& y) {
                     return std::fabs(x.ms_per_step.delta()) > std::fabs(y.ms_per_step.delta());
                   });

  // Samples/s compares runs of different batch sizes fairly; step time when a batch is unknown.
  if (a.samples_per_s > 0 && b.samples_per_s > 0 && a.batch && b.batch)
    d.speedup = b.samples_per_s / a.samples_per_s;
  else if (a.step_time.mean_ms > 0 && b.step_time.mean_ms > 0)
    d.speedup = a.step_time.mean_ms / b.step_time.mean_ms;
  d.gpu_hour_price = a.gpu_hour_price;
  d.currency = a.currency;
  if (d.speedup > 0) {
    d.device_time_saved_pct = (1.0 - 1.0 / d.speedup) * 100.0;
    d.saving_per_device_hour = d.gpu_hour_price * d.device_time_saved_pct / 100.0;
  }
  return d;
}

std::string headline(const RunDiff& d) {
  if (d.speedup <= 0) return "A and B cannot be compared: a run has no step time.";
  const bool faster = d.speedup >= 1.0;
  std::string out = faster ? fmt::printf("B is %.2f× faster than A", d.speedup)
                           : fmt::printf("B is %.2f× slower than A", 1.0 / d.speedup);
  out += ": " + fmt::ms(d.step_mean_ms.a) + " → " + fmt::ms(d.step_mean_ms.b) + " per step";
  if (d.samples_per_s.a > 0 && d.samples_per_s.b > 0)
    out += ", " + fmt::count(std::llround(d.samples_per_s.a)) + " → " +
           fmt::count(std::llround(d.samples_per_s.b)) + " samples/s";
  const Delta& wait = d.breakdown_ms_per_step[static_cast<int>(Part::input_wait)];
  if (const auto pct = wait.change_pct(); pct && std::fabs(*pct) >= 1.0)
    out += fmt::printf("; input wait per step %+.0f %%", *pct);
  return out + ".";
}

std::string saving_sentence(const RunDiff& d) {
  if (d.speedup <= 0) return "";
  const std::string price = fmt::money(d.gpu_hour_price, d.currency);
  // Runs without a device (CPU training) rent the machine: its hours, no device idle time.
  const bool device = d.device_a || d.device_b;
  const std::string time = device ? "device time" : "machine time";
  const std::string hour = device ? "device-hour" : "machine-hour";
  if (d.speedup < 1.0)
    return fmt::printf("B needs %.0f %% more ", (1.0 / d.speedup - 1.0) * 100.0) + time +
           " than A for the same steps: " + fmt::money(-d.saving_per_device_hour, d.currency) +
           " more per " + hour + " at " + price + "/hour.";
  std::string out = fmt::printf("B does A's work in %.0f %% less ", d.device_time_saved_pct) +
                    time + ": " + fmt::money(d.saving_per_device_hour, d.currency) +
                    " saved of every " + price + " " + hour + " A rents";
  if (device)
    out += " (idle device time " + fmt::pct(d.device_idle_pct.a) + " → " +
           fmt::pct(d.device_idle_pct.b) + ")";
  return out + ".";
}

std::string to_text(const RunDiff& d) {
  std::string out = headline(d) + "\n";
  if (const std::string saving = saving_sentence(d); !saving.empty())
    out += "Saving: " + saving + "\n";
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
    out += row("idle cost per 1 000 steps", d.idle_cost_per_1000_steps, 4, "");
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
  return out;
}

std::string to_json(const RunDiff& d) {
  json::IndentedWriter j;
  j.begin_object();
  j.key("a").begin_object().field("file", d.file_a).end_object();
  j.key("b").begin_object().field("file", d.file_b).end_object();
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
      .field("per_device_hour", d.saving_per_device_hour)
      .field("gpu_hour_price", d.gpu_hour_price)
      .field("currency", d.currency)
      .end_object();
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
  j.end_object();
  return j.finish();
}

}  // namespace ts::analysis
