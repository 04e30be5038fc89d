#include "profiler/render/markdown_report.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "profiler/analysis/figure_format.hpp"
#include "profiler/analysis/printable.hpp"

namespace ts::render {

namespace {

using analysis::Report;
namespace fmt = analysis::fmt;

constexpr std::size_t kTopLevers = 3;
constexpr std::size_t kTopHoldingBack = 5;
constexpr std::string_view kBlocks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};

// A figure of our own for a table cell: '|' would end the cell, '$' could start math.
std::string cell(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '|' || c == '$') out += '\\';
    out += c;
  }
  return out;
}

std::string file_name(const std::string& path) {
  return markdown_text(path, 200);
}

void figures_table(std::string& out, const Report& r) {
  std::string head = "| steps | step time (mean) | p50 | input |";
  std::string rule = "|---:|---:|---:|---:|";
  std::string row = "| " + fmt::count(r.steps) + " | " + fmt::ms(r.step_time.mean_ms) + " | " +
                    fmt::ms(r.step_time.p50_ms) + " | " + fmt::pct(r.input_pct) + " |";
  if (r.device.has_device) {
    head += " device idle |";
    rule += "---:|";
    row.append(" ").append(fmt::pct(r.device.idle_pct)).append(" |");
  }
  if (r.samples_per_s > 0) {
    head += " samples/s |";
    rule += "---:|";
    row.append(" ").append(fmt::count(std::llround(r.samples_per_s))).append(" |");
  }
  out += head + "\n" + rule + "\n" + row + "\n\n";
}

// A job of several ranks: their per-step figures as a distribution, and the ranks that hold the
// others back.
void job_table(std::string& out, const Report& r) {
  if (!r.job) return;
  const analysis::JobOverview& job = *r.job;
  const bool ranked =
      std::any_of(r.ranks.begin(), r.ranks.end(),
                  [](const analysis::RankFigures& k) { return k.rank.has_value(); });
  out += "**" + std::to_string(job.ranks) + (ranked ? " ranks" : " processes") +
         "**, communication " + cell(fmt::pct(r.communication_pct)) + " of step time\n\n";
  out += "| per step | median | p90 | max |\n|---|---:|---:|---:|\n";
  const auto row = [&](const char* name, const analysis::JobOverview::Spread& s) {
    out += std::string("| ") + name + " | " + cell(fmt::ms(s.median)) + " | " +
           cell(fmt::ms(s.p90)) + " | " + cell(fmt::ms(s.max)) + " |\n";
  };
  row("step time", job.step_ms);
  row("input", job.input_ms);
  row("collective", job.collective_ms);
  row("own work", job.own_ms);
  out += "\n";
  if (job.holding_back.empty()) return;
  out +=
      "**Holding the others back**\n\n| rank | own work over the median rank's | cause | "
      "others' wait per step | of device time |\n|---|---:|---|---:|---:|\n";
  const std::size_t shown = std::min(job.holding_back.size(), kTopHoldingBack);
  for (std::size_t i = 0; i < shown; ++i) {
    const analysis::JobOverview::HoldingBack& h = job.holding_back[i];
    const analysis::RankFigures& k = r.ranks.at(static_cast<std::size_t>(h.index));
    const std::string rank =
        k.rank ? std::to_string(*k.rank) : fmt::printf("p%lld", static_cast<long long>(k.process));
    out += "| ";
    out += cell(rank) + " | " + cell(fmt::ms(h.excess_ms)) + " | " + markdown_text(h.cause, 40) +
           " | " + cell(fmt::ms(h.wait_ms_per_step)) + " | " + cell(fmt::pct(h.wait_pct)) + " |\n";
  }
  if (job.holding_back.size() > shown)
    out.append("\n")
        .append(fmt::count(static_cast<std::int64_t>(job.holding_back.size() - shown)))
        .append(" more in `trainscope report`.\n");
  out += "\n";
}

void levers_table(std::string& out, const Report& r) {
  if (r.levers.empty()) {
    out += "No lever applies to this trace.\n\n";
    return;
  }
  out +=
      "**Top levers**\n\n| lever | projected step time | saves | confidence |\n"
      "|---|---:|---:|---|\n";
  for (std::size_t i = 0; i < std::min(r.levers.size(), kTopLevers); ++i) {
    const analysis::Lever& l = r.levers[i];
    const analysis::WhatIf& w = l.projection;
    const bool saves = w.speedup > 1.0;
    out += "| " + markdown_text(l.title, 80) + " | " +
           cell(saves ? fmt::ms(w.step_time_ms) + fmt::printf(" (%.2f× faster)", w.speedup) : "-") +
           " | " + cell(saves ? fmt::money(w.saving, r.currency) : "-") + " | " +
           markdown_text(l.confidence, 20) + " |\n";
  }
  if (r.levers.size() > kTopLevers)
    out.append("\n")
        .append(std::to_string(r.levers.size() - kTopLevers))
        .append(" more in `trainscope report`.\n");
  out += "\n";
}

void body(std::string& out, const Report& r, const analysis::RunDiff* against) {
  // "**Highly input-bound:** 53.0 % of step time is spent on input."
  const std::string verdict = markdown_text(analysis::verdict_sentence(r), 400);
  const std::size_t colon = verdict.find(':');
  out += (colon == std::string::npos
              ? verdict
              : "**" + verdict.substr(0, colon + 1) + "**" + verdict.substr(colon + 1)) +
         "\n\n";
  for (const std::string& w : r.warnings)
    out += "> **Partial trace:** " + markdown_text(w, 600) + "\n";
  if (!r.warnings.empty()) out += "\n";
  if (r.steps == 0) return;
  figures_table(out, r);
  const std::string line = sparkline(r);
  const std::size_t line_steps = sparkline_group(r);
  if (!line.empty())
    out += "Step time, steps " + std::to_string(r.analysed_first_step) + "–" +
           std::to_string(r.analysed_last_step) + " (" + fmt::ms(r.step_time.min_ms) + " to " +
           fmt::ms(r.step_time.max_ms) +
           (line_steps > 1 ? fmt::printf("; a block is the mean of %zu steps", line_steps) : "") +
           "): " + line + "\n\n";
  job_table(out, r);
  levers_table(out, r);
  if (against != nullptr) {
    out += "**Against the baseline** " + file_name(against->file_a) +
           " (A; this run is B): " + markdown_text(analysis::headline(*against), 600) + "\n\n";
  }
}

}  // namespace

std::size_t sparkline_group(const Report& r, std::size_t width) {
  const auto steps = static_cast<std::size_t>(
      std::count_if(r.per_step.begin(), r.per_step.end(), [](const auto& s) { return !s.warmup; }));
  return width == 0 ? 0 : std::max<std::size_t>(1, (steps + width - 1) / width);
}

std::string markdown_text(std::string_view text, std::size_t max_chars) {
  const std::string safe =
      analysis::printable(text.substr(0, std::min(text.size(), max_chars * 4 + 4)));
  std::string out;
  std::size_t chars = 0;
  for (std::size_t i = 0; i < safe.size(); ++i) {
    const char c = safe[i];
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80 && chars++ == max_chars) {
      out += "…";
      break;
    }
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '|':
      case '~':
      case '$':
        out += '\\';
        out += c;
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string sparkline(const Report& r, std::size_t width) {
  std::vector<double> ms;
  for (const analysis::StepSummary& s : r.per_step)
    if (!s.warmup) ms.push_back(fmt::to_ms(s.dur_ns));
  if (ms.empty() || width == 0) return "";
  // Groups of neighbouring steps, each drawn as its mean.
  const std::size_t size = sparkline_group(r, width);
  std::vector<double> values;
  for (std::size_t i = 0; i < ms.size(); i += size) {
    const std::size_t end = std::min(ms.size(), i + size);
    double sum = 0;
    for (std::size_t k = i; k < end; ++k) sum += ms[k];
    values.push_back(sum / static_cast<double>(end - i));
  }
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  std::string out;
  for (const double v : values) {
    const double t = *hi > *lo ? (v - *lo) / (*hi - *lo) : 0.5;
    out += kBlocks[std::clamp<int>(static_cast<int>(std::lround(t * 7)), 0, 7)];
  }
  return out;
}

std::string report_markdown(const Report& r, const analysis::RunDiff* against) {
  std::string out = "### trainscope report: " + file_name(r.file) + "\n\n";
  body(out, r, against);
  return out;
}

std::string check_markdown(const std::vector<CheckLine>& lines, const Report& r,
                           const analysis::RunDiff* against) {
  const auto failed = static_cast<std::size_t>(
      std::count_if(lines.begin(), lines.end(), [](const CheckLine& l) { return !l.passed; }));
  std::string out = failed == 0
                        ? "### ✅ trainscope check passed: " + file_name(r.file)
                        : "### ❌ trainscope check failed: " + file_name(r.file) + " (" +
                              std::to_string(failed) + " of " + std::to_string(lines.size()) +
                              (lines.size() == 1 ? " limit" : " limits") + " violated)";
  out += "\n\n| | limit | measured |\n|---|---|---|\n";
  for (const CheckLine& l : lines)
    out += std::string(l.passed ? "| ✅ pass" : "| ❌ fail") + " | `" + l.limit + "` | " +
           markdown_text(l.measured, 600) + " |\n";
  out += "\n";
  body(out, r, against);
  return out;
}

}  // namespace ts::render
