// What the viewer takes from a trace's meta table (trainscope/meta_keys.hpp), so that no
// widget reads the store's keys: whether the capture writing it is still running, and where its
// epochs start.
#pragma once

#include <cstdint>
#include <vector>

#include "profiler/store/reader.hpp"

namespace ts::gui {

// True while the capture writing the trace has not finished (no capture.end_ns yet, and no
// overview: every finished trace, a synthetic one or an import too, stores one): the viewer then
// re-reads the file as it grows (live mode).
bool capture_in_progress(const store::Reader& reader);

// The step number each epoch starts at, ascending (fit.epoch_first_steps, read as the analysis
// reads it); empty when the trace records no epochs.
std::vector<std::int64_t> epoch_first_steps(const store::Reader& reader);

}  // namespace ts::gui
