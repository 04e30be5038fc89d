// What the timeline draws: zones (an event, or a run of events merged at some resolution) in
// rows, one row per nesting depth of a track. The same types as the trace's stored overview
// (profiler/store/overview.hpp), so the viewer draws an overview as it is read.
#pragma once

#include "profiler/store/overview.hpp"

namespace ts::gui {

using store::Row;
using store::TrackRows;
using store::Zone;

}  // namespace ts::gui
