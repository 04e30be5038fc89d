// Fills a TraceSummary by scanning a trace once, in time chunks, with a Reader of its own (run it
// on a background thread). After each chunk the new zones are appended under the summary's lock
// and `progress` is told the fraction done.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "gui/models/trace_summary.hpp"

namespace ts::gui {

// Throws store::Error when the file cannot be read; what was published before the failure stays.
// Returns early, leaving `done` false, when `cancel` becomes true.
void build_summary(const std::string& path, TraceSummary& summary, const std::atomic<bool>& cancel,
                   const std::function<void(double)>& progress = {});

}  // namespace ts::gui
