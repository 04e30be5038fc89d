// The TensorFlow side of import_traces(): each profile file (one host) is read, mapped into the
// trace as one process, and the trace's meta rows are written (README.md, "TensorFlow
// profiles"). import.cpp owns the output file (written under a temporary name, then renamed).
#pragma once

#include <regex>
#include <string>
#include <vector>

#include "profiler/import/import.hpp"
#include "profiler/import/trace_sink.hpp"
#include "profiler/import/xplane_sources.hpp"

namespace ts::import {

// step_marker: --step-marker compiled (null when not given), step_marker_text its text. Throws
// ImportError (one sentence naming the file) for a file that is no readable profile.
ImportStats import_xplane_files(const std::vector<XPlaneSource>& files,
                                const std::regex* step_marker, const std::string& step_marker_text,
                                TraceSink& sink);

}  // namespace ts::import
