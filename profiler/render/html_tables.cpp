#include "profiler/render/html_tables.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "profiler/analysis/figure_format.hpp"
#include "profiler/render/html_page.hpp"
#include "profiler/render/svg_chart.hpp"

namespace ts::render {

namespace {

using analysis::Report;
namespace fmt = analysis::fmt;

constexpr std::size_t kMaxKernelRows = 1000;
constexpr std::size_t kMaxStepRows = 2000;

double pct_of(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0;
}

std::string list(const std::vector<std::string>& items) {
  if (items.empty()) return "";
  std::string out = "<ul>";
  for (const std::string& s : items) out += "<li>" + display(s, 400) + "</li>";
  return out + "</ul>";
}

std::string name_cell(const std::string& name) {
  return "<td class=\"name\" title=\"" + title_attr(name) + "\">" + display(name) + "</td>";
}

std::string rank_label(const analysis::RankFigures& k) {
  return k.rank ? std::to_string(*k.rank) : "p" + std::to_string(k.process);
}

std::string section(std::string_view id, std::string_view heading, const std::string& body) {
  return "<section id=\"" + std::string(id) + "\">\n<h2>" + escape(heading) + "</h2>\n" + body +
         "</section>\n";
}

}  // namespace

std::string verdict_tag(analysis::Verdict v) {
  switch (v) {
    case analysis::Verdict::high:
      return "<span class=\"tag high\">highly input-bound</span>";
    case analysis::Verdict::moderate:
      return "<span class=\"tag moderate\">moderately input-bound</span>";
    case analysis::Verdict::none:
      break;
  }
  return "";
}

std::string levers_section(const Report& r) {
  if (r.levers.empty())
    return section("levers", "Levers", "<p class=\"note\">No lever applies to this trace.</p>\n");
  std::string out = "<div class=\"levers\">" + table_begin("levers-table", {{"#", true},
                                                                            {"lever", false},
                                                                            {"evidence", false},
                                                                            {"already on", false},
                                                                            {"fix", false},
                                                                            {"step time", true},
                                                                            {"speed-up", true},
                                                                            {"saves", true},
                                                                            {"confidence", false}});
  for (std::size_t i = 0; i < r.levers.size(); ++i) {
    const analysis::Lever& l = r.levers[i];
    const analysis::WhatIf& w = l.projection;
    std::string lever = "<strong>" + display(l.title) + "</strong>";
    if (!l.points_at.empty()) {
      lever += "<div class=\"note\">at: ";
      for (std::size_t k = 0; k < l.points_at.size(); ++k)
        lever += (k > 0 ? ", " : "") + display(l.points_at[k], 80);
      lever += "</div>";
    }
    const bool saves = w.speedup > 1.0;
    out += "<tr data-lever=\"" + escape(l.id) + "\">" +
           number_cell(std::to_string(i + 1), static_cast<double>(i + 1)) + text_cell(lever) +
           text_cell(list(l.evidence)) + text_cell(list(l.already_on)) + text_cell(list(l.fix)) +
           number_cell(saves ? fmt::ms(w.step_time_ms) : "-", saves ? w.step_time_ms : 0) +
           number_cell(saves ? fmt::printf("%.2f×", w.speedup) : "-", w.speedup) +
           number_cell(saves ? fmt::money(w.saving, r.currency) : "-", saves ? w.saving : 0) +
           text_cell("<span class=\"tag " + escape(l.confidence) + "\">" + escape(l.confidence) +
                     "</span><div class=\"note\">" + display(l.confidence_why, 400) + "</div>") +
           "</tr>\n";
  }
  out += table_end() + "</div>\n";
  out +=
      "<p class=\"note\">Projection: the mean step time without what the lever removes, and "
      "what that saves over the run's " +
      escape(fmt::count(r.whole_run.steps)) + " steps at " +
      escape(fmt::money(r.gpu_hour_price, r.currency)) + " per device-hour.</p>\n";
  return section("levers", "Levers", out);
}

std::string breakdown_section(const Report& r) {
  std::string out = breakdown_bar(r);
  std::vector<std::pair<std::string, std::string>> keys;
  for (int p = 0; p < analysis::kPartCount; ++p)
    if (r.breakdown.ns[p] > 0) keys.emplace_back(part_colour(p), part_label(p));
  out += legend(keys);
  out += table_begin("breakdown-table",
                     {{"part", false}, {"summed", true}, {"per step", true}, {"share", true}});
  const double steps = static_cast<double>(std::max<std::int64_t>(1, r.steps));
  for (int p = 0; p < analysis::kPartCount; ++p) {
    const std::int64_t ns = r.breakdown.ns[p];
    if (ns == 0) continue;  // the bar's legend lists the same parts
    const double share = pct_of(ns, r.step_time_total_ns);
    out += "<tr data-part=\"" + std::string(analysis::part_name(static_cast<analysis::Part>(p))) +
           "\">" +
           text_cell("<span class=\"legend\"><span style=\"--c:" + std::string(part_colour(p)) +
                     "\">" + escape(part_label(p)) + "</span></span>") +
           number_cell(fmt::ms(fmt::to_ms(ns)), fmt::to_ms(ns)) +
           number_cell(fmt::duration(static_cast<std::int64_t>(static_cast<double>(ns) / steps)),
                       static_cast<double>(ns) / steps) +
           number_cell(fmt::pct(share), share) + "</tr>\n";
  }
  out += table_end();
  return section("breakdown", "Where step time goes", out);
}

std::string idle_section(const Report& r) {
  const analysis::DeviceStats& d = r.device;
  if (!d.has_device)
    return section("idle", "Device idle",
                   std::string("<p class=\"note\">") +
                       (r.device_events_off ? "The capture left device-queue events out "
                                              "(--trace-device off): no device figures."
                                            : "No device-queue events recorded.") +
                       "</p>\n");
  std::string out =
      "<p>Device busy " + escape(fmt::pct(d.busy_pct)) + ", idle " + escape(fmt::pct(d.idle_pct)) +
      " of step time: " + escape(fmt::ms(fmt::to_ms(d.idle_ns))) + " idle in " +
      escape(fmt::count(d.listed_gaps)) + " listed gaps, ≈ " +
      escape(fmt::money_per_steps(r.idle_cost_per_1000_steps / 1000, r.currency)) + " at " +
      escape(fmt::money(r.gpu_hour_price, r.currency)) + " per device-hour.</p>\n";
  out += table_begin("idle-table", {{"cause", false},
                                    {"idle", true},
                                    {"per step", true},
                                    {"share of idle", true},
                                    {"share of step time", true}});
  const double steps = static_cast<double>(std::max<std::int64_t>(1, r.steps));
  for (int c = 0; c < analysis::kIdleCauseCount; ++c) {
    const auto cause = static_cast<analysis::IdleCause>(c);
    const std::int64_t ns = d.idle_by_cause_ns[c];
    if (cause == analysis::IdleCause::collective && ns == 0 && r.ranks.empty()) continue;
    const double of_idle = pct_of(ns, d.idle_ns);
    const double of_step = pct_of(ns, r.step_time_total_ns);
    out +=
        "<tr data-cause=\"" + std::string(analysis::idle_cause_name(cause)) + "\">" +
        text_cell("<span class=\"legend\"><span style=\"--c:" + std::string(idle_cause_colour(c)) +
                  "\">" + escape(analysis::idle_cause_name(cause)) + "</span></span>") +
        number_cell(fmt::ms(fmt::to_ms(ns)), fmt::to_ms(ns)) +
        number_cell(fmt::duration(static_cast<std::int64_t>(static_cast<double>(ns) / steps)),
                    static_cast<double>(ns) / steps) +
        number_cell(fmt::pct(of_idle), of_idle) + number_cell(fmt::pct(of_step), of_step) +
        "</tr>\n";
  }
  out += table_end();
  return section("idle", "Device idle, by cause", out);
}

std::string kernels_section(const Report& r) {
  if (r.kernels.empty()) return "";
  std::int64_t launches = 0;
  for (const analysis::KernelStat& k : r.kernels) launches += k.count;
  std::string out = "<p>" + escape(fmt::count(static_cast<std::int64_t>(r.kernels.size()))) +
                    " kernel names, " + escape(fmt::count(launches)) +
                    " launches in the analysed steps";
  if (r.kernels.size() > kMaxKernelRows)
    out += fmt::printf(" (the top %zu by total time listed)", kMaxKernelRows);
  out += ".</p>\n<div class=\"scroll\">";
  out += table_begin("kernels-table", {{"kernel", false},
                                       {"count", true},
                                       {"total", true},
                                       {"mean", true},
                                       {"min", true},
                                       {"max", true},
                                       {"share", true}});
  for (std::size_t i = 0; i < std::min(r.kernels.size(), kMaxKernelRows); ++i) {
    const analysis::KernelStat& k = r.kernels[i];
    out += "<tr>" + name_cell(k.name) +
           number_cell(fmt::count(k.count), static_cast<double>(k.count)) +
           number_cell(fmt::ms(fmt::to_ms(k.total_ns)), static_cast<double>(k.total_ns)) +
           number_cell(fmt::duration(k.mean_ns), static_cast<double>(k.mean_ns)) +
           number_cell(fmt::duration(k.min_ns), static_cast<double>(k.min_ns)) +
           number_cell(fmt::duration(k.max_ns), static_cast<double>(k.max_ns)) +
           number_cell(fmt::pct(k.share_pct), k.share_pct) + "</tr>\n";
  }
  out += table_end() + "</div>\n";
  return section("kernels", "Kernels", out);
}

std::string stages_section(const Report& r) {
  const analysis::PipelineStats& p = r.pipeline;
  if (p.stages.empty()) {
    std::string note = "No input pipeline events recorded";
    if (r.source_format == "kineto" || r.source_format == "legacy array")
      note += " (PyTorch traces do not hold the DataLoader workers' reading and decoding)";
    return section("stages", "Input pipeline", "<p class=\"note\">" + escape(note) + ".</p>\n");
  }
  std::string facts =
      "Bottleneck stage: <strong>" + escape(p.bottleneck_stage.value_or("none")) + "</strong>";
  if (p.workers) facts += fmt::printf("; workers %d", *p.workers);
  if (p.prefetch) facts += fmt::printf(", prefetch %d", *p.prefetch);
  if (p.cache) facts += ", cache " + display(*p.cache, 40);
  if (p.prefetch_fill_mean)
    facts += fmt::printf("; prefetch buffer fill mean %.2f", *p.prefetch_fill_mean);
  if (p.busy_during_waits_pct)
    facts += "; a stage ran during " + escape(fmt::pct(*p.busy_during_waits_pct)) +
             " of the input waits";
  std::string out = "<p>" + facts + ".</p>\n";
  out += table_begin("stages-table", {{"stage", false},
                                      {"main event", false},
                                      {"events", true},
                                      {"total", true},
                                      {p.samples > 0 ? "per sample" : "per event", true},
                                      {"threads", true},
                                      {"utilisation", true}});
  for (const analysis::StageStat& s : p.stages) {
    const bool bottleneck = p.bottleneck_stage && *p.bottleneck_stage == s.stage;
    out += "<tr data-stage=\"" + escape(s.stage) + "\">" +
           text_cell(escape(s.stage) +
                     (bottleneck ? " <span class=\"tag high\">bottleneck</span>" : "")) +
           name_cell(s.main_event) +
           number_cell(fmt::count(s.count), static_cast<double>(s.count)) +
           number_cell(fmt::ms(fmt::to_ms(s.total_ns)), static_cast<double>(s.total_ns)) +
           number_cell(fmt::duration(static_cast<std::int64_t>(s.ns_per_sample)), s.ns_per_sample) +
           number_cell(std::to_string(s.threads), s.threads) +
           number_cell(fmt::pct(s.utilisation_pct), s.utilisation_pct) + "</tr>\n";
  }
  out += table_end();
  return section("stages", "Input pipeline", out);
}

std::string steps_section(const Report& r) {
  if (r.per_step.empty()) return "";
  std::vector<analysis::StepSummary> shown;
  std::string out;
  if (r.per_step.size() > kMaxStepRows) {
    // The slowest: (time, place in per_step), the steps decoded once chosen.
    std::vector<std::pair<std::int64_t, std::uint32_t>> by_time;
    by_time.reserve(r.per_step.size());
    for (std::size_t i = 0; i < r.per_step.size(); ++i)
      by_time.emplace_back(r.per_step[i].dur_ns, static_cast<std::uint32_t>(i));
    std::nth_element(by_time.begin(), by_time.begin() + kMaxStepRows, by_time.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    by_time.resize(kMaxStepRows);
    for (const auto& [time, i] : by_time) shown.push_back(r.per_step[i]);
    std::sort(shown.begin(), shown.end(), [](const auto& a, const auto& b) {
      return a.step != b.step ? a.step < b.step : a.rank_index < b.rank_index;
    });
    out += "<p class=\"note\">The " + escape(fmt::count(kMaxStepRows)) + " slowest of " +
           escape(fmt::count(static_cast<std::int64_t>(r.per_step.size()))) + " steps.</p>\n";
  } else {
    shown = r.per_step.to_vector();
  }
  // A column for each part that holds at least 1 % of the steps' summed time.
  analysis::Breakdown summed;
  for (const analysis::StepSummary& s : r.per_step)
    for (int p = 0; p < analysis::kPartCount; ++p) summed.ns[p] += s.parts.ns[p];
  std::vector<int> parts;
  for (int p = 0; p < analysis::kPartCount; ++p)
    if (summed.ns[p] > 0 && pct_of(summed.ns[p], summed.total()) >= 1.0) parts.push_back(p);
  const bool ranks = !r.ranks.empty();
  std::vector<Column> columns;
  if (ranks) columns.push_back({"rank", false});
  columns.insert(columns.end(), {{"step", true}, {"time", true}, {"input", true}});
  if (r.device.has_device) columns.push_back({"device busy", true});
  for (const int p : parts) columns.push_back({std::string(part_label(p)), true});
  columns.push_back({"class", false});
  out += "<div class=\"scroll\">" + table_begin("steps-table", columns);
  for (const analysis::StepSummary& s : shown) {
    out += std::string("<tr") + (s.warmup ? " data-warmup=\"1\"" : "") + ">";
    if (ranks)
      out += text_cell(escape(rank_label(r.ranks[static_cast<std::size_t>(
          std::clamp<int>(s.rank_index, 0, static_cast<int>(r.ranks.size()) - 1))])));
    const double busy = pct_of(s.device_busy_ns, s.dur_ns);
    out += number_cell(std::to_string(s.step), static_cast<double>(s.step)) +
           number_cell(fmt::ms(fmt::to_ms(s.dur_ns)), fmt::to_ms(s.dur_ns)) +
           number_cell(fmt::pct(s.input_pct), s.input_pct);
    if (r.device.has_device) out += number_cell(fmt::pct(busy), busy);
    for (const int p : parts)
      out += number_cell(fmt::ms(fmt::to_ms(s.parts.ns[p])), fmt::to_ms(s.parts.ns[p]));
    out += text_cell(s.warmup ? "<span class=\"tag warmup\">warm-up</span>"
                              : verdict_tag(s.input_verdict));
    out += "</tr>\n";
  }
  out += table_end() + "</div>\n";
  return section("steps", "Steps", out);
}

namespace {

// The job overview: the ranks' per-step figures as a distribution, and the ranks holding the
// others back with their cause and the others' wait for them.
std::string job_tables(const Report& r) {
  if (!r.job) return "";
  const analysis::JobOverview& job = *r.job;
  const bool ranked =
      std::any_of(r.ranks.begin(), r.ranks.end(),
                  [](const analysis::RankFigures& k) { return k.rank.has_value(); });
  std::string out = table_begin(
      "job-table",
      {{"per step, over " + std::to_string(job.ranks) + (ranked ? " ranks" : " processes"), false},
       {"median", true},
       {"p90", true},
       {"max", true}});
  const auto row = [&](const char* name, const analysis::JobOverview::Spread& s) {
    out += "<tr>" + text_cell(name) + number_cell(fmt::ms(s.median), s.median) +
           number_cell(fmt::ms(s.p90), s.p90) + number_cell(fmt::ms(s.max), s.max) + "</tr>\n";
  };
  row("step time", job.step_ms);
  row("input", job.input_ms);
  row("collective", job.collective_ms);
  row("own work", job.own_ms);
  out += table_end();
  if (job.holding_back.empty()) return out;
  out += "<p>Holding the others back: own work per step more than " +
         escape(fmt::ms(job.threshold_ms)) +
         " over the median rank's; each rank's cost is the others' wait for it, as if it were "
         "the only one.</p>\n";
  out += table_begin("holding-back-table", {{"rank", false},
                                            {"own work", true},
                                            {"excess", true},
                                            {"cause", false},
                                            {"others' wait per step", true},
                                            {"over the run", true},
                                            {"of device time", true}});
  for (const analysis::JobOverview::HoldingBack& h : job.holding_back) {
    const analysis::RankFigures& k = r.ranks.at(static_cast<std::size_t>(h.index));
    out += "<tr>" + text_cell(escape(rank_label(k))) + number_cell(fmt::ms(h.own_ms), h.own_ms) +
           number_cell(fmt::ms(h.excess_ms), h.excess_ms) + text_cell(escape(h.cause)) +
           number_cell(fmt::ms(h.wait_ms_per_step), h.wait_ms_per_step) +
           number_cell(fmt::duration(static_cast<std::int64_t>(h.wait_ms * 1e6)), h.wait_ms) +
           number_cell(fmt::pct(h.wait_pct), h.wait_pct) + "</tr>\n";
  }
  return out + table_end();
}

}  // namespace

std::string ranks_section(const Report& r) {
  if (r.ranks.empty()) return "";
  std::string out = "<p>Communication " + escape(fmt::pct(r.communication_pct)) +
                    " of step time (" + escape(analysis::verdict_name(r.communication_verdict)) +
                    "), load imbalance " + escape(fmt::pct(r.load_imbalance_pct)) + ".";
  if (r.straggler) out += " " + display(r.straggler->sentence, 400);
  out += "</p>\n";
  out += job_tables(r);
  out += table_begin("ranks-table", {{"rank", false},
                                     {"name", false},
                                     {"steps", true},
                                     {"step mean", true},
                                     {"step p50", true},
                                     {"input", true},
                                     {"verdict", false},
                                     {"collective", true},
                                     {"device busy", true},
                                     {"samples/s", true}});
  for (const analysis::RankFigures& k : r.ranks) {
    const double collective = pct_of(k.breakdown[analysis::Part::collective], k.step_time_total_ns);
    out += "<tr>" + text_cell(escape(rank_label(k))) + name_cell(k.name) +
           number_cell(fmt::count(k.steps), static_cast<double>(k.steps)) +
           number_cell(fmt::ms(k.step_time.mean_ms), k.step_time.mean_ms) +
           number_cell(fmt::ms(k.step_time.p50_ms), k.step_time.p50_ms) +
           number_cell(fmt::pct(k.input_pct), k.input_pct) +
           text_cell(escape(analysis::verdict_name(k.verdict))) +
           number_cell(fmt::pct(collective), collective) +
           number_cell(k.has_device ? fmt::pct(k.device_busy_pct) : "-",
                       k.has_device ? k.device_busy_pct : 0) +
           number_cell(k.samples_per_s > 0 ? fmt::count(std::llround(k.samples_per_s)) : "-",
                       k.samples_per_s) +
           "</tr>\n";
  }
  out += table_end();
  const bool ranked =
      std::any_of(r.ranks.begin(), r.ranks.end(),
                  [](const analysis::RankFigures& k) { return k.rank.has_value(); });
  return section("ranks", ranked ? "Ranks" : "Processes", out);
}

}  // namespace ts::render
