// The reader of TensorFlow profiles (XSpace protobuf, *.xplane.pb; run and log directories),
// one file per host (README.md, "TensorFlow profiles"): its row of the registry.
#pragma once

#include "profiler/import/common/reader.hpp"

namespace ts::import {

TraceReader xplane_reader();

}  // namespace ts::import
