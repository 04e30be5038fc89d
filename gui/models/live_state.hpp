// What a window following a capture still running keeps from one reload to the next besides its
// reader (live_follower.hpp): the analysis and the timeline's summary that go on from the last
// reload's, told at each reload where the events new since start.
#pragma once

#include <cstdint>

#include "gui/models/live_summary.hpp"
#include "profiler/analysis/live_analysis.hpp"

namespace ts::gui {

struct LiveState {
  analysis::LiveAnalysis analysis;
  LiveSummary summary;

  void note_changed(std::int64_t from_ns) {
    analysis.note_changed(from_ns);
    summary.note_changed(from_ns);
  }
};

}  // namespace ts::gui
