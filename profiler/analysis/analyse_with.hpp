// analyse() (report.hpp) with the pass over a one-process trace's events supplied by the caller:
// the live analysis (live_analysis.hpp) keeps the passes of earlier reloads and reads only the
// events after them. A trace of several processes, or without steps, is analysed as analyse()
// does; the rest of the report is made from the pass as analyse() makes it.
#pragma once

#include <functional>
#include <span>

#include "profiler/analysis/event_pass.hpp"
#include "profiler/analysis/phases.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/analysis/tracks.hpp"
#include "profiler/store/reader.hpp"

namespace ts::analysis {

// What the pass covers: the track roles, the steps (sorted, disjoint) and which are analysed.
struct OnePass {
  const TrackTable& tracks;
  std::span<const store::Step> steps;
  const StepSelection& selection;
};

// `one_pass` returns what scan_events() over every event with the selection's windows returns.
Report analyse_with(const store::Reader& reader, const AnalysisOptions& options,
                    const std::function<EventPass(const OnePass&)>& one_pass);

}  // namespace ts::analysis
