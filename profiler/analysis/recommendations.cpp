#include "profiler/analysis/recommendations.hpp"

#include <algorithm>
#include <cctype>

#include "profiler/analysis/figure_format.hpp"
#include "profiler/analysis/pipeline_stats.hpp"
#include "profiler/analysis/ranks.hpp"
#include "profiler/analysis/step_breakdown.hpp"

namespace ts::analysis {

namespace {

const StageStat* find_stage(const PipelineStats& p, const std::string& name) {
  for (const StageStat& s : p.stages)
    if (s.stage == name) return &s;
  return nullptr;
}

}  // namespace

std::vector<std::string> input_knobs(const Report& r) {
  const PipelineStats& p = r.pipeline;
  if (r.source_format == "kineto" || r.source_format == "legacy array")
    return {"raise the DataLoader's num_workers", "set persistent_workers=True and pin_memory=True",
            "raise prefetch_factor",
            "move expensive per-sample transforms out of __getitem__ (precompute or cache them)"};
  if (r.source_format == "xplane")
    return {"give the slow map num_parallel_calls=tf.data.AUTOTUNE",
            "cache() after the expensive steps",
            "end the pipeline with prefetch(tf.data.AUTOTUNE)"};
  if (!r.source_format.empty())
    return {"parallelise the input pipeline", "prefetch batches", "cache decoded samples"};
  std::vector<std::string> knobs;
  knobs.push_back(p.workers ? fmt::printf("raise --parallel (now %d)", *p.workers)
                            : std::string("raise --parallel"));
  knobs.push_back(p.prefetch ? fmt::printf("raise --prefetch (now %d)", *p.prefetch)
                             : std::string("raise --prefetch"));
  if (!p.cache || *p.cache != "memory") knobs.push_back("use --cache memory");
  return knobs;
}

namespace {

std::string input_bound(const Report& r) {
  std::string text = "Input is " + fmt::pct(r.input_pct) + " of step time";
  if (!r.ranks.empty())
    text += " (" +
            per_rank_text(
                r, [](const RankFigures& k) { return std::optional<double>(k.input_pct); },
                [](double v) { return fmt::pct(v); }) +
            ")";
  const PipelineStats& p = r.pipeline;
  if (p.busy_during_waits_pct && *p.busy_during_waits_pct < kBusyDuringWaitsPct)
    return text + ", yet no input stage ran during " + fmt::pct(100.0 - *p.busy_during_waits_pct) +
           " of the waits: the workers sat idle while the trainer waited, so no stage is slow. "
           "The batches were not ready in time: prefetch deeper, or give the input workers a core "
           "(fewer compute threads) if the host is busy.";
  if (p.bottleneck_stage) {
    const StageStat* s = find_stage(p, *p.bottleneck_stage);
    text += " and the " + *p.bottleneck_stage + " stage is the slowest";
    if (s != nullptr) {
      text += fmt::printf(" (%s per sample on %d thread%s)",
                          fmt::duration(static_cast<std::int64_t>(s->ns_per_sample)).c_str(),
                          s->threads, s->threads == 1 ? "" : "s");
    }
  }
  text += ": ";
  if (r.host_cpu && r.host_cpu->saturated)
    return text + fmt::printf("the host's %d cores were ", r.host_cpu->cores) +
           fmt::pct(r.host_cpu->busy_pct) +
           " busy, so more input workers cannot help (they would take cores from compute): "
           "cache decoded samples, make per-sample work cheaper, or move compute to a device "
           "or a machine with more cores.";
  const std::vector<std::string> knobs = input_knobs(r);
  for (std::size_t i = 0; i < knobs.size(); ++i) {
    if (i > 0) text += i + 1 == knobs.size() ? " or " : ", ";
    text += knobs[i];
  }
  if (p.prefetch_fill_mean)
    text +=
        fmt::printf(" (the prefetch buffer held %.1f batches on average)", *p.prefetch_fill_mean);
  return text + ".";
}

std::string exposed_h2d(const Report& r) {
  const std::int64_t exposed = r.breakdown[Part::h2d];
  std::string text =
      "Host-to-device copies take " + fmt::pct(percent(exposed, r.step_time_total_ns)) +
      " of step time without overlapping compute (" + fmt::ms(fmt::to_ms(exposed)) + " of " +
      fmt::ms(fmt::to_ms(r.h2d_total_ns)) + " copied with the device otherwise idle): ";
  // Never advise what the run already does.
  if (r.pipeline.prefetch_to_device)
    return text +
           "prefetch to device is on, yet the copies are not hidden: the copy queue waits for "
           "the batch itself, so make the input faster, or copy from pinned memory.";
  return text +
         "prefetch batches to the device so that the next batch is copied while this one "
         "computes.";
}

const WhatIf* lever(const Report& r, std::string_view name) {
  for (const WhatIf& w : r.what_if)
    if (w.lever == name) return &w;
  return nullptr;
}

// What fixing it is worth, from the what-if projection of `name`: appended to a rule's text.
std::string worth(const Report& r, std::string_view name) {
  const WhatIf* w = lever(r, name);
  if (w == nullptr || w->speedup <= 1.0) return "";
  std::string text = " Worth it: " + fmt::ms(r.step_time.mean_ms) + " → " +
                     fmt::ms(w->step_time_ms) + fmt::printf(" per step (%.2f× faster)", w->speedup);
  if (w->saving_device_hours > 0)
    text += ", " + fmt::device_time(w->saving_device_hours) + " (" +
            fmt::money(w->saving, r.currency) + ") less for this run";
  return text + ".";
}

std::string idle_cost(const Report& r, const AnalysisOptions& o) {
  const DeviceStats& d = r.device;
  std::string text =
      "Device idle " + fmt::pct(d.idle_pct) + " of step time (" +
      fmt::duration(d.idle_ns / std::max<std::int64_t>(1, r.steps)) +
      " per step): " + fmt::money(o.gpu_hour_price * d.idle_pct / 100.0, o.currency) +
      " of every " + fmt::money(o.gpu_hour_price, o.currency) +
      " device-hour pays for an idle device (" +
      fmt::money_per_steps(r.idle_cost_per_1000_steps / 1000, o.currency) + ")";
  // Name the dominant cause so the reader knows which of the other recommendations pays.
  int top = 0;
  for (int c = 1; c < kIdleCauseCount; ++c)
    if (d.idle_by_cause_ns[c] > d.idle_by_cause_ns[top]) top = c;
  if (d.idle_ns > 0 && d.idle_by_cause_ns[top] > 0) {
    constexpr const char* kWhy[kIdleCauseCount] = {
        "waiting for input", "waiting in collectives (other ranks)", "waiting on the host",
        "in synchronisation", "with nothing recorded"};
    text += std::string(", mostly ") + kWhy[top] + " (" +
            fmt::pct(percent(d.idle_by_cause_ns[top], d.idle_ns)) + " of the idle time)";
  }
  return text + ".";
}

// The host time that kept the device waiting was mostly the trainer taking batches that were
// ready (our engine's input_handoff zones): not input, not launches.
std::string handoff_bound(const Report& r) {
  const std::int64_t handoff = r.breakdown[Part::input_handoff];
  std::string text = "The trainer spends " + fmt::pct(percent(handoff, r.step_time_total_ns)) +
                     " of step time (" +
                     fmt::duration(handoff / std::max<std::int64_t>(1, r.steps)) +
                     " per step) taking batches that were already made, with the device idle: "
                     "this is not input wait (input wait is " +
                     fmt::pct(percent(r.breakdown[Part::input_wait], r.step_time_total_ns)) +
                     ") but the hand-over, the input pipeline's lock and waking its workers";
  if (r.host_cpu)
    text += fmt::printf(", where on this host (%d cores, ", r.host_cpu->cores) +
            fmt::pct(r.host_cpu->busy_pct) + " busy) a woken worker can take the trainer's core";
  text +=
      ". It costs about the same for every batch whatever its size: a larger --batch spreads it "
      "over more samples";
  const PipelineStats& p = r.pipeline;
  if (r.host_cpu && p.workers && *p.workers >= r.host_cpu->cores)
    text += fmt::printf(
        ", and fewer input workers than cores (--parallel, now %d) leave the "
        "trainer a core of its own",
        *p.workers);
  return text + ".";
}

std::string host_bound(const Report& r) {
  const std::int64_t host = r.device.idle_by_cause_ns[static_cast<int>(IdleCause::host)];
  if (2 * r.breakdown[Part::input_handoff] >= host) return handoff_bound(r);
  std::int64_t kernels = 0, kernel_ns = 0;
  for (const KernelStat& k : r.kernels) {
    kernels += k.count;
    kernel_ns += k.total_ns;
  }
  std::string text = "The device waits on the host (launching work or computing) for " +
                     fmt::pct(percent(host, r.step_time_total_ns)) + " of step time";
  if (kernels > 0 && r.steps > 0) {
    text += fmt::printf(" and runs %.1f kernels per step averaging %s",
                        static_cast<double>(kernels) / static_cast<double>(r.steps),
                        fmt::duration(kernel_ns / kernels).c_str());
  }
  return text +
         ": use bigger batches and fewer, larger kernels (fuse small operations) so that each "
         "launch buys more device work.";
}

std::string sync_bound(const Report& r) {
  const std::int64_t sync = r.device.idle_by_cause_ns[static_cast<int>(IdleCause::sync)];
  return "The host is blocked on the device while the device is idle for " +
         fmt::pct(percent(sync, r.step_time_total_ns)) +
         " of step time: avoid synchronising every step (reading the loss or metrics back each "
         "step), or overlap the wait with the next step's launches.";
}

}  // namespace

double idle_cost_per_1000_steps(std::int64_t idle_ns, std::int64_t steps, double price_per_hour) {
  if (steps <= 0 || idle_ns <= 0) return 0;
  constexpr double kNsPerHour = 3600e9;
  const double idle_per_step = static_cast<double>(idle_ns) / static_cast<double>(steps);
  return idle_per_step * 1000.0 / kNsPerHour * price_per_hour;
}

std::vector<std::string> recommend(const Report& r, const AnalysisOptions& o) {
  std::vector<std::string> out;
  if (r.dropped_events > 0) {
    out.push_back(fmt::count(static_cast<std::int64_t>(r.dropped_events)) +
                  " events were dropped during capture (the trace buffers were full): every "
                  "figure here undercounts; capture a shorter run or fewer zones.");
  }
  if (r.steps == 0 || r.step_time_total_ns <= 0) return out;

  // The rules that fire, each with the device-hours its lever would save: the largest first.
  std::vector<std::pair<double, std::string>> ranked;
  auto add = [&](std::string_view lever_name, std::string text) {
    const WhatIf* w = lever(r, lever_name);
    ranked.emplace_back(w != nullptr ? w->saving_device_hours : 0.0,
                        std::move(text) + worth(r, lever_name));
  };
  const double h2d_pct = percent(r.breakdown[Part::h2d], r.step_time_total_ns);
  const bool h2d_exposed =
      h2d_pct >= kExposedH2dPct && 2 * r.breakdown[Part::h2d] >= r.h2d_total_ns;
  const bool input =
      r.verdict != Verdict::none && r.breakdown[Part::input_wait] >= r.breakdown[Part::h2d];
  if (input) add("input_hidden", input_bound(r));
  if (h2d_exposed) add(input ? "" : "input_hidden", exposed_h2d(r));

  const DeviceStats& d = r.device;
  if (d.has_device && d.idle_pct >= kIdleCostPct) {
    const auto& by = d.idle_by_cause_ns;
    const std::int64_t host = by[static_cast<int>(IdleCause::host)];
    const std::int64_t sync = by[static_cast<int>(IdleCause::sync)];
    const std::int64_t top = *std::max_element(by.begin(), by.end());
    if (host == top && percent(host, r.step_time_total_ns) >= kCausePct)
      add("host_bound_removed", host_bound(r));
    if (sync == top && percent(sync, r.step_time_total_ns) >= kCausePct)
      add("sync_removed", sync_bound(r));
  }
  if (r.straggler) {
    const auto& s = *r.straggler;
    std::string fix =
        s.cause == "input"
            ? "make its input faster (" + input_knobs(r).front() + ")"
            : "give it less work or a faster device, or balance the data across ranks";
    std::string text = r.straggler->sentence + ": " + fix + "; the others then stop waiting.";
    text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
    add("collectives_level", std::move(text));
  } else if (r.communication_verdict != Verdict::none) {
    add("collectives_level",
        "Communication is " + fmt::pct(r.communication_pct) +
            " of step time with no rank holding the others back: overlap the gradient "
            "allreduce with the backward pass (bucketing), use fewer, larger messages, or "
            "raise the batch per rank so each step computes more per byte exchanged.");
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (auto& [saving, text] : ranked) out.push_back(std::move(text));
  // What the idle time costs comes last: the rules above say what to do about it.
  if (d.has_device && d.idle_pct >= kIdleCostPct) out.push_back(idle_cost(r, o));
  return out;
}

}  // namespace ts::analysis
