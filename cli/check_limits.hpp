// The limits of `trainscope check` and how an analysed trace measures against them: shared by
// the check command and the Python module's trainscope.check(), so both apply the same rules and
// word a violation the same way.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "profiler/analysis/report.hpp"

namespace ts::cli {

// The limits asked for (percentages; a value equal to its limit holds).
struct CheckLimits {
  std::optional<double> max_input_pct;
  std::optional<double> max_device_idle_pct;
  std::optional<std::string> baseline;  // with max_step_time_increase_pct
  std::optional<double> max_step_time_increase_pct;
  bool allow_partial = false;  // a partial trace warns instead of failing "complete-trace"
};

// Throws UsageError when the limits do not make a check: none given, or only one of the
// baseline and its increase limit.
void validate(const CheckLimits& limits);

// One limit measured.
struct CheckedLimit {
  std::string flag;      // the flag that set it, also the JUnit test case name
  std::string measured;  // what was measured, e.g. "input 63.2 % of step time"
  double value = 0;      // measured; NaN when the trace cannot tell (never holds)
  double limit = 0;
  bool violated() const { return !(value <= limit); }
};

// The check of the trace's gaps (analysis::Report::warnings): value = number of gaps, limit 0.
inline constexpr const char* kCompleteTrace = "complete-trace";

// Measures `report` against each limit given, in the order above, then the complete-trace
// check when the trace is partial and that is not allowed. `baseline_report` is the analysed
// baseline when limits.baseline is set (store::Error when its median step time is 0).
std::vector<CheckedLimit> measure_limits(const analysis::Report& report, const CheckLimits& limits,
                                         const analysis::Report* baseline_report);

// The line check prints for a limit of the trace `file`, e.g. "run.db: input 63.2 % of step time
// exceeds --max-input-pct 20".
std::string limit_line(const CheckedLimit& limit, const std::string& file);

}  // namespace ts::cli
