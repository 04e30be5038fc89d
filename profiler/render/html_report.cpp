#include "profiler/render/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "profiler/analysis/figure_format.hpp"
#include "profiler/render/html_page.hpp"
#include "profiler/render/html_tables.hpp"
#include "profiler/render/svg_chart.hpp"

namespace ts::render {

namespace {

using analysis::Report;
using analysis::Verdict;
namespace fmt = analysis::fmt;

std::string card(std::string_view key, std::string_view label, const std::string& value,
                 const std::string& sub = "") {
  std::string out = "<div class=\"card\" data-key=\"" + std::string(key) + "\"><div class=\"k\">" +
                    escape(label) + "</div><div class=\"v\">" + escape(value) + "</div>";
  if (!sub.empty()) out += "<div class=\"s\">" + escape(sub) + "</div>";
  return out + "</div>\n";
}

std::string run_line(const Report& r) {
  std::string s = r.model.empty() ? "a run" : r.model;
  if (!r.backend.empty()) s += " on " + r.backend;
  if (!r.device_name.empty()) s += " (" + r.device_name + ")";
  if (r.batch) s += ", batch " + std::to_string(*r.batch);
  if (!r.source_format.empty()) s += "; imported " + r.source_format + " trace";
  if (!r.recorded_steps.empty()) s += "; steps " + r.recorded_steps + " recorded";
  return s;
}

std::string verdict_class(Verdict v) {
  return v == Verdict::high ? "high" : v == Verdict::moderate ? "moderate" : "none";
}

std::string warnings(const std::vector<std::string>& list) {
  std::string out;
  for (const std::string& w : list)
    out += "<div class=\"warning\"><strong>Partial trace:</strong> " + display(w, 600) + "</div>\n";
  return out;
}

std::string cards(const Report& r) {
  std::string out = "<section class=\"cards\" id=\"cards\">\n";
  std::string scope =
      "steps " + std::to_string(r.analysed_first_step) + "-" + std::to_string(r.analysed_last_step);
  if (r.warmup.steps > 0) scope += ", " + fmt::count(r.warmup.steps) + " of warm-up left out";
  out += card("steps", "steps analysed", fmt::count(r.steps), scope);
  if (r.steps > 0) {
    out += card("step_time", "step time (mean)", fmt::ms(r.step_time.mean_ms),
                "p50 " + fmt::ms(r.step_time.p50_ms) + ", p90 " + fmt::ms(r.step_time.p90_ms));
    out +=
        card("input", "input", fmt::pct(r.input_pct),
             fmt::count(r.input_bound_steps) + " of " + fmt::count(r.steps) + " steps input-bound");
  }
  if (r.device.has_device) {
    out += card("device_idle", "device idle", fmt::pct(r.device.idle_pct),
                "busy " + fmt::pct(r.device.busy_pct));
    const double per_step = r.idle_cost_per_1000_steps / 1000;
    const fmt::CostScale scale = fmt::cost_scale(per_step);
    out += card("idle_cost", "idle cost", fmt::money(per_step * scale.steps, r.currency),
                "per " + scale.name + " at " + fmt::money(r.gpu_hour_price, r.currency) +
                    " per device-hour");
  }
  if (r.samples_per_s > 0)
    out += card("throughput", "throughput", fmt::count(std::llround(r.samples_per_s)), "samples/s");
  if (!r.ranks.empty())
    out += card(
        "communication", "communication", fmt::pct(r.communication_pct),
        std::to_string(r.ranks.size()) + " processes, imbalance " + fmt::pct(r.load_imbalance_pct));
  if (r.pipeline.bottleneck_stage)
    out += card("bottleneck", "bottleneck stage", *r.pipeline.bottleneck_stage, "input pipeline");
  if (r.host_cpu)
    out += card("host_cpu", "host CPU", fmt::pct(r.host_cpu->busy_pct),
                std::to_string(r.host_cpu->cores) + " cores" +
                    (r.host_cpu->saturated ? ", saturated" : ""));
  if (!r.levers.empty() && r.levers.front().projection.speedup > 1.0) {
    const analysis::Lever& l = r.levers.front();
    out += card("top_lever", "top lever", fmt::printf("%.2f×", l.projection.speedup),
                l.title.substr(0, 80) + " (" + l.confidence + ")");
  }
  return out + "</section>\n";
}

std::string step_chart_section(const Report& r) {
  std::string out = step_time_chart(r);
  out += legend({{"#e15759", "highly input-bound (input ≥ " +
                                 fmt::printf("%g", r.step_input_high_pct) + " %)"},
                 {"#f28e2b",
                  "moderately input-bound (≥ " + fmt::printf("%g", r.step_input_bound_pct) + " %)"},
                 {"#4e79a7", "not input-bound"},
                 {"#bab0ac", "warm-up (not analysed)"},
                 {"#1f2328", "median of the analysed steps"}});
  out +=
      "<p class=\"note\">" +
      escape(fmt::count(r.input_bound_steps) + " of " + fmt::count(r.steps) +
             " analysed steps input-bound: " + fmt::count(r.input_bound_steps_high) + " highly, " +
             fmt::count(r.input_bound_steps - r.input_bound_steps_high) + " moderately.");
  if (r.warmup.steps > 0)
    out += " " +
           escape("Warm-up: " + fmt::count(r.warmup.steps) +
                  (r.warmup.steps == 1 ? " step" : " steps") + " left out (") +
           display(r.warmup.why, 200) +
           escape(", " + fmt::ms(r.warmup.step_mean_ms) + " per step).");
  out += "</p>\n";
  return "<section id=\"step-time\">\n<h2>Step time</h2>\n" + out + "</section>\n";
}

std::string timeline_section(const Report& r) {
  std::string out = timeline_strip(r);
  std::vector<std::pair<std::string, std::string>> keys;
  for (int p = 0; p < analysis::kPartCount; ++p)
    if (r.whole_run.steps > 0 && r.breakdown.ns[p] > 0)
      keys.emplace_back(part_colour(p), part_label(p));
  out += legend(keys);
  out +=
      "<p class=\"note\">Every step on the run's time axis, as wide as its wall time and split "
      "into the parts of its step time; blank: time between steps.</p>\n";
  return "<section id=\"timeline\">\n<h2>The whole run</h2>\n" + out + "</section>\n";
}

std::string recommendations(const Report& r) {
  std::string out = "<section id=\"recommendations\">\n<h2>Recommendations</h2>\n";
  if (r.recommendations.empty())
    return out + "<p class=\"note\">None: no rule found a bottleneck worth acting on.</p>\n" +
           "</section>\n";
  out += "<ul>";
  for (const std::string& rec : r.recommendations) out += "<li>" + display(rec, 1000) + "</li>";
  return out + "</ul>\n</section>\n";
}

// --- diff ---------------------------------------------------------------------------------

std::string change(const analysis::Delta& d) {
  const auto pct = d.change_pct();
  return pct ? fmt::printf("%+.1f %%", *pct) : (d.delta() == 0 ? "0" : "new");
}

std::string diff_row(std::string_view label, const analysis::Delta& d,
                     const std::function<std::string(double)>& shown) {
  return "<tr>" + text_cell(escape(label)) + number_cell(shown(d.a), d.a) +
         number_cell(shown(d.b), d.b) + number_cell(change(d), d.change_pct().value_or(0)) +
         "</tr>\n";
}

std::string diff_figures(const analysis::RunDiff& d) {
  const auto ms = [](double v) { return fmt::ms(v); };
  const auto pct = [](double v) { return fmt::pct(v); };
  const auto count = [](double v) { return fmt::count(std::llround(v)); };
  std::string out =
      table_begin("figures-table", {{"figure", false}, {"A", true}, {"B", true}, {"change", true}});
  out += diff_row("steps", d.steps, count);
  out += diff_row("step time mean", d.step_mean_ms, ms);
  out += diff_row("step time p50", d.step_p50_ms, ms);
  out += diff_row("step time p90", d.step_p90_ms, ms);
  out += diff_row("input", d.input_pct, pct);
  out += "<tr>" + text_cell("verdict") +
         text_cell(escape(analysis::verdict_name(d.verdict_a)), "n") +
         text_cell(escape(analysis::verdict_name(d.verdict_b)), "n") + text_cell("") + "</tr>\n";
  out += diff_row("input-bound steps", d.input_bound_steps, count);
  if (d.device_a || d.device_b) {
    out += diff_row("device busy", d.device_busy_pct, pct);
    out += diff_row("device idle", d.device_idle_pct, pct);
    out += diff_row("idle cost per 1 000 steps", d.idle_cost_per_1000_steps,
                    [&](double v) { return fmt::money(v, d.currency); });
  }
  if (d.samples_per_s.a > 0 || d.samples_per_s.b > 0)
    out += diff_row("samples/s", d.samples_per_s, count);
  out += "<tr>" + text_cell("bottleneck stage") +
         text_cell(display(d.bottleneck_a.value_or("-")), "n") +
         text_cell(display(d.bottleneck_b.value_or("-")), "n") + text_cell("") + "</tr>\n";
  out += table_end();
  out += "<h2>Breakdown per step</h2>\n";
  out += table_begin("diff-breakdown-table",
                     {{"part", false}, {"A", true}, {"B", true}, {"change", true}});
  for (int p = 0; p < analysis::kPartCount; ++p) {
    const analysis::Delta& b = d.breakdown_ms_per_step[p];
    if (b.a == 0 && b.b == 0) continue;
    out += diff_row(part_label(p), b, ms);
  }
  return out + table_end();
}

std::string diff_levers(const analysis::RunDiff& d) {
  if (d.levers.empty()) return "<p class=\"note\">No lever applies to either run.</p>\n";
  std::string out = table_begin("levers-table", {{"lever", false},
                                                 {"speed-up in A", true},
                                                 {"speed-up in B", true},
                                                 {"saves in A", true},
                                                 {"saves in B", true},
                                                 {"change", false}});
  const auto speedup = [](double v) { return v > 0 ? fmt::printf("%.2f×", v) : "-"; };
  for (const analysis::LeverDelta& l : d.levers) {
    out += "<tr data-lever=\"" + escape(l.id) + "\">" + text_cell(display(l.title)) +
           number_cell(speedup(l.speedup.a), l.speedup.a) +
           number_cell(speedup(l.speedup.b), l.speedup.b) +
           number_cell(l.in_a ? fmt::money(l.saving.a, d.currency) : "-", l.saving.a) +
           number_cell(l.in_b ? fmt::money(l.saving.b, d.currency) : "-", l.saving.b) +
           text_cell(display(analysis::lever_sentence(l), 300)) + "</tr>\n";
  }
  return out + table_end();
}

std::string diff_kernels(const analysis::RunDiff& d) {
  constexpr std::size_t kMaxRows = 500;
  if (d.kernels.empty()) return "";
  std::string out =
      "<h2>Kernels, by the change of their time per step</h2>\n<div class=\"scroll\">";
  out += table_begin("kernels-table", {{"kernel", false},
                                       {"A ms/step", true},
                                       {"B ms/step", true},
                                       {"change", true},
                                       {"A launches/step", true},
                                       {"B launches/step", true}});
  for (std::size_t i = 0; i < std::min(d.kernels.size(), kMaxRows); ++i) {
    const analysis::KernelDelta& k = d.kernels[i];
    out += "<tr><td class=\"name\" title=\"" + title_attr(k.name) + "\">" + display(k.name) +
           "</td>" + number_cell(fmt::ms(k.ms_per_step.a), k.ms_per_step.a) +
           number_cell(fmt::ms(k.ms_per_step.b), k.ms_per_step.b) +
           number_cell(change(k.ms_per_step), k.ms_per_step.delta()) +
           number_cell(fmt::printf("%.1f", k.count_per_step.a), k.count_per_step.a) +
           number_cell(fmt::printf("%.1f", k.count_per_step.b), k.count_per_step.b) + "</tr>\n";
  }
  return out + table_end() + "</div>\n";
}

}  // namespace

std::string report_html(const Report& r) {
  std::string out = page_begin("trainscope report: " + r.file.substr(0, 200));
  out += "<header><h1>trainscope report</h1><p class=\"sub\">" + display(r.file, 300) + " · " +
         display(run_line(r), 300) + "</p></header>\n";
  out += warnings(r.warnings);
  out += "<p class=\"verdict " + verdict_class(r.verdict) + "\" id=\"verdict\" data-verdict=\"" +
         std::string(analysis::verdict_name(r.verdict)) + "\">" +
         escape(analysis::verdict_sentence(r)) + "</p>\n";
  out += cards(r);
  out += levers_section(r);
  if (!r.per_step.empty()) {
    out += step_chart_section(r);
    out += timeline_section(r);
  }
  if (r.steps > 0) {
    out += breakdown_section(r);
    out += idle_section(r);
  }
  out += kernels_section(r);
  out += stages_section(r);
  out += steps_section(r);
  out += ranks_section(r);
  out += recommendations(r);
  out += "<footer>Made by trainscope from " + display(r.file, 300) + " (" +
         escape(fmt::count(r.events)) +
         " events). Definitions: profiler/analysis/README.md."
         "</footer>\n";
  return out + page_end();
}

std::string diff_html(const analysis::RunDiff& d, const Report& a, const Report& b) {
  std::string out =
      page_begin("trainscope diff: " + d.file_a.substr(0, 100) + " vs " + d.file_b.substr(0, 100));
  out += "<header><h1>trainscope diff</h1><p class=\"sub\">A " + display(d.file_a, 300) + " · B " +
         display(d.file_b, 300) + "</p></header>\n";
  out += warnings(a.warnings) + warnings(b.warnings);
  out += "<p class=\"verdict\" id=\"verdict\">" + escape(analysis::headline(d)) + "</p>\n";
  for (const std::string& s :
       {analysis::saving_sentence(d), analysis::scope_sentence(d), analysis::whole_run_sentence(d)})
    if (!s.empty()) out += "<p>" + display(s, 2000) + "</p>\n";
  out += "<section id=\"figures\">\n<h2>Figures</h2>\n" + diff_figures(d) + "</section>\n";
  out += "<section id=\"levers\">\n<h2>Levers</h2>\n" + diff_levers(d) + "</section>\n";
  out += "<section id=\"kernels\">\n" + diff_kernels(d) + "</section>\n";
  for (const auto& [name, r] : {std::pair<std::string, const Report*>{"A", &a}, {"B", &b}}) {
    if (r->per_step.empty()) continue;
    out += "<section id=\"step-time-" + name + "\">\n<h2>Step time of " + name + "</h2>\n";
    out += "<p class=\"sub\">" + display(r->file, 300) + "</p>\n" + step_time_chart(*r);
    out += "</section>\n";
  }
  out += legend({{"#e15759", "highly input-bound"},
                 {"#f28e2b", "moderately input-bound"},
                 {"#4e79a7", "not input-bound"},
                 {"#bab0ac", "warm-up"}});
  out += "<footer>Made by trainscope. Changes are B relative to A.</footer>\n";
  return out + page_end();
}

}  // namespace ts::render
