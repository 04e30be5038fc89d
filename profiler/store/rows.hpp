// Rows as the writer takes them: integer ids, nanoseconds, kNull for SQL NULL.
#pragma once

#include <cstdint>
#include <limits>

namespace ts::store {

inline constexpr std::int64_t kNull = std::numeric_limits<std::int64_t>::min();

// Sums and differences of times that a hostile file may put at the ends of the 64-bit range:
// they stop at the ends instead of overflowing.
inline std::int64_t sat_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? std::numeric_limits<std::int64_t>::max()
               : std::numeric_limits<std::int64_t>::min();
}
inline std::int64_t sat_sub(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (!__builtin_sub_overflow(a, b, &r)) return r;
  return b < 0 ? std::numeric_limits<std::int64_t>::max()
               : std::numeric_limits<std::int64_t>::min();
}

// Events name their track with 16 bits (events.id packs it beside the start): a row on a larger
// track is damage, dropped where rows are written.
inline constexpr std::uint32_t kTrackLimit = std::uint32_t{1} << 16;

// Label ids below this are looked up in tables indexed by id (callers number labels from 1 up);
// a larger one, only a hostile file's, goes in a hash map or set instead.
inline constexpr std::uint32_t kDenseLabels = std::uint32_t{1} << 20;

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
