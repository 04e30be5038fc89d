// What the timeline draws: zones (an event, or a run of events merged at some resolution) in
// rows. A row holds the zones of one nesting depth of one track; they never overlap and are
// sorted by start, so the level-of-detail pass can binary-search them.
#pragma once

#include <cstdint>
#include <vector>

namespace ts::gui {

struct Zone {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::uint32_t label = 0;  // the event's label; for a merged run, that of its longest event
  std::uint32_t count = 1;  // how many events the zone stands for
};
static_assert(sizeof(Zone) == 24, "Zone is kept small: ten million of them fit in memory");

struct Row {
  std::vector<Zone> zones;
  // cum[i] = events in zones[0, i); empty while every zone stands for one event.
  std::vector<std::uint64_t> cum;

  // Events in zones[first, last).
  std::uint64_t events(std::size_t first, std::size_t last) const {
    return cum.empty() ? last - first : cum[last] - cum[first];
  }
  // Appends a zone, keeping cum consistent.
  void push(const Zone& z);
};

// The rows of one track, by depth.
struct TrackRows {
  std::uint32_t track = 0;
  std::vector<Row> rows;
  Row& row(std::size_t depth);
};

}  // namespace ts::gui
