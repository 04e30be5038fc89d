// trainscope diff A B: two runs side by side.
#include <iostream>
#include <limits>

#include "cli/commands.hpp"
#include "cli/report_outputs.hpp"
#include "cli/trace_input.hpp"
#include "profiler/analysis/diff.hpp"
#include "profiler/render/html_report.hpp"

namespace ts::cli {

const char* const kDiffHelp = R"(usage: trainscope diff A B [--json]

Analyses the traces A and B and shows them side by side: step times, the breakdown of step time
(per step, so runs of different lengths compare fairly), input %, verdicts, device busy and idle
time, throughput, the bottleneck stage, the kernels whose time changed most, and the levers of
either run (each one's projected speed-up and saving in A and in B, and whether it is gone in B
or new in B). Changes are B relative to A: A is the baseline.

The first lines say how much faster B is, over which steps of each run, and what that saves:
the share of device time B no longer needs for the same work, priced per device-hour (when B is
slower: the share of B's device time A would not need). Both runs leave out the same warm-up:
by default a run leaves out its first step, or its whole first epoch when that epoch fills an
input cache; the diff leaves out the larger of the two in both runs, so that the same steps of
the same job are compared. The "Whole run" line compares every step of both runs.

  --json               the same as JSON
  --gpu-hour-price X   what an hour of the device costs (default 2.50)
  --html OUT.html      also one self-contained HTML page of the comparison (no network,
                       scripts or fonts from elsewhere): the headline, the figures of A and B,
                       the levers of either run, the kernels and each run's step-time chart
)";

int run_diff(Args& args) {
  const bool json = args.flag("json");
  analysis::AnalysisOptions options;
  options.keep_gaps = false;  // only their number is printed
  options.gpu_hour_price = args.real_in("gpu-hour-price", 0, std::numeric_limits<double>::max())
                               .value_or(options.gpu_hour_price);
  read_step_scope(args, options);
  TraceOptions trace = trace_options(args);
  trace.progress = !json;
  const auto html = output_flag(args, "html", false);
  const auto files = trace_arguments(args, 2, "two trace files A and B");
  refuse_overwrite(html, "html", files);
  const ComparedRuns runs = analyse_pair(files[0], files[1], trace, options);
  const analysis::RunDiff d = analysis::diff(runs.a, runs.b, runs.common);
  if (html) write_html(*html, render::diff_html(d, runs.a, runs.b));
  const std::string out = json ? analysis::to_json(d) : analysis::to_text(d);
  std::cout << out;
  if (!out.empty() && out.back() != '\n') std::cout << '\n';
  return 0;
}

}  // namespace ts::cli
