// The table of format readers that import_traces() and sniff() loop over (registry.cpp).
#pragma once

#include <span>
#include <string>

#include "profiler/import/common/reader.hpp"

namespace ts::import {

// Every reader, most specific first: a path goes to the first reader that sniffs it.
std::span<const TraceReader> trace_readers();

// The first reader whose sniff() accepts the path, else the last one (the catch-all, whose
// errors say best what a path lacks: missing, an empty directory, not JSON).
const TraceReader& reader_for(const std::string& path);

}  // namespace ts::import
