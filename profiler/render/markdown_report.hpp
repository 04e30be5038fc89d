// `report --markdown` and `check --markdown`: a GitHub-flavoured Markdown summary for a CI job's
// summary page or a pull-request comment (a file appended to, like $GITHUB_STEP_SUMMARY). Drawn
// from the same Report the text and JSON reports print; every string from a trace is escaped so
// that it cannot turn into markup, a link or HTML.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "profiler/analysis/diff.hpp"
#include "profiler/analysis/report.hpp"

namespace ts::render {

// Text from a trace for Markdown: printable, cut to `max_chars`, with HTML's < > & as entities
// and the Markdown punctuation that could make markup, a link, a cell's end or math
// (\ ` * _ [ ] | ~ $) backslash-escaped.
std::string markdown_text(std::string_view text, std::size_t max_chars = 120);

// Step times as Unicode block characters (▁▂▃▄▅▆▇█), one per step or per group of neighbouring
// steps (their mean) when there are more than `width`; lowest step at ▁, slowest at █.
std::string sparkline(const analysis::Report& report, std::size_t width = 60);
// How many steps one block of sparkline(report, width) stands for.
std::size_t sparkline_group(const analysis::Report& report, std::size_t width = 60);

// The summary of one run: the verdict, the figures, the step-time sparkline, the top levers and,
// when `against` is given, the change against that baseline (a diff whose A is the baseline).
std::string report_markdown(const analysis::Report& report,
                            const analysis::RunDiff* against = nullptr);

// One limit of `trainscope check`, as the check printed it.
struct CheckLine {
  std::string limit;     // "--max-input-pct 10", "complete-trace"
  std::string measured;  // "input 53.0 % of step time"
  bool passed = false;
};
// The check: passed or failed in the heading, one row per limit, then report_markdown().
std::string check_markdown(const std::vector<CheckLine>& lines, const analysis::Report& report,
                           const analysis::RunDiff* against = nullptr);

}  // namespace ts::render
