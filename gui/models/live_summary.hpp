// The timeline's summary (summary_builder.hpp) of a capture still running, reload after reload.
// A fresh summary scans every event; this one keeps the builder's state (store::OverviewBuilder)
// after the events starting before a time a little before the trace's end (kSettleNs), and the
// next reload takes only the events from there on, when the capture committed nothing earlier
// since (store::Reader::changed_from_ns).
//
// The builder's resolution and search bins follow its extent, which grows with the capture: the
// summary's extent is the trace's start and a span rounded up to a power of two of at least 5/4
// of the trace's (SummaryData::content_end_ns says where the trace ends), so it stays the same
// until the trace outgrows it, and is then built again over a span twice as long. A summary is
// exactly store::build_overview() over that extent (tests compare them), reload after reload.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "gui/models/trace_summary.hpp"
#include "profiler/analysis/changed_from.hpp"
#include "profiler/store/overview_builder.hpp"
#include "profiler/store/reader.hpp"

namespace ts::gui {

class LiveSummary {
 public:
  static constexpr std::int64_t kSettleNs = 2'000'000'000;
  explicit LiveSummary(std::int64_t settle_ns = kSettleNs) : settle_ns_(settle_ns) {}

  // The trace gained events starting at or after `from_ns` (INT64_MIN: anything may have
  // changed). Thread-safe; the earliest noted since the last build counts.
  void note_changed(std::int64_t from_ns) { changed_.note(from_ns); }

  // Fills `summary` with the summary of the trace `reader` reads. Returns false, leaving it
  // unfinished, when `cancel` became true. Throws store::Error (the changes noted stay noted).
  bool build(const store::Reader& reader, TraceSummary& summary, const std::atomic<bool>& cancel);

  // The extent a summary of `range` is built over.
  static store::TimeRange extent_for(const store::TimeRange& range);
  // Of the last build's events, how many the kept state had taken (0: it read every event).
  std::uint64_t reused_events() const;

 private:
  struct Kept {
    store::TimeRange extent;
    std::vector<std::uint32_t> tracks;  // the tracks the builder knows
    std::int64_t until_ns = 0;          // it took every event starting before this
    store::OverviewBuilder builder;
    store::Overview overview;  // what it published so far
  };

  std::int64_t settle_ns_;
  mutable std::mutex mutex_;
  analysis::ChangedFrom changed_;
  std::optional<Kept> kept_;
  std::uint64_t reused_ = 0;
};

}  // namespace ts::gui
