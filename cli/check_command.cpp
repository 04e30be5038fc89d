// trainscope check FILE: the CI gate. Each limit given is one check of the analysed trace;
// exit 1 when any is violated (one line each on stderr), 0 when all hold.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <limits>
#include <optional>

#include "cli/commands.hpp"
#include "cli/junit.hpp"
#include "cli/trace_input.hpp"
#include "profiler/io/output_file.hpp"

namespace ts::cli {

const char* const kCheckHelp = R"(usage: trainscope check FILE [limits] [--junit OUT.xml]

Analyses the trace FILE (as 'trainscope report' does) and checks it against limits: exit 0 when
all hold, 1 when any is violated (one line per violated limit on stderr), 2 when a file cannot
be read or the flags are wrong. Give at least one limit.

limits (percentages; a value equal to the limit holds):
  --max-input-pct P          input (waiting for input + host-to-device copies on the critical
                             path) at most P % of the summed step time
  --max-device-idle-pct P    the device idle at most P % of the summed step time (violated
                             when the trace records no device activity at all)
  --baseline BASE --max-step-time-increase-pct P
                             the median step time at most P % above that of the trace BASE
                             (the median, so that a few slow warm-up steps do not decide)

partial traces:
  A trace that lacks data (events dropped or lost to a write error, a capture that was killed
  before it stopped, ranks missing from a job, an import cut off mid-file) fails the check
  "complete-trace" with one line per gap, since its figures may mislead. --allow-partial turns
  that into a warning when the gaps are expected.

output:
  --junit OUT.xml            also write JUnit XML: one test case per limit, a <failure> for a
                             violated one, so CI systems show the checks as tests
)";

namespace {

struct Limit {
  std::string flag;      // the flag that set it, also the JUnit test case name
  std::string measured;  // what was measured, e.g. "input 63.2 % of step time"
  double value = 0;      // measured; NaN when the trace cannot tell (never holds)
  double limit = 0;
  bool violated() const { return !(value <= limit); }
};

// The trace's gaps (analysis::Report::warnings) as one check: value = number of gaps, limit 0.
constexpr const char* kCompleteTrace = "complete-trace";

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

std::string line_of(const Limit& l, const std::string& file) {
  if (l.flag == kCompleteTrace)
    return file + ": " + l.measured + (l.violated() ? " (--allow-partial accepts it)" : "");
  const std::string flag = "--" + l.flag + " " + limit_text(l.limit);
  if (std::isnan(l.value)) return file + ": " + l.measured + ", so " + flag + " cannot hold";
  return file + ": " + l.measured + (l.violated() ? " exceeds " : " is within ") + flag;
}

std::string iso_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

JUnitSuite junit_of(const std::vector<Limit>& limits, const std::string& file,
                    const std::optional<std::string>& baseline, const analysis::Report& report,
                    double seconds) {
  JUnitSuite suite;
  suite.name = "trainscope check " + file;
  suite.timestamp = iso_now();
  suite.seconds = seconds;
  suite.properties.emplace_back("trace", file);
  if (baseline) suite.properties.emplace_back("baseline", *baseline);
  suite.properties.emplace_back("verdict", std::string(analysis::verdict_name(report.verdict)));
  for (const Limit& l : limits) {
    JUnitCase c;
    c.name = l.flag;
    c.classname = "trainscope.check";
    c.failed = l.violated();
    if (c.failed) {
      c.failure_message = line_of(l, file);
      if (l.flag == kCompleteTrace)
        for (const std::string& w : report.warnings) c.failure_text += w + "\n";
      else
        c.failure_text = "measured " + (std::isnan(l.value) ? "nothing" : number(l.value)) +
                         ", limit " + limit_text(l.limit) + "\n";
    }
    suite.cases.push_back(std::move(c));
  }
  suite.system_out = analysis::verdict_sentence(report);
  return suite;
}

}  // namespace

int run_check(Args& args) {
  constexpr double kNoMax = std::numeric_limits<double>::max();
  const auto max_input = args.real_in("max-input-pct", 0, kNoMax);
  const auto max_idle = args.real_in("max-device-idle-pct", 0, kNoMax);
  const auto baseline = args.value("baseline");
  const auto max_increase = args.real_in("max-step-time-increase-pct", 0, kNoMax);
  const auto junit = args.value("junit");
  const bool allow_partial = args.flag("allow-partial");
  analysis::AnalysisOptions scope;
  scope.keep_gaps = false;  // only their number is checked
  read_step_scope(args, scope);
  const TraceOptions trace = trace_options(args);
  const std::string file = trace_arguments(args, 1, "one trace file")[0];
  if (baseline.has_value() != max_increase.has_value())
    throw UsageError(baseline ? "--baseline needs --max-step-time-increase-pct P"
                              : "--max-step-time-increase-pct needs --baseline FILE");
  if (!max_input && !max_idle && !baseline)
    throw UsageError(
        "'trainscope check' needs at least one limit: --max-input-pct, --max-device-idle-pct or "
        "--baseline with --max-step-time-increase-pct");
  if (junit && junit->empty()) throw UsageError("--junit needs a file name");
  for (const std::string* input : {&file, baseline ? &*baseline : nullptr})
    if (junit && input != nullptr && io::same_output(*input, *junit))
      throw UsageError("--junit " + *junit + " would overwrite the trace " + *input);

  const auto start = std::chrono::steady_clock::now();
  const analysis::Report report = analyse_trace(file, trace, scope);
  std::vector<Limit> limits;
  if (max_input)
    limits.push_back({"max-input-pct", "input " + number(report.input_pct) + " % of step time",
                      report.input_pct, *max_input});
  if (max_idle && report.device.has_device)
    limits.push_back({"max-device-idle-pct",
                      "device idle " + number(report.device.idle_pct) + " % of step time",
                      report.device.idle_pct, *max_idle});
  else if (max_idle)
    limits.push_back({"max-device-idle-pct",
                      report.device_events_off
                          ? "the trace records no device activity (captured with --trace-device "
                            "off)"
                          : "the trace records no device activity",
                      std::numeric_limits<double>::quiet_NaN(), *max_idle});
  if (baseline) {
    const analysis::Report base = analyse_trace(*baseline, trace, scope);
    if (!(base.step_time.p50_ms > 0))
      throw store::Error(*baseline + " has a median step time of 0 ms: no baseline to compare to");
    const double increase = (report.step_time.p50_ms / base.step_time.p50_ms - 1) * 100;
    limits.push_back({"max-step-time-increase-pct",
                      "median step time " + millis(report.step_time.p50_ms) + " ms (" +
                          (increase >= 0 ? "+" : "") + number(increase) + " % against " +
                          millis(base.step_time.p50_ms) + " ms in " + *baseline + ")",
                      increase, *max_increase});
  }
  // Partial data is a failure unless expected: one line per gap on stderr either way.
  for (const std::string& w : report.warnings) std::cerr << file << ": warning: " << w << "\n";
  if (!report.warnings.empty() && !allow_partial)
    limits.push_back({kCompleteTrace,
                      "the trace is partial (" + std::to_string(report.warnings.size()) +
                          (report.warnings.size() == 1 ? " gap" : " gaps") + ")",
                      static_cast<double>(report.warnings.size()), 0});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (junit) write_junit(junit_of(limits, file, baseline, report, seconds), *junit);

  int violated = 0;
  for (const Limit& l : limits) {
    if (l.violated()) {
      ++violated;
      std::cerr << line_of(l, file) << "\n";
    } else {
      std::cout << line_of(l, file) << "\n";
    }
  }
  if (violated == 0) {
    std::cout << file << ": "
              << (limits.size() == 1 ? std::string("the limit holds")
                                     : "all " + std::to_string(limits.size()) + " limits hold")
              << "\n";
    return 0;
  }
  std::cout << file << ": " << violated << " of " << limits.size()
            << (limits.size() == 1 ? " limit" : " limits") << " violated\n";
  return 1;
}

}  // namespace ts::cli
