// trainscope report FILE: what the trace says about why training was slow.
#include <iostream>
#include <limits>

#include "cli/commands.hpp"
#include "cli/report_outputs.hpp"
#include "cli/trace_input.hpp"
#include "profiler/render/html_report.hpp"
#include "profiler/render/markdown_report.hpp"

namespace ts::cli {

const char* const kReportHelp = R"(usage: trainscope report FILE [--json] [options]

Analyses the trace FILE: first the verdict in one sentence (is training input-bound?), then
step times, the breakdown of step time (device compute, copies, waiting for input, launch,
sync, host compute, other), device busy and idle time with the cause of each idle gap, the
input pipeline stages with the bottleneck named, the kernel table, a compact per-step summary
and recommendations.

  --json                       the same as JSON (the stable keys listed in
                               profiler/analysis/README.md, and more)
  --wide                       the kernel table prints each kernel's full name (names too
                               long for the column are shortened and elided otherwise)
  --gpu-hour-price X           what an hour of the device costs, for the cost of its idle
                               time (default 2.50)
  --step-input-threshold P     a step is (moderately) input-bound when its input is at
                               least P % of its time (default 5)
  --step-input-high-threshold P
                               and highly input-bound at P % or more (default 20)

files to share (both beside the text or JSON on standard output):
  --html OUT.html              one self-contained HTML page (no network, scripts or fonts
                               from elsewhere): the verdict, the figures, the levers, the
                               step-time chart, the whole run's timeline, idle causes and the
                               kernel, stage, step and rank tables (click a header to sort)
  --markdown OUT.md|-          a GitHub-flavoured Markdown summary (the verdict, the figures,
                               a step-time sparkline, the top levers); appended to OUT.md when
                               it exists (as $GITHUB_STEP_SUMMARY is), "-": standard output
                               instead of the text report
  --baseline BASE              with --markdown: the change against the trace BASE
)";

int run_report(Args& args) {
  analysis::AnalysisOptions options;
  options.keep_gaps = false;  // only their number is printed
  const bool json = args.flag("json");
  analysis::TextOptions text;
  text.wide_names = args.flag("wide");
  options.gpu_hour_price = args.real_in("gpu-hour-price", 0, std::numeric_limits<double>::max())
                               .value_or(options.gpu_hour_price);
  options.step_input_bound_pct =
      args.real_in("step-input-threshold", 0, 100).value_or(options.step_input_bound_pct);
  options.step_input_high_pct =
      args.real_in("step-input-high-threshold", 0, 100).value_or(options.step_input_high_pct);
  read_step_scope(args, options);
  TraceOptions trace = trace_options(args);
  trace.progress = !json;
  const auto baseline = args.value("baseline");
  const auto html = output_flag(args, "html", false);
  const auto markdown = output_flag(args, "markdown", true);
  const std::string file = trace_arguments(args, 1, "one trace file")[0];
  std::vector<std::string> inputs{file};
  if (baseline) inputs.push_back(*baseline);
  refuse_overwrite(html, "html", inputs);
  refuse_overwrite(markdown, "markdown", inputs);
  if (baseline && !markdown) throw UsageError("--baseline needs --markdown FILE");
  if (markdown == "-" && json)
    throw UsageError("--markdown - and --json both want standard output");
  const analysis::Report report = analyse_trace(file, trace, options);
  if (html) write_html(*html, render::report_html(report));
  if (markdown) {
    std::optional<analysis::RunDiff> change;
    if (baseline) change = analysis::diff(analyse_trace(*baseline, trace, options), report);
    write_markdown(*markdown, render::report_markdown(report, change ? &*change : nullptr));
    if (*markdown == "-") return 0;
  }
  const std::string out = json ? analysis::to_json(report) : analysis::to_text(report, text);
  std::cout << out;
  if (!out.empty() && out.back() != '\n') std::cout << '\n';
  return 0;
}

}  // namespace ts::cli
