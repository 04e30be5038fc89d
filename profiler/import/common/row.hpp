// An event as the import hands it to the store: absolute nanoseconds, global track and label
// ids. 48 bytes; converted to store::EventRow in batches as it is written.
#pragma once

#include <cstdint>

#include "profiler/store/rows.hpp"

namespace ts::import {

struct Row {
  std::int64_t start_ns = 0;
  std::int64_t dur_ns = 0;
  std::int64_t step = store::kNull;
  std::int64_t bytes = store::kNull;
  std::int64_t correlation = store::kNull;
  std::uint32_t track = 0;
  std::uint32_t label = 0;
};
static_assert(sizeof(Row) == 48);

// The store writer's order: by start, then track, the longer first. The writer is several times
// faster with rows in this order (B-tree appends, no re-sorting).
inline bool row_less(const Row& a, const Row& b) {
  if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
  if (a.track != b.track) return a.track < b.track;
  return a.dur_ns > b.dur_ns;
}
// row_less as a type, which std::sort inlines (it calls a function pointer at each comparison).
struct RowLess {
  bool operator()(const Row& a, const Row& b) const { return row_less(a, b); }
};

}  // namespace ts::import
