// The commands that write a finished trace (synth, import, merge, recover, train with --trace)
// analyse a large one as they finish it and keep the report in it (profiler/analysis/
// kept_report.hpp), as they store its overview: the first `report` or viewer of it then reads the
// report back instead of every event.
#pragma once

#include <cstdint>
#include <string>

#include "profiler/analysis/kept_report.hpp"

namespace ts::cli {

// Analyses the trace at `path` with the options `report` uses by default and keeps the report when
// the trace holds at least `from_events` events. False when it did not: a small trace, or one
// that cannot be analysed or written (the command's own result stands; `report` names the
// trouble).
bool keep_analysis_of(const std::string& path,
                      std::int64_t from_events = analysis::kKeepFromEvents) noexcept;

}  // namespace ts::cli
