// analyse(): one streaming pass over the trace (event_pass) makes the per-step figures, the
// kernel table and the pipeline stages; the rest is meta, sums and recommendations.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <thread>

#include "profiler/analysis/analyse_with.hpp"
#include "profiler/analysis/event_pass.hpp"
#include "profiler/analysis/interval_sorter.hpp"
#include "profiler/analysis/kernel_stats.hpp"
#include "profiler/analysis/lever_facts.hpp"
#include "profiler/analysis/levers.hpp"
#include "profiler/analysis/phases.hpp"
#include "profiler/analysis/pipeline_stats.hpp"
#include "profiler/analysis/ranks.hpp"
#include "profiler/analysis/recommendations.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/analysis/step_breakdown.hpp"
#include "profiler/analysis/step_figures.hpp"
#include "profiler/analysis/step_groups.hpp"
#include "profiler/analysis/steps.hpp"
#include "profiler/analysis/tracks.hpp"
#include "profiler/analysis/unrecorded_gaps.hpp"
#include "profiler/analysis/what_if.hpp"
#include "profiler/store/reader.hpp"
#include "trainscope/meta_keys.hpp"

namespace ts::analysis {

namespace {

constexpr std::string_view kPrefetchCounter = "prefetch buffer fill";
constexpr std::string_view kHostCpuCounter = "host CPU (cores busy)";
constexpr std::int64_t kSecond = 1'000'000'000;

template <class T>
std::optional<T> parse_number(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  T value{};
  const char* end = text->data() + text->size();
  const auto [ptr, ec] = std::from_chars(text->data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// Linear interpolation between the closest ranks (numpy's default), on sorted values.
double percentile(const std::vector<std::int64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double rank = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = rank - static_cast<double>(lo);
  return static_cast<double>(sorted[lo]) * (1 - frac) + static_cast<double>(sorted[hi]) * frac;
}

// Over the `analysed` (not warm-up) steps; their durations only are copied, into a list of their
// exact size.
StepTime step_time(const StepTable& steps, std::int64_t analysed) {
  StepTime t;
  std::vector<std::int64_t> d;
  d.reserve(static_cast<std::size_t>(std::max<std::int64_t>(0, analysed)));
  double sum = 0;
  for (const StepSummary& s : steps) {
    if (s.warmup) continue;
    d.push_back(s.dur_ns);
    sum += static_cast<double>(s.dur_ns);
  }
  if (d.empty()) return t;
  std::sort(d.begin(), d.end());
  t.mean_ms = sum / static_cast<double>(d.size()) / 1e6;
  t.p50_ms = percentile(d, 0.5) / 1e6;
  t.p90_ms = percentile(d, 0.9) / 1e6;
  t.min_ms = static_cast<double>(d.front()) / 1e6;
  t.max_ms = static_cast<double>(d.back()) / 1e6;
  return t;
}

// What a trace lacks, from its meta: the capture's losses and end, the job's ranks, the import.
void partial_data_warnings(const store::Reader& reader, Report& r) {
  if (r.dropped_events > 0)
    r.warnings.push_back(std::to_string(r.dropped_events) +
                         " events were dropped during capture (full buffers): the figures "
                         "undercount");
  if (const auto error = reader.meta(meta_key::kCaptureWriteError))
    r.warnings.push_back("the capture stopped writing after an error (" + *error +
                         "): " + reader.meta(meta_key::kCaptureEventsLost).value_or("some") +
                         " events are missing and the trace ends early");
  const bool capture = reader.meta(meta_key::kCaptureRingEvents).has_value();
  if (capture && !reader.meta(meta_key::kCaptureEndNs) && !reader.meta(meta_key::kDistWorldSize))
    r.warnings.push_back(
        "the capture did not stop (the program was killed, or is still running): the trace "
        "holds what was committed, up to about 100 ms before its end");
  if (const auto missing = reader.meta(meta_key::kDistMissingRanks); missing && !missing->empty())
    r.warnings.push_back("rank(s) " + *missing +
                         " of the job are missing or cut short: the job's figures cover the "
                         "other ranks" +
                         (reader.meta(meta_key::kDistAbsentRanks).value_or("").empty()
                              ? std::string()
                              : " (absent: " + *reader.meta(meta_key::kDistAbsentRanks) + ")"));
  if (const auto cut = reader.meta(meta_key::kImportSkippedTruncatedFile))
    r.warnings.push_back(
        "an imported file was cut off mid-write: the events after the cut are "
        "missing");
  if (const auto error = reader.meta(meta_key::kImportError))
    r.warnings.push_back("the import stopped reading a file early: " + *error);
  if (const auto far = parse_number<std::int64_t>(reader.meta(meta_key::kEventsOutOfKeyRange));
      far && *far > 0)
    r.warnings.push_back(std::to_string(*far) + (*far == 1 ? " event" : " events") +
                         " started more than 39 hours from the trace's first event and " +
                         (*far == 1 ? "was" : "were") + " not stored: the figures leave " +
                         (*far == 1 ? "it" : "them") + " out");
}

// Events whose times the analysis clamped (intervals.hpp): a start beyond ±2^61 ns or a
// duration below 0 or above 2^61 ns.
std::string clamped_times_warning(std::int64_t n) {
  return std::to_string(n) + (n == 1 ? " event has" : " events have") +
         " an impossible time (a start more than 73 years from 0, or a negative or longer "
         "duration), clamped to those limits: the figures use the clamped times";
}

void read_meta(const store::Reader& reader, Report& r) {
  r.batch = parse_number<std::int64_t>(reader.meta(meta_key::kEngineBatch));
  // A batch beyond 2^30 samples is a damaged value; dropping it keeps products in range.
  if (r.batch && (*r.batch <= 0 || *r.batch > (std::int64_t{1} << 30))) r.batch.reset();
  r.model = reader.meta(meta_key::kEngineModel).value_or("");
  r.backend = reader.meta(meta_key::kEngineBackend).value_or("");
  r.device_events_off = reader.meta(meta_key::kCaptureDeviceEvents) == "off";
  if (const auto every =
          parse_number<std::int64_t>(reader.meta(meta_key::kCaptureDeviceEventEvery));
      every && *every > 1 && !r.device_events_off)
    r.device_sampling = Report::DeviceSampling{.every = *every};
  r.recorded_steps = reader.meta(meta_key::kCaptureSteps).value_or("");
  r.device_name = reader.meta(meta_key::kEngineDevice).value_or("");
  r.dropped_events = parse_number<std::uint64_t>(reader.meta(meta_key::kDroppedEvents)).value_or(0);
  partial_data_warnings(reader, r);
  r.source_format = reader.meta(meta_key::kImportFormat).value_or("");
  r.steps_source = reader.meta(meta_key::kStepsSource).value_or("");
  constexpr std::string_view kSkipped = "import.skipped.";
  for (const auto& [key, value] : reader.meta()) {
    if (key.rfind(kSkipped, 0) != 0) continue;
    if (const auto n = parse_number<std::uint64_t>(value); n && *n > 0)
      r.skipped.emplace_back(key.substr(kSkipped.size()), *n);
  }
}

// Marks each step of a pass warm-up or analysed (the selection's flags follow the pass's steps
// in time order, as the pass closes them) and gives it its epoch.
void mark_steps(StepTable& per_step, const StepSelection& sel, const RunShape& shape) {
  std::size_t i = 0;
  per_step.update([&](StepSummary& s) {
    s.warmup = i < sel.analysed.size() && !sel.analysed[i];
    s.epoch = epoch_of(shape, s.step);
    ++i;
  });
}

// With device events on a sample of steps: the steps that hold none (no device event carries
// their number) have unknown device figures, which must not count as idle.
void mark_device_sampled(EventPass& pass, const Report& r) {
  if (!r.device_sampling) return;
  std::vector<std::int64_t>& held = pass.device_steps;
  std::sort(held.begin(), held.end());
  held.erase(std::unique(held.begin(), held.end()), held.end());
  StepFigures& f = pass.figures;
  std::vector<std::int64_t> unsampled;
  std::size_t i = 0;
  f.per_step.update([&](StepSummary& s) {
    s.device_sampled = std::binary_search(held.begin(), held.end(), s.step);
    if (!s.device_sampled) {
      unsampled.push_back(s.step);
      if (i < f.listed_gaps_per_step.size()) f.listed_gaps -= f.listed_gaps_per_step[i];
    }
    ++i;
  });
  // An unsampled step's "gaps" are the whole step: no device idle time to list.
  std::sort(unsampled.begin(), unsampled.end());
  std::erase_if(f.gaps, [&](const IdleGap& g) {
    return std::binary_search(unsampled.begin(), unsampled.end(), g.step);
  });
}

// Kernels run on the sampled steps only: their counts and totals, extrapolated to the analysed
// steps as device busy is (sum_analysed), so that per-step figures made from them hold.
void extrapolate_kernels(Report& r) {
  if (!r.device_sampling || r.device_sampling->sampled_steps <= 0) return;
  const double f = static_cast<double>(r.device_sampling->steps) /
                   static_cast<double>(r.device_sampling->sampled_steps);
  for (KernelStat& k : r.kernels) {
    k.count = std::llround(static_cast<double>(k.count) * f);
    k.total_ns = std::llround(static_cast<double>(k.total_ns) * f);
  }
}

// The step-dependent figures of one pass (the whole trace, or one process of it), over the
// analysed steps.
void fill_figures(Report& r, EventPass& pass) {
  StepFigures& f = pass.figures;
  r.per_step = std::move(f.per_step);
  f.listed_gaps_per_step = {};  // mark_device_sampled() was its only use
  r.device.has_device = pass.device_seen;
  if (r.device.has_device) {
    r.device.gaps = std::move(f.gaps);
    r.device.listed_gaps = f.listed_gaps;
  } else {
    // No device work anywhere: the device figures stay 0 rather than "idle 100 %".
    // (Nothing to change when no step recorded any: the usual case.)
    if (f.busy_ns != 0) r.per_step.update([](StepSummary& st) { st.device_busy_ns = 0; });
  }
  sum_analysed(r.per_step, r);
  r.step_time = step_time(r.per_step, r.steps);  // sum_analysed() counted the analysed steps
  if (r.batch && r.step_time_total_ns > 0) {
    r.samples_per_s = static_cast<double>(*r.batch) * static_cast<double>(r.steps) /
                      (static_cast<double>(r.step_time_total_ns) / 1e9);
  }
}

RankFigures rank_figures(const store::Reader& reader, std::int64_t process, const Report& r) {
  RankFigures k;
  k.process = process;
  if (const store::Process* p = reader.process(process)) {
    k.name = p->name;
    if (p->rank != store::kNull) k.rank = p->rank;
  }
  k.steps = r.steps;
  k.step_time = r.step_time;
  k.breakdown = r.breakdown;
  k.step_time_total_ns = r.step_time_total_ns;
  k.input_pct = r.input_pct;
  k.verdict = r.verdict;
  k.input_bound_steps = r.input_bound_steps;
  k.input_bound_steps_high = r.input_bound_steps_high;
  k.has_device = r.device.has_device;
  k.device_busy_pct = r.device.busy_pct;
  k.device_idle_pct = r.device.idle_pct;
  k.idle_by_cause_ns = r.device.idle_by_cause_ns;
  k.samples_per_s = r.samples_per_s;
  return k;
}

// Puts the steps in order of their start (stable), through a list of starts and places (16 bytes
// a step) rather than the steps decoded; packs them again only when they were out of order.
void sort_by_start(StepTable& steps) {
  std::vector<std::pair<std::int64_t, std::size_t>> order;
  order.reserve(steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) order.emplace_back(steps[i].start_ns, i);
  const auto earlier = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (std::is_sorted(order.begin(), order.end(), earlier)) return;
  std::stable_sort(order.begin(), order.end(), earlier);
  StepTable sorted;
  sorted.reserve(steps.size());
  for (const auto& [start, i] : order) sorted.push_back(steps[i]);
  sorted.shrink_to_fit();
  steps = std::move(sorted);
}

// Several processes: each is analysed on its own (its steps, its tracks), then their passes
// merge into the figures of the whole trace.
EventPass analyse_groups(const store::Reader& reader, const std::vector<StepGroup>& groups,
                         const std::vector<StepSelection>& selections, const RunShape& shape,
                         const TrackTable& tracks, const AnalysisOptions& options, Report& r) {
  std::vector<std::span<const store::Step>> steps;  // the passes keep these spans
  std::vector<Interval> windows, stage_windows;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    steps.emplace_back(groups[g].steps);
    windows.push_back(selections[g].window);
    stage_windows.push_back(selections[g].stage_window);
  }
  std::vector<EventPass> passes =
      scan_groups(reader, tracks, steps, windows, stage_windows, options);
  for (std::size_t g = 0; g < passes.size(); ++g) {
    mark_steps(passes[g].figures.per_step, selections[g], shape);
    mark_device_sampled(passes[g], r);
    passes[g].figures.per_step.update(
        [g](StepSummary& st) { st.rank_index = static_cast<int>(g); });
    Report one;
    one.batch = r.batch;
    one.device_sampling = r.device_sampling;
    EventPass copy = passes[g];  // fill_figures takes the per-step lists
    fill_figures(one, copy);
    r.ranks.push_back(rank_figures(reader, groups[g].process, one));
  }
  for (std::size_t g = 1; g < passes.size(); ++g) passes[0].merge(std::move(passes[g]));
  EventPass& all = passes[0];
  sort_by_start(all.figures.per_step);
  std::stable_sort(all.figures.gaps.begin(), all.figures.gaps.end(),
                   [](const IdleGap& a, const IdleGap& b) { return a.start_ns < b.start_ns; });
  return std::move(all);
}

// A stage is the bottleneck only if the pipeline was working while the trainer waited: when
// no input stage ran during most of the waits, the workers were idle (too little prefetch, or
// they did not get a core), and naming the slowest stage would point at the wrong fix.
void honest_bottleneck(Report& r) {
  std::int64_t wait = 0, working = 0;
  for (const StepSummary& s : r.per_step) {
    if (s.warmup) continue;
    wait = sat_add(wait, s.input_wait_all_ns);
    working = sat_add(working, s.input_work_in_wait_ns);
  }
  if (wait <= 0 || r.pipeline.stages.empty()) return;
  r.pipeline.busy_during_waits_pct = percent(working, wait);
  if (*r.pipeline.busy_during_waits_pct < kBusyDuringWaitsPct) r.pipeline.bottleneck_stage.reset();
}

// The host's CPU load over the analysed window (capture's counter, samples every commit).
void host_cpu(const store::Reader& reader, Interval window, Report& r) {
  const auto cores = parse_number<int>(reader.meta(meta_key::kHostCores));
  if (!cores || *cores <= 0 || window.length() <= 0) return;
  for (const store::Track& t : reader.tracks()) {
    if (t.kind != trace::TrackKind::counter || t.name != kHostCpuCounter) continue;
    // A sample covers the interval before it (CPU time since the previous sample).
    const auto samples = reader.counter(t.id, window.start, sat_add(window.end, kSecond));
    std::vector<store::CounterSample> shifted;
    for (std::size_t i = 1; i < samples.size(); ++i)
      shifted.push_back({samples[i - 1].ts_ns, samples[i].value});
    const auto mean = time_weighted_mean(shifted, samples.empty() ? 0 : samples.back().ts_ns);
    if (!mean) return;
    Report::HostCpu h;
    h.cores = *cores;
    h.busy_pct = std::clamp(100.0 * *mean / *cores, 0.0, 100.0);
    h.saturated = h.busy_pct >= kSaturatedCpuPct;
    r.host_cpu = h;
    return;
  }
}

// The whole run, its warm-up and its epochs.
void fill_phases(Report& r, const RunShape& shape, const std::string& why) {
  // The whole run and its warm-up in one pass over the steps. The warm-up is what was left out
  // before the analysed steps; steps after a --steps range are not warm-up (the whole run counts
  // them).
  PhaseSums whole_sums, warm_sums;
  std::int64_t run_ns = 0;
  for (const StepSummary& s : r.per_step) {
    whole_sums.add(s);
    if (s.warmup && s.step < r.analysed_first_step) warm_sums.add(s);
    run_ns = sat_add(run_ns, s.dur_ns);
  }
  if (auto whole = whole_sums.figures()) {
    r.whole_run = *whole;
    r.whole_run.name = "whole run";
  }
  if (auto warm = warm_sums.figures()) {
    r.warmup = *warm;
    r.warmup.name = "warm-up";
    r.warmup.warmup = true;
    r.warmup.why = why;
  }
  r.epochs = epoch_figures(r.per_step, shape, why);
  r.run_device_hours = static_cast<double>(run_ns) / 3600e9;
}

}  // namespace

Report analyse(const store::Reader& reader, const AnalysisOptions& options) {
  return analyse_with(reader, options, [&](const OnePass& p) {
    return scan_events(reader, p.tracks, p.steps, split_points(p.steps, options.threads), options,
                       p.selection.window, p.selection.stage_window);
  });
}

Report analyse_with(const store::Reader& reader, const AnalysisOptions& options,
                    const std::function<EventPass(const OnePass&)>& one_pass) {
  Report r;
  r.file = reader.path();
  read_meta(reader, r);

  std::vector<store::Step> raw_steps = reader.steps();
  if (raw_steps.empty()) {
    if (const std::optional<store::Step> whole = whole_window_step(reader)) {
      raw_steps.push_back(*whole);
      r.whole_window = true;
      // The import's own sentence says what it looked for.
      r.steps_source = std::string(kWholeWindowSource) +
                       (r.steps_source.empty() ? std::string() : " (" + r.steps_source + ")");
    }
  }
  const std::vector<std::uint32_t> trainers = trainer_tracks(reader, step_tracks(raw_steps));
  const std::vector<StepGroup> groups = step_groups(reader, std::move(raw_steps));
  const RunShape shape = run_shape(reader);
  std::vector<StepSelection> selections;
  for (const StepGroup& g : groups) selections.push_back(select_steps(g.steps, shape, options));
  auto one_group = [&] {
    const std::span<const store::Step> steps =
        groups.empty() ? std::span<const store::Step>{} : std::span(groups.front().steps);
    const TrackTable tracks = group_track_table(reader, groups, trainers);
    EventPass pass = groups.empty() ? scan_events(reader, tracks, steps, {}, options)
                                    : one_pass({tracks, steps, selections.front()});
    if (!selections.empty()) mark_steps(pass.figures.per_step, selections.front(), shape);
    mark_device_sampled(pass, r);
    return pass;
  };
  auto several_groups = [&] {
    const TrackTable tracks = group_track_table(reader, groups, trainers);
    return analyse_groups(reader, groups, selections, shape, tracks, options, r);
  };
  EventPass pass = groups.size() > 1 ? several_groups() : one_group();

  r.events = pass.events;
  if (pass.clamped_events > 0) r.warnings.push_back(clamped_times_warning(pass.clamped_events));
  const store::TimeRange range =
      pass.events > 0 ? store::TimeRange{pass.first_ns, pass.last_ns} : store::TimeRange{};
  fill_figures(r, pass);
  if (!r.ranks.empty()) {
    // Ranks train side by side: the job's rate is the sum of theirs.
    r.samples_per_s = 0;
    for (const RankFigures& k : r.ranks) r.samples_per_s += k.samples_per_s;
  }
  fill_phases(r, shape, selections.empty() ? std::string() : selections.front().why);
  r.warmup_kernels = pass.warmup_kernels;
  r.warmup_kernel_ns = pass.warmup_kernel_ns;
  if (!groups.empty() && pass.events > 0) {
    std::int64_t first_step = INT64_MAX;
    for (const StepGroup& g : groups)
      if (!g.steps.empty()) first_step = std::min(first_step, g.steps.front().start_ns);
    r.before_first_step_ns = std::max<std::int64_t>(0, first_step - pass.first_ns);
  }
  r.gpu_hour_price = options.gpu_hour_price;
  r.step_input_bound_pct = options.step_input_bound_pct;
  r.step_input_high_pct = options.step_input_high_pct;
  r.currency = options.currency;
  r.idle_cost_per_1000_steps =
      idle_cost_per_1000_steps(r.device.idle_ns, r.steps, options.gpu_hour_price);

  r.kernels = pass.kernels.finish(
      [&](std::uint32_t label) -> std::string_view { return reader.label(label).name; });
  extrapolate_kernels(r);

  // Pipeline figures over the analysed steps' span (the whole trace when nothing was left out).
  Interval analysed{0, 0};
  bool all_steps = true;
  for (const StepSelection& s : selections) {
    all_steps = all_steps && s.stage_window.start == kAllTime.start;
    analysed = analysed.length() == 0 ? s.window
                                      : Interval{std::min(analysed.start, s.window.start),
                                                 std::max(analysed.end, s.window.end)};
  }
  std::int64_t samples = 0;
  if (r.batch) samples = *r.batch * (pass.input_batches > 0 ? pass.input_batches : r.steps);
  r.pipeline = pass.stages.finish(
      samples,
      !all_steps && analysed.length() > 0 ? analysed.length() : range.end_ns - range.start_ns,
      [&](std::uint32_t label) -> std::string_view { return reader.label(label).name; });
  r.pipeline.samples = samples;
  r.pipeline.workers = parse_number<int>(reader.meta(meta_key::kPipelineParallel));
  r.pipeline.prefetch = parse_number<int>(reader.meta(meta_key::kPipelinePrefetch));
  r.pipeline.cache = reader.meta(meta_key::kPipelineCache);
  honest_bottleneck(r);
  r.pipeline.prefetch_to_device =
      reader.meta(meta_key::kPipelineOptions).value_or("").find("prefetch to device") !=
      std::string::npos;
  for (const store::Track& t : reader.tracks()) {
    if (t.kind != trace::TrackKind::counter || t.name != kPrefetchCounter) continue;
    // Counter samples are not events: they may lie outside the events' time range.
    const auto fill = reader.counter(t.id, std::numeric_limits<std::int64_t>::min(),
                                     std::numeric_limits<std::int64_t>::max());
    const std::int64_t end =
        fill.empty() ? range.end_ns : std::max(range.end_ns, fill.back().ts_ns);
    r.pipeline.prefetch_fill_mean = time_weighted_mean(fill, end);
    break;
  }

  host_cpu(reader, analysed, r);
  analyse_ranks(r);
  r.what_if = what_if(r, options);
  r.recommendations = recommend(r, options);
  if (const auto occupancy =
          parse_number<double>(reader.meta(meta_key::kKernelsAchievedOccupancyPct));
      occupancy && *occupancy >= 0 && *occupancy <= 100)  // NaN and nonsense: not a figure
    r.achieved_occupancy_pct = *occupancy;
  const TrackTable lever_tracks = group_track_table(reader, groups, trainers);
  LeverFacts facts = lever_facts(reader, lever_tracks, r);
  facts.unrecorded_gaps = longest_unrecorded_gaps(reader, lever_tracks, r);
  communication_overlap(facts, r);
  r.levers = levers(r, options, facts);
  return r;
}

}  // namespace ts::analysis
