// The one place where an import's summary becomes the trace's meta rows (trainscope/meta_keys.hpp:
// import.*, clock.*, steps.source, engine.model/device/batch, analysis.trainer_tracks) and the
// ImportStats that `trainscope import` prints. Every format reader fills an ImportedRun; this
// file decides how several processes are merged into one row.
#pragma once

#include "profiler/import/common/imported_run.hpp"
#include "profiler/import/common/trace_sink.hpp"
#include "profiler/import/import.hpp"

namespace ts::import {

// Writes the meta rows of `run` into `sink` and returns the statistics of the import (before the
// store's own out-of-key-range count, which import_traces adds after finish()).
ImportStats write_import_meta(const ImportedRun& run, TraceSink& sink);

}  // namespace ts::import
