// trainscope check FILE: the CI gate. Each limit given is one check of the analysed trace;
// exit 1 when any is violated (one line each on stderr), 0 when all hold.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <limits>
#include <optional>

#include "cli/check_limits.hpp"
#include "cli/commands.hpp"
#include "cli/junit.hpp"
#include "cli/report_outputs.hpp"
#include "cli/trace_input.hpp"
#include "profiler/io/output_file.hpp"
#include "profiler/render/markdown_report.hpp"

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
  --markdown OUT.md|-        also a GitHub-flavoured Markdown summary: pass or fail per limit,
                             the verdict, a step-time sparkline, the top levers and the change
                             against --baseline; appended to OUT.md when it exists (as to
                             $GITHUB_STEP_SUMMARY), "-": standard output (the lines above then
                             go to stderr only when violated, and the summary line is left out)
)";

namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string limit_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string iso_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

JUnitSuite junit_of(const std::vector<CheckedLimit>& limits, const std::string& file,
                    const std::optional<std::string>& baseline, const analysis::Report& report,
                    double seconds) {
  JUnitSuite suite;
  suite.name = "trainscope check " + file;
  suite.timestamp = iso_now();
  suite.seconds = seconds;
  suite.properties.emplace_back("trace", file);
  if (baseline) suite.properties.emplace_back("baseline", *baseline);
  suite.properties.emplace_back("verdict", std::string(analysis::verdict_name(report.verdict)));
  for (const CheckedLimit& l : limits) {
    JUnitCase c;
    c.name = l.flag;
    c.classname = "trainscope.check";
    c.failed = l.violated();
    if (c.failed) {
      c.failure_message = limit_line(l, file);
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

// The limits as the Markdown summary lists them.
std::vector<render::CheckLine> markdown_lines(const std::vector<CheckedLimit>& limits) {
  std::vector<render::CheckLine> lines;
  for (const CheckedLimit& l : limits)
    lines.push_back({l.flag == kCompleteTrace ? l.flag : "--" + l.flag + " " + limit_text(l.limit),
                     l.measured, !l.violated()});
  return lines;
}

}  // namespace

int run_check(Args& args) {
  constexpr double kNoMax = std::numeric_limits<double>::max();
  CheckLimits check;
  check.max_input_pct = args.real_in("max-input-pct", 0, kNoMax);
  check.max_device_idle_pct = args.real_in("max-device-idle-pct", 0, kNoMax);
  check.baseline = args.value("baseline");
  check.max_step_time_increase_pct = args.real_in("max-step-time-increase-pct", 0, kNoMax);
  const auto& baseline = check.baseline;
  const auto junit = args.value("junit");
  const auto markdown = output_flag(args, "markdown", true);
  check.allow_partial = args.flag("allow-partial");
  analysis::AnalysisOptions scope;
  scope.keep_gaps = false;  // only their number is checked
  read_step_scope(args, scope);
  TraceOptions trace = trace_options(args);
  trace.allow_partial = check.allow_partial;  // one flag: gaps and an import's losses accepted
  const std::string file = trace_arguments(args, 1, "one trace file")[0];
  validate(check);
  if (junit && junit->empty()) throw UsageError("--junit needs a file name");
  for (const std::string* input : {&file, baseline ? &*baseline : nullptr})
    if (junit && input != nullptr && io::same_output(*input, *junit))
      throw UsageError("--junit " + *junit + " would overwrite the trace " + *input);
  refuse_overwrite(markdown, "markdown", {file, baseline.value_or(file)});

  const auto start = std::chrono::steady_clock::now();
  const analysis::Report report = analyse_trace(file, trace, scope);
  std::optional<analysis::Report> base;
  if (baseline) base = analyse_trace(*baseline, trace, scope);
  const std::vector<CheckedLimit> limits = measure_limits(report, check, base ? &*base : nullptr);
  // Partial data is a failure unless expected: one line per gap on stderr either way.
  for (const std::string& w : report.warnings) std::cerr << file << ": warning: " << w << "\n";
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (junit) write_junit(junit_of(limits, file, baseline, report, seconds), *junit);
  if (markdown) {
    std::optional<analysis::RunDiff> change;
    if (base) change = analysis::diff(*base, report);
    write_markdown(*markdown, render::check_markdown(markdown_lines(limits), report,
                                                     change ? &*change : nullptr));
  }
  // With --markdown -, standard output is the summary's alone.
  std::ostream null_out(nullptr);
  std::ostream& out = markdown == "-" ? null_out : std::cout;

  int violated = 0;
  for (const CheckedLimit& l : limits) {
    if (l.violated()) {
      ++violated;
      std::cerr << limit_line(l, file) << "\n";
    } else {
      out << limit_line(l, file) << "\n";
    }
  }
  if (violated == 0) {
    out << file << ": "
        << (limits.size() == 1 ? std::string("the limit holds")
                               : "all " + std::to_string(limits.size()) + " limits hold")
        << "\n";
    return 0;
  }
  out << file << ": " << violated << " of " << limits.size()
      << (limits.size() == 1 ? " limit" : " limits") << " violated\n";
  return 1;
}

}  // namespace ts::cli
