// The tables of trainscope.Trace that report --json does not hold row by row: the per-step
// figures, the listed idle gaps (from an analysis::Report) and the events in a time window (from
// the trace file), as Columns.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "columns.hpp"
#include "profiler/analysis/report.hpp"

namespace ts::python {

py::tuple step_columns(const analysis::Report& report);
py::tuple idle_gap_columns(const analysis::Report& report);

struct EventQuery {
  std::optional<std::string> category;  // a trace::Category name; every category when unset
  std::optional<std::int64_t> start_ns, end_ns;  // events overlapping [start, end)
  std::optional<std::int64_t> limit;             // more events than this: an error
};

// Reads the trainscope trace `path` (made from `source`, which errors name) with the GIL released,
// then builds the columns. Throws cli::UsageError for an unknown category, a window that ends
// before it starts, or more events than the limit.
py::tuple event_columns(const std::string& path, const std::string& source,
                        const EventQuery& query);

}  // namespace ts::python
