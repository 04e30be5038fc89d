// The analysis of a capture still running, reload after reload (the viewer's live mode). Each
// reload's trace is the last one's plus the events the capture committed since, and those all
// start at or after some time (store::Reader::changed_from_ns): the pass over the events before
// it (event_pass.hpp) cannot change. So the pass up to a step start a little before the trace's
// end (kSettleNs by default) is kept, and the next reload reads only the events from there on and
// merges their pass after the kept one, as analyse()'s parallel parts merge.
//
// The report is exactly what analyse() returns for the same trace (tests compare them reload
// after reload). Whenever reusing could change a figure, it reads everything again: other
// options, a change in which steps are analysed (warm-up, epochs), a track whose role changed,
// events new since the kept pass that start before its end (a late commit), steps before that end
// that changed, a trace of several processes.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "profiler/analysis/changed_from.hpp"
#include "profiler/analysis/event_pass.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/store/reader.hpp"

namespace ts::analysis {

class LiveAnalysis {
 public:
  // The kept pass ends at the start of the last step that starts this long before the trace's
  // last step ends: what a capture commits late (a thread's ring drained later, device events
  // collected after their kernels) rarely reaches back further.
  static constexpr std::int64_t kSettleNs = 2'000'000'000;
  explicit LiveAnalysis(std::int64_t settle_ns = kSettleNs) : settle_ns_(settle_ns) {}

  // The trace gained events starting at or after `from_ns` (INT64_MIN: anything may have
  // changed). Thread-safe; the earliest of the times noted since the last analysis counts.
  void note_changed(std::int64_t from_ns) { changed_.note(from_ns); }

  // The report of the trace `reader` reads: equal to analyse(reader, options). Rethrows what the
  // reading throws (the changes noted stay noted for the next call).
  Report analyse(const store::Reader& reader, const AnalysisOptions& options);

  // Of the last analysis's steps, how many the kept pass held (0: every event was read).
  std::size_t reused_steps() const;

 private:
  // What a kept pass is valid for besides its events: the options, every track's role and
  // index, and the analysed steps' windows (kernels and input stages count inside them) as far as
  // the pass's events go.
  struct Conditions {
    std::string options;
    std::vector<std::pair<std::uint32_t, std::pair<int, int>>> tracks;
    Interval window, stage_window;
    bool holds_for(const Conditions& now, std::int64_t until_ns) const;
  };
  struct Kept {
    Conditions conditions;
    std::int64_t until_ns = 0;  // the pass took every event starting before this step start
    std::size_t steps = 0;      // the steps starting before it
    store::Step last_step;      // the last of them
    EventPass pass;             // finished
  };

  std::int64_t settle_ns_;
  mutable std::mutex mutex_;
  ChangedFrom changed_;
  std::optional<Kept> kept_;
  std::size_t reused_ = 0;
};

}  // namespace ts::analysis
