#include "gui/models/summary_builder.hpp"

#include <algorithm>
#include <optional>

#include "profiler/import_cache/overview_cache.hpp"
#include "profiler/store/overview_builder.hpp"
#include "profiler/store/overview_codec.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/schema.hpp"

namespace ts::gui {

namespace {

void publish_whole(TraceSummary& summary, store::Overview&& overview, SummaryData::Source source) {
  summary.write([&](SummaryData& d) {
    static_cast<store::Overview&>(d) = std::move(overview);
    d.scanned_until_ns = store::sat_add(d.end_ns, 1);
    d.source = source;
    d.done = true;
  });
}

// Scans the trace in time chunks, publishing after each; returns false when cancelled.
bool scan(const store::Reader& reader, TraceSummary& summary, const std::atomic<bool>& cancel,
          const std::function<void(double)>& progress) {
  const store::TimeRange range = reader.time_range();
  store::Overview staging;
  staging.counters = store::read_counters(reader);
  store::OverviewBuilder builder(range, reader.tracks(), staging);
  summary.write([&](SummaryData& d) {
    static_cast<store::Overview&>(d) = staging;
    d.scanned_until_ns = range.start_ns;
  });
  const auto label_of = [&](std::uint32_t id) -> const store::Label& { return reader.label(id); };
  const double span = static_cast<double>(range.end_ns) - static_cast<double>(range.start_ns) + 1;
  // Chunks of at least four long-event lookbacks, so the reader's lookback stays cheap.
  const int chunks = static_cast<int>(std::clamp(span / (4.0 * store::kLongEventNs), 1.0, 32.0));
  const auto chunk_end = [&](int k) {
    return k >= chunks ? store::sat_add(range.end_ns, 1)
                       : range.start_ns + static_cast<std::int64_t>(span * k / chunks);
  };
  for (int k = 0; k < chunks; ++k) {
    if (cancel.load()) return false;
    const std::int64_t t0 = chunk_end(k), t1 = chunk_end(k + 1);
    reader.scan(t0, t1, 0, [&](const store::Event& e) {
      if (e.start_ns >= t0) builder.take(e);
    });
    const bool last = k + 1 == chunks;
    summary.write([&](SummaryData& d) {
      builder.publish(d, label_of, last);
      d.scanned_until_ns = t1;
      d.done = last;
    });
    if (progress) progress(static_cast<double>(k + 1) / chunks);
  }
  return true;
}

}  // namespace

void build_summary(const std::string& path, TraceSummary& summary, const std::atomic<bool>& cancel,
                   const std::function<void(double)>& progress, const SummarySources& sources) {
  try {
    const store::Reader reader(path, sources.snapshot);
    if (sources.stored) {
      if (std::optional<store::Overview> o = store::stored_overview(reader)) {
        publish_whole(summary, std::move(*o), SummaryData::Source::stored);
        if (progress) progress(1.0);
        return;
      }
    }
    if (sources.live) {
      if (sources.live->build(reader, summary, cancel) && progress) progress(1.0);
      return;
    }
    // A trace with events staged by a capture still running (or killed) changes, or will be
    // recovered: its overview is neither taken from nor kept in the cache.
    const bool keepable = sources.cache && !reader.staged_events_indexed();
    if (keepable) {
      if (std::optional<store::Overview> o = import::cached_overview(path, sources.cache_dir)) {
        publish_whole(summary, std::move(*o), SummaryData::Source::cache);
        if (progress) progress(1.0);
        return;
      }
    }
    if (!scan(reader, summary, cancel, progress) || !keepable) return;
    summary.read([&](const SummaryData& d) { import::keep_overview(path, d, sources.cache_dir); });
  } catch (const std::exception& e) {
    summary.write([&](SummaryData& d) { d.error = e.what(); });
    throw;
  }
}

}  // namespace ts::gui
