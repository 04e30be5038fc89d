// The whole trace at a coarse, fixed resolution — the trace's overview (profiler/store/
// overview.hpp: every row of every track merged into runs no finer than extent / kBins, the
// counter series, and per label how many events it has and where) — shared between the thread
// that fills it (summary_builder.hpp) and the GUI thread. A trace that stores its overview fills
// it at once; otherwise a background scan publishes it chunk by chunk, so the timeline draws the
// part scanned so far while the rest is read. The timeline draws from it whenever a pixel spans
// at least `resolution_ns`; closer in it loads the visible window exactly (event_window.hpp).
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "gui/models/counter_series.hpp"
#include "gui/models/zone.hpp"
#include "profiler/store/overview.hpp"

namespace ts::gui {

using store::LabelStats;

struct SummaryData : store::Overview {
  std::int64_t scanned_until_ns = 0;  // every event starting before it is in
  // A live summary's extent reaches ahead of the capture (live_summary.hpp): where the trace
  // ends. Unset: at end_ns.
  std::optional<std::int64_t> content_end_ns;
  bool done = false;
  // Where it came from: the trace's stored overview, the per-user cache, or a scan.
  enum class Source { scan, stored, cache } source = Source::scan;
  std::string error;  // set when the scan failed; what was published before stays
};

// SummaryData shared between the scanning thread and the GUI thread.
class TraceSummary {
 public:
  template <class Fn>
  decltype(auto) read(Fn&& fn) const {
    std::lock_guard lock(mu_);
    return fn(static_cast<const SummaryData&>(data_));
  }
  template <class Fn>
  decltype(auto) write(Fn&& fn) {
    std::lock_guard lock(mu_);
    return fn(data_);
  }

 private:
  mutable std::mutex mu_;
  SummaryData data_;
};

}  // namespace ts::gui
