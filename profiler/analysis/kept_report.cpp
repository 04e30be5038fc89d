#include "profiler/analysis/kept_report.hpp"

#include <chrono>
#include <cstdio>

#include "profiler/analysis/report_codec.hpp"
#include "profiler/store/analysis_table.hpp"
#include "profiler/store/error.hpp"
#include "profiler/store/events_checksum.hpp"

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

void drop(KeptUse* use, std::string why) {
  if (!use) return;
  use->outcome = KeptUse::Outcome::dropped;
  use->why = std::move(why);
}

// Whether the trace keeps any part under `key`.
bool keeps_parts(const store::Reader& reader, const std::string& key) {
  bool any = false;
  reader.kept_analysis(key, [&](std::string_view, std::uint64_t) { return !(any = true); });
  return any;
}

// The report kept for `options` when its seal holds (kept_report.hpp), whether or not it holds
// the gaps the caller needs; its steps go to `sink` when there is one. `use` says why not.
std::optional<Report> decode_kept(const store::Reader& reader, const AnalysisOptions& options,
                                  StepSink* sink, KeptUse* use, bool check_later) {
  ReportDecoder decoder;
  if (sink) decoder.set_step_sink([sink](std::vector<StepSummary>& steps) { sink->take(steps); });
  try {
    const std::string key = trace_key(reader, options);
    const std::optional<std::string> sealed = reader.kept_analysis_seal(key);
    const std::optional<store::KeptSeal> seal = sealed ? store::decode_seal(*sealed) : std::nullopt;
    if (!seal) {
      if (keeps_parts(reader, key)) drop(use, "the analysis kept in the trace has no valid seal");
      return std::nullopt;
    }
    // Checked later (events_unchanged()): the report is decoded against the checksum it was
    // sealed with, which the trace's pages must then give.
    const auto start = std::chrono::steady_clock::now();
    const std::optional<store::EventsChecksum> events =
        check_later ? std::optional<store::EventsChecksum>(store::EventsChecksum{seal->events, 0})
                    : store::events_checksum(reader.path());
    if (check_later && use) use->check_later = seal->events;
    if (use) {
      use->check_seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      use->checked_bytes = events ? events->bytes : 0;
    }
    if (!events) {
      drop(use, "the trace's stored pages could not be checked against the kept analysis");
      return std::nullopt;
    }
    if (events->checksum != seal->events) {
      drop(use,
           "the events are not those the analysis kept in the trace was made from (edited "
           "since, or the analysis copied from another trace)");
      return std::nullopt;
    }
    store::SealHash parts(events->checksum, key);
    std::size_t index = 0;
    const bool read = reader.kept_analysis(key, [&](std::string_view part, std::uint64_t all) {
      parts.part(part);
      if (sink && index > 0) sink->kept_part(key, index, part);  // part 0 is the head
      ++index;
      return decoder.add(part, all);
    });
    if (read && parts.digest() != seal->parts) {
      drop(use,
           "the analysis kept in the trace is not the one sealed with its events (copied "
           "from another trace or altered)");
      return std::nullopt;
    }
    if (!read) {
      drop(use, "the analysis kept in the trace does not decode");
      return std::nullopt;
    }
  } catch (const store::Error&) {
    return std::nullopt;  // the analysis reads the file again and names what is wrong with it
  }
  std::optional<Report> report = decoder.finish();
  if (!report) {
    drop(use, "the analysis kept in the trace does not decode");
    return std::nullopt;
  }
  report->file = reader.path();
  if (use) use->outcome = KeptUse::Outcome::reused;
  return report;
}

bool lacks_gaps(const Report& report, const AnalysisOptions& options) {
  return options.keep_gaps && report.device.listed_gaps > 0;
}

}  // namespace

std::optional<Report> kept_report(const store::Reader& reader, const AnalysisOptions& options) {
  std::optional<Report> report = decode_kept(reader, options, nullptr, nullptr, false);
  if (report && lacks_gaps(*report, options)) return std::nullopt;
  return report;
}

bool keeps_report(const store::Reader& reader, const AnalysisOptions& options) {
  try {
    return keeps_parts(reader, trace_key(reader, options));
  } catch (const std::exception&) {
    return false;
  }
}

bool keep_report(const store::Reader& reader, const Report& report,
                 const AnalysisOptions& options) {
  return store::keep_analysis(reader.path(), trace_key(reader, options), analysis_build_id(),
                              report_parts(report),
                              [&](std::size_t part) { return encode_report_part(report, part); });
}

namespace {

Report reuse_or_analyse(const store::Reader& reader, const AnalysisOptions& options,
                        std::int64_t keep_from_events, StepSink* sink, KeptUse* use,
                        KeptCheck check = KeptCheck::now) {
  KeptUse local;
  KeptUse& how = use ? *use : local;
  how = KeptUse{};
  std::optional<Report> kept = check == KeptCheck::afresh ? std::nullopt
                                                          : decode_kept(reader, options, sink, &how,
                                                                        check == KeptCheck::later);
  if (kept && !lacks_gaps(*kept, options)) return std::move(*kept);
  if (kept) how = KeptUse{};  // kept without the gaps asked for: analysed, as when none is kept
  if (sink) sink->discard();
  Report report = analyse(reader, options);
  // A kept report without the gaps asked for stays: keeping this one would only write it again.
  const bool keeps = !kept && report.events >= keep_from_events &&
                     !reader.staged_events_indexed() && !reader.snapshot() &&
                     keep_report(reader, report, options);
  // One that failed its check and was not replaced goes (where the file can be written).
  if (!keeps && how.outcome == KeptUse::Outcome::dropped)
    store::forget_kept_analysis(reader.path(), trace_key(reader, options));
  if (sink) hand_over(report.per_step, *sink);
  return report;
}

}  // namespace

void hand_over(StepTable& steps, StepSink& sink) {
  std::vector<StepSummary> run;
  for (std::size_t at = 0; at < steps.size(); at += kStepsPerPart) {
    const auto first = steps.begin() + static_cast<std::ptrdiff_t>(at);
    run.assign(first,
               first + static_cast<std::ptrdiff_t>(std::min(kStepsPerPart, steps.size() - at)));
    sink.take(run);
  }
  steps = {};
}

Report analyse_or_reuse(const store::Reader& reader, const AnalysisOptions& options,
                        std::int64_t keep_from_events, KeptUse* use) {
  return reuse_or_analyse(reader, options, keep_from_events, nullptr, use);
}

Report analyse_or_reuse(const store::Reader& reader, const AnalysisOptions& options,
                        StepSink& steps, std::int64_t keep_from_events, KeptUse* use) {
  return reuse_or_analyse(reader, options, keep_from_events, &steps, use);
}

Report analyse_or_reuse(const store::Reader& reader, const AnalysisOptions& options,
                        StepSink& steps, KeptCheck check, KeptUse& use) {
  return reuse_or_analyse(reader, options, kKeepFromEvents, &steps, &use, check);
}

bool events_unchanged(const std::string& path, std::uint64_t sealed, KeptUse* use) {
  const auto start = std::chrono::steady_clock::now();
  const std::optional<store::EventsChecksum> events = store::events_checksum(path);
  if (use) {
    use->check_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    use->checked_bytes = events ? events->bytes : 0;
  }
  return events && events->checksum == sealed;
}

std::string KeptUse::line() const {
  switch (outcome) {
    case Outcome::none:
      return {};
    case Outcome::reused: {
      if (check_later && checked_bytes == 0)
        return "analysis kept in the trace, its events not checked yet";
      const bool gb = checked_bytes >= 1'000'000'000;
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "analysis kept in the trace, events unchanged (%.*f %s of pages checked in "
                    "%.2f s)",
                    gb ? 2 : 1, static_cast<double>(checked_bytes) / (gb ? 1e9 : 1e6),
                    gb ? "GB" : "MB", check_seconds);
      return buf;
    }
    case Outcome::dropped:
      return "analysed afresh: " + why;
  }
  return {};
}

}  // namespace ts::analysis
