// The reader of PyTorch profiler (Kineto) traces and of any Chrome trace-event JSON, plain or
// gzip, one file per rank (README.md, "Mapping"): its row of the registry.
#pragma once

#include "profiler/import/common/reader.hpp"

namespace ts::import {

TraceReader chrome_reader();

}  // namespace ts::import
