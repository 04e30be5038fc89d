#include "profiler/analysis/kept_report.hpp"

#include <cstdio>

#include "profiler/analysis/report_codec.hpp"
#include "profiler/store/analysis_table.hpp"
#include "profiler/store/error.hpp"

namespace ts::analysis {

namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

std::string kept_report_key(const AnalysisOptions& o) {
  // Not threads (the figures do not depend on it) nor keep_gaps (a kept report lists no gap).
  std::string key(analysis_build_id());
  key += " input_bound_pct=" + number(o.step_input_bound_pct);
  key += " input_high_pct=" + number(o.step_input_high_pct);
  key += " price=" + number(o.gpu_hour_price) + " currency=" + o.currency;
  key += " min_listed_gap_ns=" + std::to_string(o.min_listed_gap_ns);
  key += " steps=";
  if (o.steps) key += std::to_string(o.steps->first) + ":" + std::to_string(o.steps->second);
  key += " skip_warmup=" + std::to_string(o.skip_warmup);
  return key;
}

namespace {

// The key under which the trace `reader` reads keeps a report for `options`: kept_report_key and
// the keys of the trace's first and last events (two lookups), so that even events added or
// removed at either end outside trainscope miss it.
std::string trace_key(const store::Reader& reader, const AnalysisOptions& options) {
  const auto [first, last] = reader.first_last_keys();
  return kept_report_key(options) + " events=" + std::to_string(first) + ":" + std::to_string(last);
}

// The report kept for `options`, whether or not it holds the gaps the caller needs; its steps
// go to `sink` when there is one.
std::optional<Report> decode_kept(const store::Reader& reader, const AnalysisOptions& options,
                                  StepSink* sink = nullptr) {
  ReportDecoder decoder;
  if (sink) decoder.set_step_sink([sink](std::vector<StepSummary>& steps) { sink->take(steps); });
  try {
    const std::string key = trace_key(reader, options);
    std::size_t index = 0;
    if (!reader.kept_analysis(key, [&](std::string_view part, std::uint64_t all_bytes) {
          if (sink && index > 0) sink->kept_part(key, index, part);  // part 0 is the head
          ++index;
          return decoder.add(part, all_bytes);
        }))
      return std::nullopt;
  } catch (const store::Error&) {
    return std::nullopt;  // the analysis reads the file again and names what is wrong with it
  }
  std::optional<Report> report = decoder.finish();
  if (report) report->file = reader.path();
  return report;
}

bool lacks_gaps(const Report& report, const AnalysisOptions& options) {
  return options.keep_gaps && report.device.listed_gaps > 0;
}

}  // namespace

std::optional<Report> kept_report(const store::Reader& reader, const AnalysisOptions& options) {
  std::optional<Report> report = decode_kept(reader, options);
  if (report && lacks_gaps(*report, options)) return std::nullopt;
  return report;
}

bool keep_report(const store::Reader& reader, const Report& report,
                 const AnalysisOptions& options) {
  return store::keep_analysis(reader.path(), trace_key(reader, options), analysis_build_id(),
                              report_parts(report),
                              [&](std::size_t part) { return encode_report_part(report, part); });
}

namespace {

Report reuse_or_analyse(const store::Reader& reader, const AnalysisOptions& options,
                        std::int64_t keep_from_events, StepSink* sink) {
  std::optional<Report> kept = decode_kept(reader, options, sink);
  if (kept && !lacks_gaps(*kept, options)) return std::move(*kept);
  if (sink) sink->discard();
  Report report = analyse(reader, options);
  // A kept report without the gaps asked for stays: keeping this one would only write it again.
  if (!kept && report.events >= keep_from_events && !reader.staged_events_indexed() &&
      !reader.snapshot())
    keep_report(reader, report, options);
  if (sink) {
    sink->take(report.per_step);
    report.per_step = {};
  }
  return report;
}

}  // namespace

Report analyse_or_reuse(const store::Reader& reader, const AnalysisOptions& options,
                        std::int64_t keep_from_events) {
  return reuse_or_analyse(reader, options, keep_from_events, nullptr);
}

Report analyse_or_reuse(const store::Reader& reader, const AnalysisOptions& options,
                        StepSink& steps, std::int64_t keep_from_events) {
  return reuse_or_analyse(reader, options, keep_from_events, &steps);
}

}  // namespace ts::analysis
