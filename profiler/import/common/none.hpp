// The "no value" of an importer's times and numbers (a start not known yet, a step outside every
// step): the most negative int64, which no valid time (within +-2^61 ns) can be.
#pragma once

#include <cstdint>
#include <limits>

namespace ts::import {

inline constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::min();

}  // namespace ts::import
