#include "cli/check_limits.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

#include "cli/args.hpp"
#include "profiler/store/error.hpp"

namespace ts::cli {

namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// Milliseconds with three significant digits or more: 0.762, 12.5, 431.
std::string millis(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf,
                v >= 100  ? "%.0f"
                : v >= 10 ? "%.1f"
                : v >= 1  ? "%.2f"
                          : "%.3f",
                v);
  return buf;
}

std::string limit_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

void validate(const CheckLimits& limits) {
  if (limits.baseline.has_value() != limits.max_step_time_increase_pct.has_value())
    throw UsageError(limits.baseline ? "--baseline needs --max-step-time-increase-pct P"
                                     : "--max-step-time-increase-pct needs --baseline FILE");
  if (!limits.max_input_pct && !limits.max_device_idle_pct && !limits.baseline)
    throw UsageError(
        "'trainscope check' needs at least one limit: --max-input-pct, --max-device-idle-pct or "
        "--baseline with --max-step-time-increase-pct");
}

std::vector<CheckedLimit> measure_limits(const analysis::Report& report, const CheckLimits& limits,
                                         const analysis::Report* baseline_report) {
  std::vector<CheckedLimit> out;
  if (limits.max_input_pct)
    out.push_back({"max-input-pct", "input " + number(report.input_pct) + " % of step time",
                   report.input_pct, *limits.max_input_pct});
  if (limits.max_device_idle_pct && report.device.has_device)
    out.push_back({"max-device-idle-pct",
                   "device idle " + number(report.device.idle_pct) + " % of step time",
                   report.device.idle_pct, *limits.max_device_idle_pct});
  else if (limits.max_device_idle_pct)
    out.push_back({"max-device-idle-pct",
                   report.device_events_off
                       ? "the trace records no device activity (captured with --trace-device off)"
                       : "the trace records no device activity",
                   std::numeric_limits<double>::quiet_NaN(), *limits.max_device_idle_pct});
  if (limits.baseline && limits.max_step_time_increase_pct && baseline_report != nullptr) {
    const analysis::Report& base = *baseline_report;
    if (!(base.step_time.p50_ms > 0))
      throw store::Error(*limits.baseline +
                         " has a median step time of 0 ms: no baseline to compare to");
    const double increase = (report.step_time.p50_ms / base.step_time.p50_ms - 1) * 100;
    out.push_back({"max-step-time-increase-pct",
                   "median step time " + millis(report.step_time.p50_ms) + " ms (" +
                       (increase >= 0 ? "+" : "") + number(increase) + " % against " +
                       millis(base.step_time.p50_ms) + " ms in " + *limits.baseline + ")",
                   increase, *limits.max_step_time_increase_pct});
  }
  if (!report.warnings.empty() && !limits.allow_partial)
    out.push_back({kCompleteTrace,
                   "the trace is partial (" + std::to_string(report.warnings.size()) +
                       (report.warnings.size() == 1 ? " gap" : " gaps") + ")",
                   static_cast<double>(report.warnings.size()), 0});
  return out;
}

std::string limit_line(const CheckedLimit& l, const std::string& file) {
  if (l.flag == kCompleteTrace)
    return file + ": " + l.measured + (l.violated() ? " (--allow-partial accepts it)" : "");
  const std::string flag = "--" + l.flag + " " + limit_text(l.limit);
  if (std::isnan(l.value)) return file + ": " + l.measured + ", so " + flag + " cannot hold";
  return file + ": " + l.measured + (l.violated() ? " exceeds " : " is within ") + flag;
}

}  // namespace ts::cli
