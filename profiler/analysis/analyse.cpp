// analyse(): one streaming pass over the trace (event_pass) makes the per-step figures, the
// kernel table and the pipeline stages; the rest is meta, sums and recommendations.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <thread>

#include "profiler/analysis/event_pass.hpp"
#include "profiler/analysis/kernel_stats.hpp"
#include "profiler/analysis/pipeline_stats.hpp"
#include "profiler/analysis/recommendations.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/analysis/step_breakdown.hpp"
#include "profiler/analysis/step_figures.hpp"
#include "profiler/analysis/steps.hpp"
#include "profiler/analysis/timeline.hpp"
#include "profiler/analysis/tracks.hpp"
#include "profiler/store/reader.hpp"

namespace ts::analysis {

namespace {

constexpr std::string_view kPrefetchCounter = "prefetch buffer fill";

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

StepTime step_time(const std::vector<StepSummary>& steps) {
  StepTime t;
  if (steps.empty()) return t;
  std::vector<std::int64_t> d;
  d.reserve(steps.size());
  double sum = 0;
  for (const StepSummary& s : steps) {
    d.push_back(s.dur_ns);
    sum += static_cast<double>(s.dur_ns);
  }
  std::sort(d.begin(), d.end());
  t.mean_ms = sum / static_cast<double>(d.size()) / 1e6;
  t.p50_ms = percentile(d, 0.5) / 1e6;
  t.p90_ms = percentile(d, 0.9) / 1e6;
  t.min_ms = static_cast<double>(d.front()) / 1e6;
  t.max_ms = static_cast<double>(d.back()) / 1e6;
  return t;
}

// Where a parallel pass cuts the trace: at step starts, so the parts hold about as many steps
// (and events) each. Empty for a single-threaded pass.
std::vector<std::int64_t> split_points(const std::vector<store::Step>& steps, int threads) {
  constexpr std::size_t kMinStepsToSplit = 256;
  constexpr int kMaxAutoThreads = 4;
  std::size_t parts = 1;
  if (threads == 0 && steps.size() >= kMinStepsToSplit) {
    parts = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, kMaxAutoThreads);
  } else if (threads > 1) {
    parts = std::min<std::size_t>(static_cast<std::size_t>(threads), steps.size());
  }
  std::vector<std::int64_t> out;
  for (std::size_t i = 1; i < parts; ++i) {
    const std::int64_t t = steps[i * steps.size() / parts].start_ns;
    if (out.empty() || t > out.back()) out.push_back(t);
  }
  return out;
}

void read_meta(const store::Reader& reader, Report& r) {
  r.batch = parse_number<std::int64_t>(reader.meta("engine.batch"));
  // A batch beyond 2^30 samples is a damaged value; dropping it keeps products in range.
  if (r.batch && (*r.batch <= 0 || *r.batch > (std::int64_t{1} << 30))) r.batch.reset();
  r.model = reader.meta("engine.model").value_or("");
  r.backend = reader.meta("engine.backend").value_or("");
  r.device_name = reader.meta("engine.device").value_or("");
  r.dropped_events = parse_number<std::uint64_t>(reader.meta("dropped_events")).value_or(0);
}

}  // namespace

Report analyse(const store::Reader& reader, const AnalysisOptions& options) {
  Report r;
  r.file = reader.path();
  read_meta(reader, r);

  const std::vector<store::Step> steps = clean_steps(reader.steps());
  const TrackTable tracks(reader.tracks(), step_tracks(steps));
  const std::vector<std::int64_t> splits = split_points(steps, options.threads);
  EventPass pass = scan_events(reader, tracks, steps, splits, options);
  StepFigures& f = pass.figures;

  r.events = pass.events;
  const store::TimeRange range =
      pass.events > 0 ? store::TimeRange{pass.first_ns, pass.last_ns} : store::TimeRange{};
  r.per_step = std::move(f.per_step);
  r.breakdown = f.breakdown;
  r.step_time_total_ns = f.step_time_total_ns;
  r.h2d_total_ns = f.h2d_total_ns;
  r.input_bound_steps = f.input_bound_steps;
  r.device.has_device = pass.device_seen;
  if (r.device.has_device) {
    r.device.busy_ns = f.busy_ns;
    r.device.idle_ns = f.idle_ns;
    r.device.idle_by_cause_ns = f.idle_by_cause_ns;
    r.device.gaps = std::move(f.gaps);
  } else {
    // No device work anywhere: the device figures stay 0 rather than "idle 100 %".
    for (StepSummary& st : r.per_step) st.device_busy_ns = 0;
  }
  r.steps = static_cast<std::int64_t>(r.per_step.size());
  r.step_time = step_time(r.per_step);
  r.input_pct = percent(input_ns(r.breakdown), r.step_time_total_ns);
  r.verdict = verdict_for(r.input_pct);
  r.device.busy_pct = percent(r.device.busy_ns, r.step_time_total_ns);
  r.device.idle_pct = percent(r.device.idle_ns, r.step_time_total_ns);
  if (r.batch && r.step_time_total_ns > 0) {
    r.samples_per_s = static_cast<double>(*r.batch) * static_cast<double>(r.steps) /
                      (static_cast<double>(r.step_time_total_ns) / 1e9);
  }
  r.gpu_hour_price = options.gpu_hour_price;
  r.currency = options.currency;
  r.idle_cost_per_1000_steps =
      idle_cost_per_1000_steps(r.device.idle_ns, r.steps, options.gpu_hour_price);

  r.kernels = pass.kernels.finish(
      [&](std::uint32_t label) -> std::string_view { return reader.label(label).name; });

  std::int64_t samples = 0;
  if (r.batch) samples = *r.batch * (pass.input_batches > 0 ? pass.input_batches : r.steps);
  r.pipeline = pass.stages.finish(samples, range.end_ns - range.start_ns);
  r.pipeline.samples = samples;
  r.pipeline.workers = parse_number<int>(reader.meta("pipeline.parallel"));
  r.pipeline.prefetch = parse_number<int>(reader.meta("pipeline.prefetch"));
  r.pipeline.cache = reader.meta("pipeline.cache");
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

  r.recommendations = recommend(r, options);
  return r;
}

}  // namespace ts::analysis
