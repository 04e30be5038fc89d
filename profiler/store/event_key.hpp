// The key of an event row (schema version 5): one 64-bit integer, the rowid of the `event` and
// `event_arg` tables, that packs an event's start and track as
// ((start_ns - origin) << 16) | track. Ordering by key is ordering by (start, track), so a time
// window is a range of rowids, and SQLite appends rows in key order to a rowid table with its
// pages full. `origin` is fixed per trace (meta event.key_origin_ns: the start of the first event
// written); starts within kKeyOffsetLimit of it on either side (about 39 hours) have a key.
#pragma once

#include <cstdint>
#include <limits>

#include "profiler/store/rows.hpp"

namespace ts::store {

inline constexpr int kKeyTrackBits = 16;  // kTrackLimit == 1 << kKeyTrackBits
inline constexpr std::int64_t kKeyOffsetLimit = std::int64_t{1} << (63 - kKeyTrackBits);

// Whether an event starting at `start` has a key in a trace keyed from `origin`.
inline bool has_key(std::int64_t start, std::int64_t origin) {
  const __int128 off = static_cast<__int128>(start) - origin;
  return off >= -kKeyOffsetLimit && off < kKeyOffsetLimit;
}

// Requires has_key(start, origin) and track < kTrackLimit.
inline std::int64_t event_key(std::int64_t start, std::uint32_t track, std::int64_t origin) {
  const auto off = static_cast<std::uint64_t>(start - origin);
  return static_cast<std::int64_t>((off << kKeyTrackBits) | track);
}

inline std::int64_t key_start(std::int64_t key, std::int64_t origin) {
  return sat_add(origin, key >> kKeyTrackBits);  // arithmetic shift: negative offsets stay so
}

inline std::uint32_t key_track(std::int64_t key) {
  return static_cast<std::uint32_t>(key & (kTrackLimit - 1));
}

// The keys of events starting in [t0, t1), as an inclusive range; lo > hi when there are none.
struct KeyRange {
  std::int64_t lo = 0;
  std::int64_t hi = -1;
};

inline KeyRange key_range(std::int64_t t0, std::int64_t t1, std::int64_t origin) {
  constexpr __int128 kMin = std::numeric_limits<std::int64_t>::min();
  constexpr __int128 kMax = std::numeric_limits<std::int64_t>::max();
  const __int128 lo = (static_cast<__int128>(t0) - origin) * (__int128{1} << kKeyTrackBits);
  const __int128 hi = (static_cast<__int128>(t1) - origin) * (__int128{1} << kKeyTrackBits) - 1;
  if (lo > hi || hi < kMin || lo > kMax) return {};
  return {static_cast<std::int64_t>(lo < kMin ? kMin : lo),
          static_cast<std::int64_t>(hi > kMax ? kMax : hi)};
}

}  // namespace ts::store
