// Fills a TraceSummary (run it on a background thread, with a Reader of its own). From the
// fastest source that has it:
//   1. the overview stored in the trace (every trace finished with schema version 4 or later):
//      decoded at once;
//   2. the per-user cache (overview_cache.hpp), for traces written before the overview was
//      stored, once a scan has built theirs;
//   3. a scan of the trace in time chunks: after each chunk the new zones are appended under the
//      summary's lock and `progress` is told the fraction done. A finished scan of a trace that
//      is not being captured is kept in the cache.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "gui/models/live_summary.hpp"
#include "gui/models/trace_summary.hpp"
#include "profiler/store/reader.hpp"

namespace ts::gui {

struct SummarySources {
  // What to read in place of the file: a snapshot of a capture still running (a live reload).
  std::shared_ptr<const store::Snapshot> snapshot;
  bool stored = true;     // use the trace's stored overview
  std::string cache_dir;  // the per-user cache; empty: the default (overview_cache.hpp)
  bool cache = true;      // read and fill the cache
  // A capture still running, reloaded: its summary goes on from the last reload's
  // (live_summary.hpp) instead of a scan of every event.
  LiveSummary* live = nullptr;
};

// Throws store::Error when the file cannot be read; what was published before the failure stays.
// Returns early, leaving `done` false, when `cancel` becomes true.
void build_summary(const std::string& path, TraceSummary& summary, const std::atomic<bool>& cancel,
                   const std::function<void(double)>& progress = {},
                   const SummarySources& sources = {});

}  // namespace ts::gui
