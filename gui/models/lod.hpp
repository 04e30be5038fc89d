// Level of detail, pass 1 of drawing a row (Tracy's approach): zones at least min_px wide become
// one draw item each; a run of narrower zones closer than min_px to each other becomes a single
// merged item that says how many events it stands for. The end of a run is found by binary
// search, so a row yields at most about width / min_px items and costs O(items x log zones)
// whatever the number of events. No zone is lost: the items partition the visible zones, and an
// item is at least one pixel wide.
//
// Unlike Tracy, a merged run also ends once it spans max_px: a dense row zoomed out becomes a
// strip of blocks, each coloured by what dominates it, rather than one bar as long as the trace,
// so where the input-bound steps or the idle gaps cluster stays visible.
#pragma once

#include <cstdint>
#include <vector>

#include "gui/models/time_mapping.hpp"
#include "gui/models/zone.hpp"

namespace ts::gui {

struct DrawItem {
  double x0 = 0, x1 = 0;    // pixels, clipped to a little beyond the view
  std::uint32_t first = 0;  // zones[first, first + zones) of the row
  std::uint32_t zones = 1;
  std::uint64_t events = 1;   // how many events the item stands for
  std::uint32_t longest = 0;  // the zone that represents it (of the label with the most time)
  bool merged() const { return events > 1 || zones > 1; }
};

inline constexpr double kDefaultMinPx = 3.0;
inline constexpr double kDefaultMaxMergePx = 8.0;

// Appends the items of `row` visible through `m` to `out`.
void build_row_items(const Row& row, const TimeMapping& m, double min_px,
                     std::vector<DrawItem>& out, double max_px = kDefaultMaxMergePx);

// The index range [first, last) of the zones of `row` that overlap [t0, t1].
std::pair<std::size_t, std::size_t> visible_zones(const Row& row, std::int64_t t0, std::int64_t t1);

}  // namespace ts::gui
