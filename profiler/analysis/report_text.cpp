// to_text(Report) and verdict_sentence(): the readable `trainscope report`. The verdict comes
// first, in one sentence; then the figures, a compact per-step summary (the slowest steps and
// the input-bound ones as ranges) and the recommendations.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "profiler/analysis/figure_format.hpp"
#include "profiler/analysis/job_overview.hpp"
#include "profiler/analysis/kernel_names.hpp"
#include "profiler/analysis/printable.hpp"
#include "profiler/analysis/ranks.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/analysis/step_breakdown.hpp"

namespace ts::analysis {

namespace {

constexpr std::size_t kWidth = 100;
constexpr std::size_t kSlowestSteps = 5;
constexpr std::size_t kAllStepsUpTo = 12;
constexpr std::size_t kTopKernels = 10;
constexpr std::size_t kMaxRanges = 20;
constexpr std::size_t kNameWidth = 48;  // a kernel table row is 100 columns
// Up to this many processes holding the job back the report lists each.
constexpr std::size_t kListedHoldingBack = 10;
// Lines of input-bound steps per class, each for the processes with the same steps.
constexpr std::size_t kListedBoundLines = 8;

constexpr std::string_view kPartLabels[kPartCount] = {
    "device compute",  "collective", "d2h copies", "h2d copies",   "input wait",
    "input hand-over", "launch",     "sync",       "host compute", "other / idle"};

// Pads or cuts (at a UTF-8 character boundary, with "…") to `width` bytes; names are ASCII in
// practice, so bytes are columns.
std::string fit(std::string_view s, std::size_t width) {
  if (s.size() <= width) return std::string(s) + std::string(width - s.size(), ' ');
  std::size_t cut = width - 1;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return std::string(s.substr(0, cut)) + "…" + std::string(width - 1 - cut, ' ');
}

std::string right(const std::string& s, std::size_t width) {
  // Width in characters: count bytes that start a UTF-8 character ("µ" is two bytes).
  std::size_t chars = 0;
  for (unsigned char c : s) chars += (c & 0xC0) != 0x80;
  return chars >= width ? s : std::string(width - chars, ' ') + s;
}

// True for the space inside a number grouped in thousands ("13 484"): never a line break.
bool groups_digits(const std::string& text, std::size_t space) {
  const auto digit = [&](std::size_t k) {
    return k < text.size() && text[k] >= '0' && text[k] <= '9';
  };
  return space > 0 && digit(space - 1) && digit(space + 1) && digit(space + 2) &&
         digit(space + 3) && !digit(space + 4);
}

// Word-wraps `text` to kWidth columns; continuation lines indented by `indent` spaces.
std::string wrap(const std::string& text, std::size_t first_indent, std::size_t indent) {
  std::string out(first_indent, ' ');
  std::size_t col = first_indent;
  std::size_t i = 0;
  bool line_start = true;
  while (i < text.size()) {
    std::size_t j = text.find(' ', i);
    while (j != std::string::npos && groups_digits(text, j)) j = text.find(' ', j + 1);
    if (j == std::string::npos) j = text.size();
    const std::string word = text.substr(i, j - i);
    if (!line_start && col + 1 + word.size() > kWidth) {
      out += '\n' + std::string(indent, ' ');
      col = indent;
      line_start = true;
    }
    if (!line_start) {
      out += ' ';
      ++col;
    }
    out += word;
    col += word.size();
    line_start = false;
    i = j + 1;
  }
  return out + '\n';
}

// A step's input class in the steps table: "   highly input-bound", or nothing.
std::string step_class(Verdict v) {
  switch (v) {
    case Verdict::high:
      return "   highly input-bound";
    case Verdict::moderate:
      return "   moderately input-bound";
    case Verdict::none:
      break;
  }
  return "";
}

// A threshold as set: "20 %", "7.5 %".
std::string threshold_pct(double pct) {
  return fmt::printf("%g %%", pct);
}

// Numbers as ranges: "0-3, 5, 7-62", at most kMaxRanges of them, then "… (12 more steps)".
std::string ranges(const std::vector<std::int64_t>& numbers, const char* noun = "steps") {
  std::string out;
  std::size_t shown = 0, i = 0;
  while (i < numbers.size()) {
    std::size_t j = i;
    while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
    if (shown == kMaxRanges) {
      out += fmt::printf(", … (%zu more %s)", numbers.size() - i, noun);
      break;
    }
    if (!out.empty()) out += ", ";
    out += j > i ? fmt::printf("%lld-%lld", static_cast<long long>(numbers[i]),
                               static_cast<long long>(numbers[j]))
                 : fmt::printf("%lld", static_cast<long long>(numbers[i]));
    ++shown;
    i = j + 1;
  }
  return out;
}

std::string run_line(const Report& r) {
  std::string s = r.model.empty() ? "a run" : printable(r.model);
  if (!r.backend.empty()) s += " on " + printable(r.backend);
  if (!r.device_name.empty()) s += " (" + printable(r.device_name) + ")";
  if (r.batch) s += fmt::printf(", batch %lld", static_cast<long long>(*r.batch));
  if (!r.recorded_steps.empty())
    s += "; steps " + printable(r.recorded_steps) + " recorded (--trace-steps)";
  return s;
}

void breakdown_table(std::string& out, const Report& r) {
  out += "breakdown             summed   per step   share\n";
  const double steps = static_cast<double>(std::max<std::int64_t>(1, r.steps));
  for (int p = 0; p < kPartCount; ++p) {
    const std::int64_t ns = r.breakdown.ns[p];
    if (p == static_cast<int>(Part::collective) && ns == 0 && r.ranks.empty()) continue;
    out += "  " + fit(kPartLabels[p], 16) + right(fmt::ms(fmt::to_ms(ns)), 10) +
           right(fmt::duration(static_cast<std::int64_t>(static_cast<double>(ns) / steps)), 11) +
           right(fmt::pct(percent(ns, r.step_time_total_ns)), 8) + "\n";
  }
}

void device_section(std::string& out, const Report& r) {
  const DeviceStats& d = r.device;
  if (!d.has_device) {
    out += r.device_events_off
               ? "device      no device-queue events recorded: the capture left them out "
                 "(--trace-device off)\n"
               : "device      no device-queue events recorded\n";
    return;
  }
  out += "device      busy " + fmt::pct(d.busy_pct) + ", idle " + fmt::pct(d.idle_pct) +
         " of step time (" + fmt::ms(fmt::to_ms(d.idle_ns)) + " idle in " +
         fmt::count(d.listed_gaps) + " listed gaps)\n";
  if (const auto& s = r.device_sampling)  // device events on one step in K: figures extrapolated
    out += "  device figures from 1 step in " + std::to_string(s->every) + " (" +
           std::to_string(s->sampled_steps) + " of " + std::to_string(s->steps) +
           " steps) — sampled\n";
  out += "  idle by cause ";
  for (int c = 0; c < kIdleCauseCount; ++c) {
    const auto cause = static_cast<IdleCause>(c);
    if (cause == IdleCause::collective && d.idle_by_cause_ns[c] == 0 && r.ranks.empty()) continue;
    if (c > 0) out += ", ";
    out += std::string(idle_cause_name(static_cast<IdleCause>(c))) + " " +
           fmt::ms(fmt::to_ms(d.idle_by_cause_ns[c]));
  }
  out += "\n  idle cost     ≈ " +
         fmt::money_per_steps(r.idle_cost_per_1000_steps / 1000, r.currency) + " at " +
         fmt::money(r.gpu_hour_price, r.currency) + "/GPU-hour\n";
}

std::string rank_label(const RankFigures& k) {
  return k.rank ? fmt::printf("%lld", static_cast<long long>(*k.rank))
                : fmt::printf("p%lld", static_cast<long long>(k.process));
}

// True when some process of the trace has a distributed rank. Processes without one (JSON files
// imported without distributedInfo, e.g. two profiling spans of one worker) are not ranks.
bool any_rank(const Report& r) {
  return std::any_of(r.ranks.begin(), r.ranks.end(),
                     [](const RankFigures& k) { return k.rank.has_value(); });
}

// A process in a sentence: "rank 3", or "p2" (its label in the tables) when it has no rank.
std::string process_label(const RankFigures& k) {
  return k.rank ? "rank " + rank_label(k) : rank_label(k);
}

// The index into Report::ranks of a step's process.
int rank_of(const Report& r, const StepSummary& s) {
  return std::clamp<int>(s.rank_index, 0, static_cast<int>(r.ranks.size()) - 1);
}

// The heading of the column naming a process (rank_label): "rank", or "proc" when none has one.
std::string rank_column(const Report& r) {
  return any_rank(r) ? "rank" : "proc";
}

// "rank", or "process" when none has a rank (rank_column); plural "ranks", "processes".
std::string rank_word(const Report& r, bool plural = false) {
  return any_rank(r) ? (plural ? "ranks" : "rank") : (plural ? "processes" : "process");
}

// Processes in a sentence (indices into Report::ranks, in order): "rank 3", "ranks 0-1, 3-255",
// "p1, p4" (processes without a rank; past kMaxRanges of them, how many more).
std::string processes_text(const Report& r, const std::vector<std::size_t>& who) {
  if (who.size() == 1) return process_label(r.ranks[who[0]]);
  std::vector<std::int64_t> numbers;
  for (const std::size_t g : who)
    if (r.ranks[g].rank) numbers.push_back(*r.ranks[g].rank);
  if (numbers.size() == who.size()) {
    std::sort(numbers.begin(), numbers.end());
    return "ranks " + ranges(numbers, "ranks");
  }
  std::string text;
  for (std::size_t i = 0; i < who.size(); ++i) {
    if (i == kMaxRanges) {
      text += fmt::printf(", … (%zu more processes)", who.size() - i);
      break;
    }
    text += (text.empty() ? "" : ", ") + rank_label(r.ranks[who[i]]);
  }
  return text;
}

// HTA's communication-computation overlap, over all and per rank that has collective kernels.
void overlap_line(std::string& out, const Report& r) {
  if (!r.communication_overlap_pct) return;
  const std::string per_rank = per_rank_text(
      r, [](const RankFigures& k) { return k.communication_overlap_pct; },
      [](double v) { return fmt::pct(v); });
  out += wrap("overlap     " + fmt::pct(*r.communication_overlap_pct) +
                  " of collective kernel time overlaps compute kernels" +
                  (per_rank.empty() ? "" : " (" + per_rank + ")"),
              0, 12);
}

void per_rank_table(std::string& out, const Report& r) {
  out += "  " + rank_column(r) +
         "   steps  step mean      input  verdict     collective  device busy  name\n";
  for (const RankFigures& k : r.ranks) {
    const std::int64_t collective = k.breakdown[Part::collective];
    out += "  " + fit(rank_label(k), 4) + right(fmt::count(k.steps), 8) +
           right(fmt::ms(k.step_time.mean_ms), 11) + right(fmt::pct(k.input_pct), 11) + "  " +
           fit(std::string(verdict_name(k.verdict)), 10) +
           right(fmt::pct(percent(collective, k.step_time_total_ns)), 12) +
           right(k.has_device ? fmt::pct(k.device_busy_pct) : "-", 13) + "  " + printable(k.name) +
           "\n";
  }
}

const RankFigures& job_rank(const Report& r, int index) {
  return r.ranks[static_cast<std::size_t>(
      std::clamp<int>(index, 0, static_cast<int>(r.ranks.size()) - 1))];
}

// Many ranks: their per-step figures as a distribution, and the ranks with the most own work.
void distribution_table(std::string& out, const Report& r, const JobOverview& job) {
  out += "  per step, over " + fmt::count(job.ranks) + " " + rank_word(r, true) +
         "   median        p90        max\n";
  const auto row = [&](const char* name, const JobOverview::Spread& s) {
    out += "    " + fit(name, 21) + right(fmt::ms(s.median), 11) + right(fmt::ms(s.p90), 11) +
           right(fmt::ms(s.max), 11) + "\n";
  };
  row("step time", job.step_ms);
  row("input", job.input_ms);
  row("collective", job.collective_ms);
  row("own work", job.own_ms);
  out += "  most own work  " + rank_column(r) +
         "   step time      input  collective   own work  name\n";
  for (const JobOverview::RankRow& w : job.worst) {
    const RankFigures& k = job_rank(r, w.index);
    out += "                 " + fit(rank_label(k), 4) + right(fmt::ms(w.step_ms), 12) +
           right(fmt::ms(w.input_ms), 11) + right(fmt::ms(w.collective_ms), 12) +
           right(fmt::ms(w.own_ms), 11) + "  " + printable(k.name) + "\n";
  }
}

// The ranks whose own work holds the others back, each with its cause and their wait for it.
void holding_back_table(std::string& out, const Report& r, const JobOverview& job) {
  const RankFigures& median = job_rank(r, job.median_rank);
  const double median_own =
      fmt::to_ms(median.step_time_total_ns - median.breakdown[Part::collective]) /
      static_cast<double>(std::max<std::int64_t>(1, median.steps));
  const std::string rule = "own work per step more than " + fmt::ms(job.threshold_ms) +
                           " over the median " + rank_word(r) + "'s (" + process_label(median) +
                           ": " + fmt::ms(median_own) + "; the threshold is " +
                           threshold_pct(kHoldBackPct) + " of its step time)";
  if (job.holding_back.empty()) {
    const bool collectives = r.communication_pct > 0;
    out += wrap("holding back  none: " + (collectives ? "no " + rank_word(r) + " has " + rule
                                                      : "the " + rank_word(r, true) +
                                                            " never wait for each other in "
                                                            "collectives"),
                2, 4);
    return;
  }
  out += wrap(
      "holding back  " + rule + "; the others' wait for each, as if it were the only one:", 2, 4);
  out += "  " + rank_column(r) +
         "    own work     excess  cause            others' wait  over the run  of device time\n";
  const std::size_t shown = std::min(job.holding_back.size(), kListedHoldingBack);
  for (std::size_t i = 0; i < shown; ++i) {
    const JobOverview::HoldingBack& h = job.holding_back[i];
    out += "  " + fit(rank_label(job_rank(r, h.index)), 4) + right(fmt::ms(h.own_ms), 12) +
           right(fmt::ms(h.excess_ms), 11) + "  " + fit(h.cause, 15) +
           right(fmt::ms(h.wait_ms_per_step) + "/step", 15) +
           right(fmt::duration(static_cast<std::int64_t>(h.wait_ms * 1e6)), 14) +
           right(fmt::pct(h.wait_pct), 16) + "\n";
  }
  if (job.holding_back.size() > shown)
    out += "  … " + fmt::count(static_cast<std::int64_t>(job.holding_back.size() - shown)) +
           " more (report --json lists every one)\n";
}

void ranks_section(std::string& out, const Report& r) {
  if (r.ranks.empty()) return;
  const std::string n = fmt::count(static_cast<std::int64_t>(r.ranks.size()));
  const bool json_import = !r.source_format.empty() && r.source_format != "xplane";
  const std::string what =
      any_rank(r) ? "ranks       " + n + " processes"
      : json_import
          ? "processes   " + n + " files without distributedInfo, treated as separate processes"
          : "processes   " + n + " without a rank";
  out += wrap(what + ", each over its own steps; communication " + fmt::pct(r.communication_pct) +
                  " of step time (" + std::string(verdict_name(r.communication_verdict)) +
                  "), load imbalance " + fmt::pct(r.load_imbalance_pct),
              0, 12);
  if (r.straggler) out += wrap("straggler   " + r.straggler->sentence, 0, 12);
  overlap_line(out, r);
  if (r.ranks.size() <= kListedRanks || !r.job) {
    per_rank_table(out, r);
    if (r.job && r.job->holding_back.size() > 1) holding_back_table(out, r, *r.job);
    return;
  }
  distribution_table(out, r, *r.job);
  holding_back_table(out, r, *r.job);
}

std::string phase_figures(const PhaseFigures& p) {
  return fmt::count(p.steps) + (p.steps == 1 ? " step" : " steps") + ", " +
         fmt::ms(p.step_mean_ms) + " per step, " + fmt::pct(p.input_pct) + " input (" +
         std::string(verdict_name(p.verdict)) + ")";
}

std::string step_range(const PhaseFigures& p) {
  return p.first_step == p.last_step
             ? "step " + std::to_string(p.first_step)
             : "steps " + std::to_string(p.first_step) + "-" + std::to_string(p.last_step);
}

// What the figures cover: the warm-up left out, and the whole run for comparison.
void phase_lines(std::string& out, const Report& r) {
  if (r.warmup.steps == 0) return;
  out +=
      wrap("warm-up     " + step_range(r.warmup) + " left out, " + printable(r.warmup.why) + ": " +
               phase_figures(r.warmup) + "; the figures below cover steps " +
               std::to_string(r.analysed_first_step) + "-" + std::to_string(r.analysed_last_step) +
               (r.recorded_steps.empty() ? "; the whole run: " : "; every step recorded: ") +
               phase_figures(r.whole_run),
           0, 12);
  if (r.warmup_kernels > 0)
    out += wrap("            " + fmt::count(r.warmup_kernels) + " kernels (" +
                    fmt::ms(fmt::to_ms(r.warmup_kernel_ns)) +
                    ") ran before the analysed steps and are not in the kernel table",
                0, 12);
}

void epochs_section(std::string& out, const Report& r) {
  if (r.epochs.size() < 2) return;
  out += "epochs      epoch    steps  step mean      input  verdict\n";
  for (const PhaseFigures& e : r.epochs) {
    out += "            " + fit(e.name.substr(e.name.find(' ') + 1), 5) +
           right(fmt::count(e.steps), 8) + right(fmt::ms(e.step_mean_ms), 11) +
           right(fmt::pct(e.input_pct), 11) + "  " + std::string(verdict_name(e.verdict));
    if (e.warmup) out += "  (warm-up: " + printable(e.why) + ")";
    out += "\n";
  }
}

void what_if_section(std::string& out, const Report& r) {
  if (r.what_if.empty()) return;
  out += wrap("what if     the run's " + fmt::count(r.whole_run.steps) + " steps took " +
                  fmt::device_time(r.run_device_hours) + " (" +
                  fmt::money(r.run_device_hours * r.gpu_hour_price, r.currency) + " at " +
                  fmt::money(r.gpu_hour_price, r.currency) + "/hour); with",
              0, 12);
  for (const WhatIf& w : r.what_if) {
    std::string line = "- " + w.description + ": " + fmt::ms(w.step_time_ms) + " per step" +
                       fmt::printf(" (%.2f× faster)", w.speedup);
    if (w.samples_per_s > 0)
      line += ", " + fmt::count(std::llround(w.samples_per_s)) + " samples/s";
    line += ", " + fmt::device_time(w.saving_device_hours) + " (" +
            fmt::money(w.saving, r.currency) + ") less";
    out += wrap(line, 2, 4);
  }
}

// One row per lever with what it would save, then its evidence, what is on and the fix.
void levers_section(std::string& out, const Report& r) {
  out += "levers\n";
  if (r.levers.empty()) {
    out += "  none: no lever applies to this trace\n";
    return;
  }
  for (std::size_t i = 0; i < r.levers.size(); ++i) {
    const Lever& l = r.levers[i];
    const WhatIf& w = l.projection;
    std::string row = fmt::printf("%zu. ", i + 1) + printable(l.title) + ": ";
    if (w.speedup > 1.0)
      row += fmt::ms(w.step_time_ms) + " per step" + fmt::printf(" (%.2f× faster), ", w.speedup) +
             fmt::device_time(w.saving_device_hours) + " (" + fmt::money(w.saving, r.currency) +
             ") less";
    else
      row += "no step time projected";
    out += wrap(row + " [" + l.confidence + "]", 2, 6);
    for (const std::string& e : l.evidence) out += wrap("- " + printable(e), 5, 7);
    if (!l.points_at.empty()) {
      std::string at = "at: ";
      for (std::size_t k = 0; k < l.points_at.size(); ++k)
        at += (k > 0 ? ", " : "") + printable(l.points_at[k]);
      out += wrap(at, 5, 9);
    }
    for (const std::string& on : l.already_on) out += wrap("on: " + printable(on), 5, 9);
    for (const std::string& f : l.fix) out += wrap("fix: " + printable(f), 5, 10);
    out += wrap("how: " + printable(l.confidence_why), 5, 10);
  }
}

void source_lines(std::string& out, const Report& r) {
  if (!r.source_format.empty())
    out += wrap("source      imported " + printable(r.source_format) + " trace", 0, 12);
  if (!r.steps_source.empty()) out += wrap("steps from  " + printable(r.steps_source), 0, 12);
  if (!r.skipped.empty()) {
    std::string line = "skipped     ";
    for (std::size_t i = 0; i < r.skipped.size(); ++i) {
      if (i > 0) line += ", ";
      line += fmt::count(static_cast<std::int64_t>(r.skipped[i].second)) + " " +
              printable(r.skipped[i].first);
    }
    out += wrap(line + " (events the import could not use)", 0, 12);
  }
}

void pipeline_section(std::string& out, const Report& r) {
  const PipelineStats& p = r.pipeline;
  if (p.stages.empty()) {
    out += "pipeline    no input pipeline events recorded";
    if (r.source_format == "kineto" || r.source_format == "legacy array")
      out += " (PyTorch traces do not hold the DataLoader workers' reading and decoding)";
    out += "\n";
    return;
  }
  out += "pipeline    bottleneck stage: " + p.bottleneck_stage.value_or("none");
  for (const StageStat& s : p.stages)
    if (p.bottleneck_stage && s.stage == *p.bottleneck_stage && !s.main_event.empty() &&
        s.main_event != s.stage)
      out += " (" + printable(s.main_event) + ")";
  if (p.workers) out += fmt::printf("; workers %d", *p.workers);
  if (p.prefetch) out += fmt::printf(", prefetch %d", *p.prefetch);
  if (p.cache) out += ", cache " + printable(*p.cache);
  if (p.prefetch_fill_mean)
    out += fmt::printf("; prefetch buffer fill mean %.2f", *p.prefetch_fill_mean);
  if (p.busy_during_waits_pct)
    out += "; a stage ran during " + fmt::pct(*p.busy_during_waits_pct) + " of the input waits";
  out += "\n  stage       events     total   per sample  threads  utilisation  main event\n";
  for (const StageStat& s : p.stages) {
    out += "  " + fit(s.stage, 8) + right(fmt::count(s.count), 9) +
           right(fmt::ms(fmt::to_ms(s.total_ns)), 10) +
           right(fmt::duration(static_cast<std::int64_t>(s.ns_per_sample)), 13) +
           right(std::to_string(s.threads), 9) + right(fmt::pct(s.utilisation_pct), 13) + "  " +
           printable(s.main_event) + "\n";
  }
  if (p.samples == 0) out += "  (per event: the batch size is unknown)\n";
}

// The top kernels by total time. Names are shortened and elided to their column so that no two
// rows read alike (kernel_names.hpp); `wide` prints them in full, last on each line.
void kernel_section(std::string& out, const Report& r, bool wide) {
  if (r.kernels.empty()) return;
  std::int64_t launches = 0;
  for (const KernelStat& k : r.kernels) launches += k.count;
  out += "kernels     " + fmt::count(static_cast<std::int64_t>(r.kernels.size())) + " names, " +
         fmt::count(launches) + " launches";
  if (r.kernels.size() > kTopKernels) out += fmt::printf(" (top %zu by total time)", kTopKernels);
  if (r.achieved_occupancy_pct)
    out += "; achieved occupancy " + fmt::pct(*r.achieved_occupancy_pct) + ", time-weighted";
  const std::size_t shown = std::min(r.kernels.size(), kTopKernels);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < shown; ++i) names.push_back(printable(r.kernels[i].name));
  // Columns as wide as their widest figure needs (a job's launch counts run to millions), so
  // neighbouring figures never run together.
  std::size_t count_width = 9, total_width = 11;
  for (std::size_t i = 0; i < shown; ++i) {
    count_width = std::max(count_width, text_columns(fmt::count(r.kernels[i].count)) + 1);
    total_width =
        std::max(total_width, text_columns(fmt::ms(fmt::to_ms(r.kernels[i].total_ns))) + 1);
  }
  const std::string figures =
      right("count", count_width) + right("total", total_width) + "       mean        max   share";
  if (wide) {
    out += "\n" + figures + "  name\n";
  } else {
    out += "\n  " + fit("name", kNameWidth) + figures + "\n";
    names = kernel_name_cells(names, kNameWidth);
  }
  for (std::size_t i = 0; i < shown; ++i) {
    const KernelStat& k = r.kernels[i];
    const std::string row = right(fmt::count(k.count), count_width) +
                            right(fmt::ms(fmt::to_ms(k.total_ns)), total_width) +
                            right(fmt::duration(k.mean_ns), 11) +
                            right(fmt::duration(k.max_ns), 11) + right(fmt::pct(k.share_pct), 8);
    if (wide)
      out += row + "  " + names[i] + "\n";
    else
      out += "  " + names[i] + std::string(kNameWidth - text_columns(names[i]), ' ') + row + "\n";
  }
}

void input_bound_lines(std::string& out, const Report& r);

void steps_section(std::string& out, const Report& r) {
  if (r.per_step.empty()) return;
  // One pass: every analysed step while there are few, and the slowest ones (slowest first, then
  // by number), each step decoded once and nothing held per step.
  const auto slower = [](const StepSummary& a, const StepSummary& b) {
    return a.dur_ns != b.dur_ns ? a.dur_ns > b.dur_ns : a.step < b.step;
  };
  std::vector<StepSummary> few, slowest;
  std::size_t analysed = 0;
  for (const StepSummary& s : r.per_step) {
    if (s.warmup) continue;
    if (++analysed <= kAllStepsUpTo) few.push_back(s);
    if (slowest.size() == kSlowestSteps && !slower(s, slowest.back())) continue;
    slowest.insert(std::upper_bound(slowest.begin(), slowest.end(), s, slower), s);
    if (slowest.size() > kSlowestSteps) slowest.pop_back();
  }
  std::vector<StepSummary> shown;
  if (analysed > kAllStepsUpTo) {
    shown = std::move(slowest);
    out += fmt::printf("steps (the %zu slowest of the ", kSlowestSteps) + fmt::count(r.steps) +
           " analysed)\n";
  } else {
    shown = std::move(few);
    out += "steps\n";
  }
  const bool ranks = !r.ranks.empty();
  out += (ranks ? "  " + rank_column(r) : std::string()) +
         "      step       time     input   device busy\n";
  for (const StepSummary& s : shown) {
    if (ranks)
      out += "  " + fit(rank_label(r.ranks[static_cast<std::size_t>(
                            std::clamp<int>(s.rank_index, 0, r.ranks.size() - 1))]),
                        4);
    out += right(std::to_string(s.step), 10) + right(fmt::ms(fmt::to_ms(s.dur_ns)), 11) +
           right(fmt::pct(s.input_pct), 10) +
           right(r.device.has_device ? fmt::pct(percent(s.device_busy_ns, s.dur_ns)) : "-", 14) +
           step_class(s.input_verdict) + "\n";
  }
  input_bound_lines(out, r);
}

// "highly input-bound: step 626" or "moderately input-bound: 3 steps: 1-3" (a lone number read
// as a count), each class on its line. With several processes, one line per process: step 3 of
// one host is not step 3 of another, and one merged list would read "2, 2-3, 3-4". Processes with
// the same steps share a line ("ranks 0-1, 3-255: 857 steps each: 1-857"), and a class lists at
// most kListedBoundLines lines: a job of hundreds of ranks reads in a few lines. One pass over
// the steps.
void input_bound_lines(std::string& out, const Report& r) {
  const bool ranks = !r.ranks.empty();
  const std::size_t groups = ranks ? r.ranks.size() : 1;
  std::vector<std::vector<std::int64_t>> bound[2];  // [high, moderate][process]
  for (auto& b : bound) b.resize(groups);
  for (const StepSummary& s : r.per_step) {
    if (s.warmup || (s.input_verdict != Verdict::high && s.input_verdict != Verdict::moderate))
      continue;
    bound[s.input_verdict == Verdict::high ? 0 : 1][ranks ? rank_of(r, s) : 0].push_back(s.step);
  }
  for (int v = 0; v < 2; ++v) {
    // The processes of each distinct list of steps, in process order.
    std::map<std::vector<std::int64_t>, std::vector<std::size_t>> by_steps;
    std::vector<const std::vector<std::int64_t>*> order;
    for (std::size_t g = 0; g < groups; ++g) {
      std::vector<std::int64_t>& steps = bound[v][g];
      if (steps.empty()) continue;
      std::sort(steps.begin(), steps.end());
      steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
      const auto [it, added] = by_steps.try_emplace(std::move(steps));
      it->second.push_back(g);
      if (added) order.push_back(&it->first);
    }
    std::size_t lines = 0, left = 0;
    for (const std::vector<std::int64_t>* steps : order) {
      const std::vector<std::size_t>& who = by_steps.at(*steps);
      if (lines == kListedBoundLines) {
        left += who.size();
        continue;
      }
      ++lines;
      std::string line = std::string(v == 0 ? "highly" : "moderately") + " input-bound";
      if (ranks) line += ", " + processes_text(r, who);
      line += ": " +
              (steps->size() == 1 ? std::string("step ")
                                  : std::to_string(steps->size()) +
                                        (who.size() > 1 ? " steps each: " : " steps: ")) +
              ranges(*steps);
      out += wrap(line, 2, 4);
    }
    if (left > 0)
      out +=
          wrap(std::string(v == 0 ? "highly" : "moderately") + " input-bound, " +
                   fmt::count(static_cast<std::int64_t>(left)) + " more " + rank_word(r, left > 1) +
                   " with other steps (the viewer's Steps page lists every step)",
               2, 4);
  }
}

// How many analysed steps are input-bound, each class apart with its threshold: "3 of 10 steps
// input-bound: 1 highly (input ≥ 20 %), 2 moderately (≥ 5 %)".
std::string input_bound_counts(const Report& r) {
  const std::string moderate = threshold_pct(r.step_input_bound_pct);
  const std::string all =
      fmt::count(r.input_bound_steps) + " of " + fmt::count(r.steps) + " steps input-bound";
  if (r.input_bound_steps == 0) return all + " (input ≥ " + moderate + ")";
  return all + ": " + fmt::count(r.input_bound_steps_high) + " highly (input ≥ " +
         threshold_pct(std::max(r.step_input_high_pct, r.step_input_bound_pct)) + "), " +
         fmt::count(r.input_bound_steps - r.input_bound_steps_high) + " moderately (≥ " + moderate +
         ")";
}

}  // namespace

std::string verdict_sentence(const Report& r) {
  if (r.steps == 0 || r.step_time_total_ns <= 0)
    return "No training steps recorded: there is nothing to analyse.";
  const std::string input = fmt::pct(r.input_pct) + " of step time is spent on input";
  switch (r.verdict) {
    case Verdict::high:
      return "Highly input-bound: " + input + ".";
    case Verdict::moderate:
      return "Moderately input-bound: " + input + ".";
    case Verdict::none:
      break;
  }
  // Not input-bound: say where the time goes instead.
  int top = 0;
  for (int p = 1; p < kPartCount; ++p)
    if (r.breakdown.ns[p] > r.breakdown.ns[top]) top = p;
  return "Not input-bound: " + input + "; the largest part is " + std::string(kPartLabels[top]) +
         " (" + fmt::pct(percent(r.breakdown.ns[top], r.step_time_total_ns)) + ").";
}

std::string to_text(const Report& r, const TextOptions& options) {
  std::string out = verdict_sentence(r) + "\n";
  // Gaps first: figures from a partial trace must not be read without knowing it.
  for (const std::string& w : r.warnings) out += wrap("warning     " + printable(w), 0, 12);
  out += "\n";
  out += "trace       " + printable(r.file) + "\n";
  out += wrap("run         " + run_line(r), 0, 12);
  source_lines(out, r);
  out += "steps       " + fmt::count(r.steps);
  if (r.steps > 0) {
    out += ", step time mean " + fmt::ms(r.step_time.mean_ms) + ", p50 " +
           fmt::ms(r.step_time.p50_ms) + ", p90 " + fmt::ms(r.step_time.p90_ms) + " (min " +
           fmt::ms(r.step_time.min_ms) + ", max " + fmt::ms(r.step_time.max_ms) + ")";
  }
  out += "\n";
  if (r.samples_per_s > 0)
    out += "throughput  " + fmt::count(std::llround(r.samples_per_s)) + " samples/s\n";
  phase_lines(out, r);
  if (r.host_cpu)
    out += "host CPU    " + fmt::pct(r.host_cpu->busy_pct) + " of " +
           std::to_string(r.host_cpu->cores) + " cores busy" +
           (r.host_cpu->saturated ? " (saturated: more threads cannot help)" : "") + "\n";
  if (r.steps == 0) return out;
  out += wrap("input       " + fmt::pct(r.input_pct) +
                  " of step time (input wait + host-to-device copies not overlapped by "
                  "compute); " +
                  input_bound_counts(r),
              0, 12);
  out += "\n";
  breakdown_table(out, r);
  out += "\n";
  device_section(out, r);
  out += "\n";
  if (!r.ranks.empty()) {
    ranks_section(out, r);
    out += "\n";
  } else if (r.communication_overlap_pct) {
    overlap_line(out, r);
    out += "\n";
  }
  if (r.epochs.size() >= 2) {
    epochs_section(out, r);
    out += "\n";
  }
  pipeline_section(out, r);
  if (!r.kernels.empty()) {
    out += "\n";
    kernel_section(out, r, options.wide_names);
  }
  out += "\n";
  steps_section(out, r);
  if (!r.what_if.empty()) {
    out += "\n";
    what_if_section(out, r);
  }
  out += "\n";
  levers_section(out, r);
  out += "\nrecommendations\n";
  if (r.recommendations.empty()) out += "  none: no rule found a bottleneck worth acting on\n";
  for (const std::string& rec : r.recommendations) out += wrap("- " + rec, 2, 4);
  return out;
}

}  // namespace ts::analysis
