// Rows as the writer takes them: integer ids, nanoseconds, kNull for SQL NULL.
#pragma once

#include <cstdint>
#include <limits>

namespace ts::store {

inline constexpr std::int64_t kNull = std::numeric_limits<std::int64_t>::min();

struct EventRow {
  std::int64_t start_ns = 0;
  std::int64_t dur_ns = 0;
  std::uint32_t track = 0;
  std::uint32_t label = 0;
  std::int64_t step = kNull;
  std::int64_t bytes = kNull;
  std::int64_t work_size = kNull;    // -> event_arg
  std::int64_t correlation = kNull;  // -> event_arg
};

struct CounterRow {
  std::uint32_t track = 0;
  std::int64_t ts_ns = 0;
  double value = 0;
};

}  // namespace ts::store
