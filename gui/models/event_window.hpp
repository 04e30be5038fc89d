// Range loading: the events of one time window, read from the trace and laid out in rows by
// track and depth, exactly (no merging). The timeline loads the visible window plus a margin
// this way once it zooms in past the summary's resolution; a cap on the number of events keeps
// memory bounded whatever the file's size. The counters' samples in the window come too, so a
// window draws every lane on its own.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "gui/models/counter_series.hpp"
#include "gui/models/zone.hpp"
#include "profiler/store/reader.hpp"

namespace ts::gui {

struct EventWindow {
  std::int64_t t0 = 0, t1 = 0;  // every event overlapping [t0, t1) is in
  std::uint64_t events = 0;
  std::vector<TrackRows> tracks;
  std::vector<CounterSeries> counters;  // samples with t0 <= ts < t1, thinned as in the summary

  bool covers(std::int64_t a, std::int64_t b) const { return t0 <= a && b <= t1; }
  const TrackRows* rows_of(std::uint32_t track) const;
  const CounterSeries* counter_of(std::uint32_t track) const;
};

// Loads [t0, t1) from `reader`; nullopt when the window holds more than max_events events.
// Throws store::Error when the file cannot be read.
std::optional<EventWindow> load_window(const store::Reader& reader, std::int64_t t0,
                                       std::int64_t t1, std::uint64_t max_events);

}  // namespace ts::gui
