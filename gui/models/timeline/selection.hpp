// What the user clicked on the timeline: an event of a track, a step, a device idle gap, or a
// time range dragged with Shift held (over some lanes).
#pragma once

#include <cstdint>
#include <vector>

namespace ts::gui {

struct Selection {
  enum class Kind { none, event, step, gap, range } kind = Kind::none;
  std::uint32_t track = 0;  // events
  int depth = 0;            // events: the row it is drawn in; -1: find it when drawing
  std::int64_t start_ns = 0, end_ns = 0;
  std::uint32_t label = 0;            // events
  std::size_t index = 0;              // steps and gaps: into StepRow / GapRow
  std::vector<std::uint32_t> tracks;  // range: the tracks of the lanes it covers (empty: all)

  bool empty() const { return kind == Kind::none; }
  friend bool operator==(const Selection&, const Selection&) = default;
};

}  // namespace ts::gui
