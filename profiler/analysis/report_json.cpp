// to_json(Report): the stable keys first, in the order profiler/analysis/README.md lists them
// ("report --json"), then the extra figures. Milliseconds and percentages carry 3 decimals, so
// golden files stay stable across machines' float formatting.
#include "profiler/analysis/figure_format.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/json/writer.hpp"

namespace ts::analysis {

namespace {

void breakdown_ms(json::IndentedWriter& j, const Breakdown& b) {
  j.begin_object();
  for (int p = 0; p < kPartCount; ++p)
    j.field(part_name(static_cast<Part>(p)), fmt::to_ms(b.ns[p]));
  j.end_object();
}

void phase(json::IndentedWriter& j, const PhaseFigures& p) {
  j.begin_object()
      .field("name", p.name)
      .field("first_step", p.first_step)
      .field("last_step", p.last_step)
      .field("steps", p.steps)
      .field("step_time_ms", p.step_mean_ms)
      .field("input_pct", p.input_pct)
      .field("verdict", verdict_name(p.verdict))
      .field("device_idle_pct", p.device_idle_pct)
      .field("warmup", p.warmup)
      .field("why", p.why)
      .end_object();
}

void pipeline(json::IndentedWriter& j, const PipelineStats& p) {
  j.begin_object();
  j.key("workers");
  p.workers ? j.integer(*p.workers) : j.null();
  j.key("prefetch");
  p.prefetch ? j.integer(*p.prefetch) : j.null();
  j.key("cache").opt_str(p.cache);
  j.key("prefetch_fill_mean");
  p.prefetch_fill_mean ? j.num(*p.prefetch_fill_mean) : j.null();
  j.field("samples", p.samples);
  j.key("busy_during_waits_pct");
  p.busy_during_waits_pct ? j.num(*p.busy_during_waits_pct) : j.null();
  j.key("bottleneck_stage").opt_str(p.bottleneck_stage);
  j.key("stages").begin_array();
  for (const StageStat& s : p.stages) {
    j.begin_object()
        .field("stage", s.stage)
        .field("main_event", s.main_event)
        .field("count", s.count)
        .field("total_ms", fmt::to_ms(s.total_ns))
        .field("us_per_sample", s.ns_per_sample / 1e3)
        .field("threads", std::int64_t{s.threads})
        .field("utilisation_pct", s.utilisation_pct)
        .end_object();
  }
  j.end_array();
  j.end_object();
}

// A projection's figures: step time, speed-up, throughput, device-hours and money saved.
void projection_fields(json::IndentedWriter& j, const WhatIf& w) {
  j.field("step_time_ms", w.step_time_ms).field("speedup", w.speedup);
  j.field("samples_per_s", w.samples_per_s);
  j.field("device_hours", w.device_hours, 9).field("saving_device_hours", w.saving_device_hours, 9);
  j.field("saving", w.saving, 6);
}

void spread(json::IndentedWriter& j, const JobOverview::Spread& s) {
  j.begin_object().field("median", s.median).field("p90", s.p90).field("max", s.max).end_object();
}

// A rank of the job overview by its index into Report::ranks: its rank (null without one) and
// process.
void rank_keys(json::IndentedWriter& j, const Report& r, int index) {
  const RankFigures& k = r.ranks.at(static_cast<std::size_t>(index));
  j.key("rank");
  k.rank ? j.integer(*k.rank) : j.null();
  j.field("process", k.process);
}

void job(json::IndentedWriter& j, const Report& r) {
  if (!r.job) {
    j.null();
    return;
  }
  const JobOverview& o = *r.job;
  j.begin_object();
  j.field("ranks", std::int64_t{o.ranks});
  j.key("per_step_ms").begin_object();
  j.key("step_time");
  spread(j, o.step_ms);
  j.key("input");
  spread(j, o.input_ms);
  j.key("collective");
  spread(j, o.collective_ms);
  j.key("own_work");
  spread(j, o.own_ms);
  j.end_object();
  j.key("median_rank").begin_object();
  rank_keys(j, r, o.median_rank);
  j.end_object();
  j.key("worst").begin_array();
  for (const JobOverview::RankRow& w : o.worst) {
    j.begin_object();
    rank_keys(j, r, w.index);
    j.field("step_ms", w.step_ms)
        .field("input_ms", w.input_ms)
        .field("collective_ms", w.collective_ms)
        .field("own_work_ms", w.own_ms);
    j.end_object();
  }
  j.end_array();
  j.field("hold_back_threshold_ms", o.threshold_ms);
  j.key("holding_back").begin_array();
  for (const JobOverview::HoldingBack& h : o.holding_back) {
    j.begin_object();
    rank_keys(j, r, h.index);
    j.field("own_work_ms", h.own_ms)
        .field("excess_ms", h.excess_ms)
        .field("cause", h.cause)
        .field("cause_excess_ms", h.cause_excess_ms)
        .field("cause_pct", h.cause_pct)
        .field("wait_ms_per_step", h.wait_ms_per_step)
        .field("wait_ms", h.wait_ms)
        .field("wait_pct", h.wait_pct);
    j.end_object();
  }
  j.end_array();
  j.field("device_ms", o.device_ms);
  j.end_object();
}

}  // namespace

std::string to_json(const Report& r) {
  json::IndentedWriter j;
  j.begin_object();
  j.field("steps", r.steps);
  j.key("step_time_ms")
      .begin_object()
      .field("mean", r.step_time.mean_ms)
      .field("p50", r.step_time.p50_ms)
      .field("p90", r.step_time.p90_ms)
      .field("min", r.step_time.min_ms)
      .field("max", r.step_time.max_ms)
      .end_object();
  j.key("breakdown_ms");
  breakdown_ms(j, r.breakdown);
  j.field("input_pct", r.input_pct);
  j.field("verdict", verdict_name(r.verdict));
  j.field("input_bound_steps", r.input_bound_steps);
  j.field("input_bound_steps_high", r.input_bound_steps_high);
  j.field("input_bound_steps_moderate", r.input_bound_steps - r.input_bound_steps_high);

  const DeviceStats& d = r.device;
  j.key("device").begin_object();
  j.field("present", d.has_device);
  j.field("busy_pct", d.busy_pct).field("idle_pct", d.idle_pct);
  j.key("idle_by_cause_ms").begin_object();
  for (int c = 0; c < kIdleCauseCount; ++c)
    j.field(idle_cause_name(static_cast<IdleCause>(c)), fmt::to_ms(d.idle_by_cause_ns[c]));
  j.end_object();
  j.field("busy_ms", fmt::to_ms(d.busy_ns)).field("idle_ms", fmt::to_ms(d.idle_ns));
  j.field("idle_gaps", d.listed_gaps);
  if (const auto& s = r.device_sampling)  // device events on one step in K: figures extrapolated
    j.key("sampled")
        .begin_object()
        .field("every", s->every)
        .field("sampled_steps", s->sampled_steps)
        .field("steps", s->steps)
        .end_object();
  j.end_object();

  j.field("samples_per_s", r.samples_per_s);
  j.key("bottleneck_stage").opt_str(r.pipeline.bottleneck_stage);
  j.key("kernels").begin_array();
  for (const KernelStat& k : r.kernels) {
    j.begin_object()
        .field("name", k.name)
        .field("count", k.count)
        .field("total_ms", fmt::to_ms(k.total_ns))
        .field("share_pct", k.share_pct)
        .field("mean_us", static_cast<double>(k.mean_ns) / 1e3)
        .field("min_us", static_cast<double>(k.min_ns) / 1e3)
        .field("max_us", static_cast<double>(k.max_ns) / 1e3)
        .end_object();
  }
  j.end_array();
  j.key("recommendations").begin_array();
  for (const std::string& s : r.recommendations) j.str(s);
  j.end_array();

  // Beyond the stable keys listed first.
  j.field("verdict_sentence", verdict_sentence(r));
  j.key("breakdown_pct").begin_object();
  for (int p = 0; p < kPartCount; ++p)
    j.field(part_name(static_cast<Part>(p)), r.step_time_total_ns > 0
                                                 ? 100.0 * static_cast<double>(r.breakdown.ns[p]) /
                                                       static_cast<double>(r.step_time_total_ns)
                                                 : 0.0);
  j.end_object();
  j.field("step_time_total_ms", fmt::to_ms(r.step_time_total_ns));
  j.field("h2d_total_ms", fmt::to_ms(r.h2d_total_ns));
  j.key("batch");
  r.batch ? j.integer(*r.batch) : j.null();
  j.key("pipeline");
  pipeline(j, r.pipeline);
  j.field("idle_cost_per_1000_steps", r.idle_cost_per_1000_steps, 8);
  j.field("gpu_hour_price", r.gpu_hour_price).field("currency", r.currency);
  j.key("step_input_thresholds_pct")
      .begin_object()
      .field("moderate", r.step_input_bound_pct)
      .field("high", r.step_input_high_pct)
      .end_object();
  j.field("dropped_events", static_cast<std::int64_t>(r.dropped_events));
  j.key("warnings").begin_array();
  for (const std::string& w : r.warnings) j.str(w);
  j.end_array();
  j.field("events", r.events);
  j.field("model", r.model).field("backend", r.backend).field("device_name", r.device_name);
  j.key("ranks").begin_array();
  for (const RankFigures& k : r.ranks) {
    j.begin_object();
    j.key("rank");
    k.rank ? j.integer(*k.rank) : j.null();
    j.field("process", k.process).field("name", k.name).field("steps", k.steps);
    j.key("step_time_ms")
        .begin_object()
        .field("mean", k.step_time.mean_ms)
        .field("p50", k.step_time.p50_ms)
        .field("p90", k.step_time.p90_ms)
        .end_object();
    j.field("input_pct", k.input_pct).field("verdict", verdict_name(k.verdict));
    j.field("input_bound_steps", k.input_bound_steps);
    j.field("input_bound_steps_high", k.input_bound_steps_high);
    j.field("input_bound_steps_moderate", k.input_bound_steps - k.input_bound_steps_high);
    j.key("breakdown_ms");
    breakdown_ms(j, k.breakdown);
    j.field("collective_pct", k.step_time_total_ns > 0
                                  ? 100.0 * static_cast<double>(k.breakdown[Part::collective]) /
                                        static_cast<double>(k.step_time_total_ns)
                                  : 0.0);
    j.key("device").begin_object();
    j.field("present", k.has_device);
    j.field("busy_pct", k.device_busy_pct).field("idle_pct", k.device_idle_pct);
    j.key("idle_by_cause_ms").begin_object();
    for (int c = 0; c < kIdleCauseCount; ++c)
      j.field(idle_cause_name(static_cast<IdleCause>(c)), fmt::to_ms(k.idle_by_cause_ns[c]));
    j.end_object();
    j.end_object();
    j.field("samples_per_s", k.samples_per_s);
    j.key("communication_overlap_pct");
    k.communication_overlap_pct ? j.num(*k.communication_overlap_pct) : j.null();
    j.end_object();
  }
  j.end_array();
  j.key("communication").begin_object();
  j.field("pct", r.communication_pct).field("verdict", verdict_name(r.communication_verdict));
  j.key("overlap_pct");
  r.communication_overlap_pct ? j.num(*r.communication_overlap_pct) : j.null();
  j.end_object();
  j.key("straggler");
  if (r.straggler) {
    j.begin_object()
        .field("rank", r.straggler->rank)
        .field("cause", r.straggler->cause)
        .field("cause_pct", r.straggler->cause_pct)
        .field("wait_ms_per_step", r.straggler->wait_ms_per_step)
        .field("sentence", r.straggler->sentence)
        .end_object();
  } else {
    j.null();
  }
  j.field("load_imbalance_pct", r.load_imbalance_pct);
  j.key("job");
  job(j, r);
  j.key("achieved_occupancy_pct");
  r.achieved_occupancy_pct ? j.num(*r.achieved_occupancy_pct) : j.null();
  j.key("host_cpu");
  if (r.host_cpu) {
    j.begin_object()
        .field("busy_pct", r.host_cpu->busy_pct)
        .field("cores", std::int64_t{r.host_cpu->cores})
        .field("saturated", r.host_cpu->saturated)
        .end_object();
  } else {
    j.null();
  }
  j.key("phases").begin_object();
  j.key("analysed_steps")
      .begin_array()
      .integer(r.analysed_first_step)
      .integer(r.analysed_last_step)
      .end_array();
  j.key("warmup");
  if (r.warmup.steps > 0) {
    phase(j, r.warmup);
  } else {
    j.null();
  }
  j.key("whole_run");
  phase(j, r.whole_run);
  j.key("epochs").begin_array();
  for (const PhaseFigures& e : r.epochs) phase(j, e);
  j.end_array();
  j.field("before_first_step_ms", fmt::to_ms(r.before_first_step_ns));
  j.field("warmup_kernels", r.warmup_kernels);
  j.field("warmup_kernel_ms", fmt::to_ms(r.warmup_kernel_ns));
  j.end_object();
  j.field("run_device_hours", r.run_device_hours, 9);
  j.key("what_if").begin_object();
  for (const WhatIf& w : r.what_if) {
    j.key(w.lever).begin_object();
    j.field("description", w.description);
    projection_fields(j, w);
    j.end_object();
  }
  j.end_object();
  j.key("levers").begin_array();
  for (const Lever& l : r.levers) {
    j.begin_object();
    j.field("id", l.id).field("title", l.title);
    auto strings = [&j](const char* key, const std::vector<std::string>& list) {
      j.key(key).begin_array();
      for (const std::string& s : list) j.str(s);
      j.end_array();
    };
    strings("evidence", l.evidence);
    strings("points_at", l.points_at);
    strings("already_on", l.already_on);
    strings("fix", l.fix);
    j.key("projection").begin_object();
    projection_fields(j, l.projection);
    j.end_object();
    j.field("confidence", l.confidence).field("confidence_why", l.confidence_why);
    j.end_object();
  }
  j.end_array();
  j.key("source").begin_object();
  j.field("format", r.source_format.empty() ? std::string("trainscope") : r.source_format);
  j.field("steps", r.steps_source);
  j.field("whole_window", r.whole_window);
  j.key("skipped").begin_object();
  for (const auto& [reason, n] : r.skipped) j.field(reason, static_cast<std::int64_t>(n));
  j.end_object();
  j.end_object();
  j.end_object();
  return j.finish();
}

}  // namespace ts::analysis
