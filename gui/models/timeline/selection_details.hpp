// What the details panel says about a selection, as (field, value) pairs: for an event its
// name, category, track, start, duration, step, bytes and arguments (read from the trace); for
// a step its breakdown; for an idle gap its cause.
#pragma once

#include <QString>
#include <utility>
#include <vector>

#include "gui/models/timeline/selection.hpp"
#include "gui/models/timeline/timeline_data.hpp"
#include "gui/models/trace_session.hpp"

namespace ts::gui {

using Details = std::vector<std::pair<QString, QString>>;

Details selection_details(const TraceSession& session, const StepRow& steps, const GapRow& gaps,
                          const Selection& selection);

}  // namespace ts::gui
