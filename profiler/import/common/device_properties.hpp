// A device as a trace describes it (Kineto `deviceProperties`): what the analysis weighs a run's
// memory and math against. Fields a trace leaves out stay kNone / empty.
#pragma once

#include <cstdint>
#include <string>

#include "profiler/import/common/none.hpp"

namespace ts::import {

struct DeviceProperties {
  std::int64_t id = kNone;            // the device index ("GPU <id>" on its tracks)
  std::string name;                   // "NVIDIA A100-PG509-200"
  std::int64_t total_memory = kNone;  // bytes (totalGlobalMem)
  std::int64_t compute_major = kNone, compute_minor = kNone;
};

}  // namespace ts::import
