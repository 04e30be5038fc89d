// Nesting depth of zones, per track, from events given in start order with the enclosing event
// before the events nested in it (the order the reader returns). An event that starts inside
// another and ends after it is drawn one row deeper, so the zones of one row never overlap.
#pragma once

#include <cstdint>
#include <vector>

#include "gui/models/id_map.hpp"

namespace ts::gui {

class DepthTracker {
 public:
  // Rows deeper than this are not drawn (a pathological trace could nest without bound).
  static constexpr int kMaxDepth = 31;

  // The depth of an event [start_ns, end_ns) on `track`; it becomes the innermost open event.
  int push(std::uint32_t track, std::int64_t start_ns, std::int64_t end_ns);

 private:
  IdMap<std::vector<std::int64_t>> open_ends_;
};

}  // namespace ts::gui
