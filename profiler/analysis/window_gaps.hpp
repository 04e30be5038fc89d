// The device's idle gaps of part of a trace: what analyse() lists in Report::device.gaps, for the
// steps that overlap a window only. A viewer of a long trace loads the gaps of what it shows this
// way instead of holding every gap of the trace (tens of millions at 100 M events).
#pragma once

#include <vector>

#include "profiler/analysis/intervals.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/analysis/step_groups.hpp"
#include "profiler/analysis/tracks.hpp"
#include "profiler/store/reader.hpp"

namespace ts::analysis {

// The idle gaps analyse(reader, options) lists (AnalysisOptions::min_listed_gap_ns; keep_gaps is
// ignored) for the steps that overlap `window`, gap for gap, in time order. One pass over those
// steps' events per process, as a part of analyse()'s parallel pass reads its own: events that
// started earlier and reach into the first step are context. Empty for a trace without steps.
// analyse() lists no gaps for a trace without device work (Report::device.has_device): callers
// ask only when it has some.
std::vector<IdleGap> idle_gaps_in(const store::Reader& reader, Interval window,
                                  const AnalysisOptions& options);

// What idle_gaps_in() needs of the whole trace, read once by a caller asking for many windows:
// the steps grouped by process as analyse() groups them, and the tracks' roles. A trace of one
// process whose steps need no cleaning (every real capture's) holds no steps: each window's are
// read from the file (a 100 M-event trace has 2.2 M steps, 71 MB).
struct GapContext {
  std::vector<StepGroup> groups;
  TrackTable tracks;
  bool steps_in_file = false;  // then `groups` is empty
};
// One pass over the trace's steps, holding them only when they need cleaning or grouping.
GapContext gap_context(const store::Reader& reader);
std::vector<IdleGap> idle_gaps_in(const store::Reader& reader, const GapContext& context,
                                  Interval window, const AnalysisOptions& options);

}  // namespace ts::analysis
