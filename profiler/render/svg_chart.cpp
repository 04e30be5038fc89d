#include "profiler/render/svg_chart.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

#include "profiler/analysis/figure_format.hpp"
#include "profiler/render/html_page.hpp"

namespace ts::render {

namespace {

using analysis::Report;
using analysis::StepSummary;
using analysis::Verdict;
namespace fmt = analysis::fmt;

constexpr double kWidth = 1180;
constexpr double kLeft = 64, kRight = 12;
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr std::size_t kMaxBars = 550;     // about 2 px a bar
constexpr std::size_t kMaxColumns = 600;  // columns of all timeline strips together
constexpr std::size_t kMaxStrips = 16;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// A round tick interval giving at most about `ticks` ticks up to `max`.
double tick_interval(double max, int ticks) {
  if (!(max > 0)) return 1;
  const double raw = max / ticks;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0})
    if (m * mag >= raw) return m * mag;
  return 10 * mag;
}

std::string tick_label(double v, double interval) {
  return fmt::printf(interval >= 1 ? "%.0f" : interval >= 0.1 ? "%.1f" : "%.2f", v);
}

std::string rect(double x, double y, double w, double h, std::string_view fill,
                 const std::string& title = "") {
  std::string out = "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(w) +
                    "\" height=\"" + num(h) + "\" fill=\"" + std::string(fill) + "\"";
  if (title.empty()) return out + "/>";
  return out + "><title>" + escape(title) + "</title></rect>";
}

std::string text(double x, double y, const std::string& s, std::string_view anchor = "start") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + std::string(anchor) +
         "\">" + escape(s) + "</text>";
}

std::string svg_begin(double height, std::string_view label) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + num(kWidth) + " " +
         num(height) + "\" width=\"" + num(kWidth) + "\" height=\"" + num(height) +
         "\" role=\"img\" aria-label=\"" + escape(label) + "\">";
}

std::string step_range(std::int64_t first, std::int64_t last) {
  return first == last ? "step " + std::to_string(first)
                       : "steps " + std::to_string(first) + "-" + std::to_string(last);
}

// Neighbouring steps drawn as one bar or column.
struct Group {
  std::int64_t first = 0, last = 0;
  std::int64_t start_ns = 0, end_ns = 0;
  std::int64_t max_dur_ns = 0, dur_ns = 0, input_ns = 0;
  analysis::Breakdown parts;
  Verdict worst = Verdict::none;
  std::array<std::size_t, 3> classes{};  // analysed steps by input class (Verdict order)
  bool all_warmup = true, any_warmup = false;
  std::size_t steps = 0;
};

// `order`: the places in `table` of the steps to draw, in the order drawn.
std::vector<Group> group_steps(const analysis::StepTable& table,
                               std::span<const std::uint32_t> order, std::size_t max) {
  std::vector<Group> groups;
  if (order.empty()) return groups;
  const std::size_t size = (order.size() + max - 1) / std::max<std::size_t>(1, max);
  for (std::size_t i = 0; i < order.size(); i += size) {
    Group g;
    const StepSummary head = table[order[i]];
    g.first = head.step;
    g.start_ns = head.start_ns;
    for (std::size_t k = i; k < std::min(order.size(), i + size); ++k) {
      const StepSummary s = table[order[k]];
      g.last = s.step;
      g.end_ns = std::max(g.end_ns, s.start_ns + s.dur_ns);
      g.max_dur_ns = std::max(g.max_dur_ns, s.dur_ns);
      g.dur_ns += s.dur_ns;
      g.input_ns += s.input_ns;
      for (int p = 0; p < analysis::kPartCount; ++p) g.parts.ns[p] += s.parts.ns[p];
      if (!s.warmup) {
        g.worst = std::max(g.worst, s.input_verdict);
        ++g.classes[static_cast<std::size_t>(s.input_verdict)];
      }
      g.all_warmup = g.all_warmup && s.warmup;
      g.any_warmup = g.any_warmup || s.warmup;
      ++g.steps;
    }
    groups.push_back(g);
  }
  return groups;
}

std::string_view verdict_colour(Verdict v) {
  switch (v) {
    case Verdict::high:
      return "#e15759";
    case Verdict::moderate:
      return "#f28e2b";
    case Verdict::none:
      break;
  }
  return "#4e79a7";
}

std::string_view class_colour(const Group& g) {
  return g.all_warmup ? "#bab0ac" : verdict_colour(g.worst);
}

double pct_of(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0;
}

}  // namespace

std::string step_time_chart(const Report& r) {
  std::vector<std::uint32_t> order(r.per_step.size());
  std::iota(order.begin(), order.end(), 0u);
  const std::vector<Group> groups = group_steps(r.per_step, order, kMaxBars);
  constexpr double kTop = 10, kPlot = 200, kHeight = kTop + kPlot + 34;
  std::string out = svg_begin(kHeight, "step time per step");
  std::int64_t max_ns = 0;
  for (const Group& g : groups) max_ns = std::max(max_ns, g.max_dur_ns);
  const double max_ms = std::max(1e-6, fmt::to_ms(max_ns) * 1.05);
  const double interval = tick_interval(max_ms, 5);
  const auto y_of = [&](double ms) { return kTop + kPlot - ms / max_ms * kPlot; };
  for (double v = 0; v <= max_ms; v += interval) {
    out += "<line x1=\"" + num(kLeft) + "\" x2=\"" + num(kWidth - kRight) + "\" y1=\"" +
           num(y_of(v)) + "\" y2=\"" + num(y_of(v)) + "\" stroke=\"#e1e4e8\"/>";
    out += text(kLeft - 6, y_of(v) + 4, tick_label(v, interval), "end");
  }
  out += text(4, kTop + 10, "ms");
  const double bar = kPlotWidth / std::max<double>(1, static_cast<double>(groups.size()));
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const Group& g = groups[i];
    const double ms = fmt::to_ms(g.max_dur_ns);
    std::string title = step_range(g.first, g.last) + ": " + (g.steps > 1 ? "slowest " : "") +
                        fmt::ms(ms) + ", input " + fmt::pct(pct_of(g.input_ns, g.dur_ns));
    if (g.steps > 1)
      title += fmt::printf(", input-bound: %zu highly, %zu moderately of %zu", g.classes[2],
                           g.classes[1], g.steps);
    else if (g.worst != Verdict::none)
      title += g.worst == Verdict::high ? ", highly input-bound" : ", moderately input-bound";
    if (g.all_warmup) title += ", warm-up";
    const double x = kLeft + i * bar + bar * 0.1, w = std::max(0.8, bar * 0.8);
    const double height = std::max(0.5, kTop + kPlot - y_of(ms));
    const std::size_t analysed = g.classes[0] + g.classes[1] + g.classes[2];
    if (g.steps == 1 || analysed == 0) {
      out += rect(x, y_of(ms), w, height, class_colour(g), title);
      continue;
    }
    // Several steps: the bar's colours split in proportion to their classes, highly at the
    // bottom, so that 30 % of steps input-bound reads as 30 % of the bar.
    out += "<g><title>" + escape(title) + "</title>";
    double bottom = kTop + kPlot;
    for (const Verdict v : {Verdict::high, Verdict::moderate, Verdict::none}) {
      const double h =
          height * static_cast<double>(g.classes[static_cast<std::size_t>(v)]) / analysed;
      if (h <= 0) continue;
      out += rect(x, bottom - h, w, h, verdict_colour(v));
      bottom -= h;
    }
    out += "</g>";
  }
  if (r.steps > 0) {
    const double y = y_of(r.step_time.p50_ms);
    out += "<line x1=\"" + num(kLeft) + "\" x2=\"" + num(kWidth - kRight) + "\" y1=\"" + num(y) +
           "\" y2=\"" + num(y) + "\" stroke=\"#1f2328\" stroke-dasharray=\"5 4\"/>";
    out += "<text x=\"" + num(kWidth - kRight - 2) + "\" y=\"" + num(y - 4) +
           "\" text-anchor=\"end\" style=\"paint-order:stroke;stroke:#fff;stroke-width:3px\">" +
           escape("median " + fmt::ms(r.step_time.p50_ms)) + "</text>";
  }
  // Step numbers under the first, middle and last bars.
  if (!groups.empty()) {
    const double y = kTop + kPlot + 16;
    out += text(kLeft + bar / 2, y, std::to_string(groups.front().first), "middle");
    if (groups.size() > 2) {
      const std::size_t mid = groups.size() / 2;
      out += text(kLeft + mid * bar + bar / 2, y, std::to_string(groups[mid].first), "middle");
    }
    if (groups.size() > 1)
      out += text(kLeft + (groups.size() - 1) * bar + bar, y, std::to_string(groups.back().last),
                  "end");
    out += text(kLeft + kPlotWidth / 2, y + 15,
                groups.size() < order.size()
                    ? fmt::printf("step (each bar: %zu steps, as tall as the slowest, coloured "
                                  "in proportion to their classes)",
                                  (order.size() + groups.size() - 1) / groups.size())
                    : std::string("step"),
                "middle");
  }
  return out + "</svg>\n";
}

std::string timeline_strip(const Report& r) {
  const std::size_t processes = std::max<std::size_t>(1, r.ranks.size());
  const std::size_t strips = std::min(processes, kMaxStrips);
  // Each row's steps by start: (start, place in per_step).
  std::vector<std::vector<std::pair<std::int64_t, std::uint32_t>>> rows(strips);
  std::int64_t t0 = 0, t1 = 0;
  bool any = false;
  for (std::size_t i = 0; i < r.per_step.size(); ++i) {
    const StepSummary s = r.per_step[i];
    const auto row = static_cast<std::size_t>(std::max(0, s.rank_index));
    if (row >= strips) continue;
    rows[row].emplace_back(s.start_ns, static_cast<std::uint32_t>(i));
    t0 = any ? std::min(t0, s.start_ns) : s.start_ns;
    t1 = any ? std::max(t1, s.start_ns + s.dur_ns) : s.start_ns + s.dur_ns;
    any = true;
  }
  constexpr double kStrip = 56, kGap = 22, kTop = 4;
  const double height = kTop + strips * (kStrip + kGap) + 24;
  std::string out = svg_begin(height, "the whole run: step time by part");
  if (!any || t1 <= t0) return out + "</svg>\n";
  const double span = static_cast<double>(t1 - t0);
  const auto x_of = [&](std::int64_t t) {
    return kLeft + static_cast<double>(t - t0) / span * kPlotWidth;
  };
  for (std::size_t row = 0; row < strips; ++row) {
    auto& by_start = rows[row];
    std::sort(by_start.begin(), by_start.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::uint32_t> steps;
    steps.reserve(by_start.size());
    for (const auto& [start, i] : by_start) steps.push_back(i);
    by_start = {};
    const double top = kTop + row * (kStrip + kGap) + 14;
    std::string label = "run";
    if (!r.ranks.empty()) {
      const analysis::RankFigures& k = r.ranks[row];
      label = k.rank ? "rank " + std::to_string(*k.rank) : "p" + std::to_string(k.process);
    }
    out += text(kLeft - 6, top + kStrip / 2 + 4, label, "end");
    const std::vector<Group> groups =
        group_steps(r.per_step, steps, std::max<std::size_t>(50, kMaxColumns / strips));
    std::int64_t warm_start = 0, warm_end = 0;
    bool warm = false;
    for (const Group& g : groups) {
      const double x = x_of(g.start_ns);
      const double w = std::max(0.6, x_of(g.end_ns) - x);
      const std::int64_t total = g.parts.total();
      std::string title = step_range(g.first, g.last) + ": " +
                          fmt::ms(fmt::to_ms(g.dur_ns) / static_cast<double>(g.steps)) +
                          (g.steps > 1 ? " per step" : "");
      for (int p = 0; p < analysis::kPartCount; ++p)
        if (g.parts.ns[p] > 0)
          title += "; " + std::string(part_label(p)) + " " + fmt::pct(pct_of(g.parts.ns[p], total));
      double y = top + kStrip;
      out += "<g><title>" + escape(title) + "</title>";
      for (int p = 0; p < analysis::kPartCount; ++p) {
        if (g.parts.ns[p] <= 0 || total <= 0) continue;
        const double h = kStrip * static_cast<double>(g.parts.ns[p]) / static_cast<double>(total);
        y -= h;
        out += rect(x, y, w, h, part_colour(p));
      }
      out += "</g>";
      if (g.any_warmup) {
        warm_start = warm ? warm_start : g.start_ns;
        warm_end = g.end_ns;
        warm = true;
      }
    }
    if (warm) {
      const double x = x_of(warm_start);
      out += rect(x, top - 9, std::max(1.0, x_of(warm_end) - x), 4, "#8c8c8c", "warm-up");
      out += text(x, top - 11, "warm-up");
    }
  }
  // Time axis: seconds (or milliseconds) from the first step's start.
  const double axis_y = kTop + strips * (kStrip + kGap) + 4;
  const bool seconds = span >= 2e9;
  const double unit = seconds ? 1e9 : 1e6;
  const double interval = tick_interval(span / unit, 8);
  for (double v = 0; v * unit <= span; v += interval) {
    const double x = kLeft + v * unit / span * kPlotWidth;
    out += "<line x1=\"" + num(x) + "\" x2=\"" + num(x) + "\" y1=\"" + num(axis_y - 8) +
           "\" y2=\"" + num(axis_y - 2) + "\" stroke=\"#8c959f\"/>";
    out += text(x, axis_y + 10, tick_label(v, interval) + (seconds ? " s" : " ms"), "middle");
  }
  return out + "</svg>\n";
}

std::string breakdown_bar(const Report& r) {
  constexpr double kHeight = 30;
  std::string out = svg_begin(kHeight, "step time by part");
  const std::int64_t total = r.breakdown.total();
  double x = kLeft;
  out += text(kLeft - 6, 19, "step time", "end");
  for (int p = 0; p < analysis::kPartCount; ++p) {
    if (r.breakdown.ns[p] <= 0 || total <= 0) continue;
    const double share = pct_of(r.breakdown.ns[p], total);
    const double w = kPlotWidth * share / 100;
    out += rect(x, 2, w, kHeight - 4, part_colour(p),
                std::string(part_label(p)) + ": " + fmt::pct(share));
    if (w > 44)
      out += "<text x=\"" + num(x + w / 2) + "\" y=\"19\" text-anchor=\"middle\" " +
             "style=\"fill:#fff;font-weight:600\">" + escape(fmt::pct(share)) + "</text>";
    x += w;
  }
  return out + "</svg>\n";
}

}  // namespace ts::render
