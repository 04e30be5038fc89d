// The trace's overview: the whole trace at a coarse, fixed resolution, which the timeline draws
// from whenever a pixel spans at least `resolution_ns` (closer in it loads events exactly).
//
//   - per track, one row of zones per nesting depth: events merged into runs no finer than
//     extent / kBins and no wider than four times that (overview_builder.hpp); a zone says how
//     many events it stands for and carries the label of its longest one, so a coarser level is
//     one binary-searched merge of it (the viewer's level-of-detail pass);
//   - per counter track, the samples thinned to at most one per bin, keeping the minimum and
//     the maximum of every two bins;
//   - per label, how many events it has and in which of kSearchBins time bins they start (search
//     jumps straight to the bins holding a name).
//
// Built when a trace is finished (Writer::finish, recover) and stored in it (overview_codec.hpp),
// so opening a trace of any size shows all of it at once; built by a scan and kept in the
// per-user cache for traces written before it was stored.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "profiler/store/reader.hpp"
#include "trainscope/taxonomy.hpp"

namespace ts::store {

// An event, or a run of events merged at some resolution. The zones of a row never overlap and
// are sorted by start.
struct Zone {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::uint32_t label = 0;  // the event's label; for a merged run, that of its longest event
  std::uint32_t count = 1;  // how many events the zone stands for
};
static_assert(sizeof(Zone) == 24, "Zone is kept small: ten million of them fit in memory");

// The zones of one nesting depth of one track.
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

// The samples of one counter track (prefetch buffer fill, device memory), drawn as a step line.
struct CounterSeries {
  std::uint32_t track = 0;
  std::vector<std::int64_t> ts_ns;
  std::vector<double> values;
  double min = 0, max = 0;
  std::uint64_t samples = 0;  // before thinning

  bool empty() const { return ts_ns.empty(); }
  // The index of the last sample at or before t (the value in force at t), or -1.
  std::ptrdiff_t at(std::int64_t t) const;
};

inline constexpr std::size_t kMaxCounterPoints = 1 << 18;

// Builds a series from samples in time order, thinning it to at most max_points points.
CounterSeries make_counter_series(std::uint32_t track, std::span<const CounterSample> samples,
                                  std::size_t max_points = kMaxCounterPoints);

// The entry for `track` in a vector of TrackRows or CounterSeries ordered by track id (as every
// overview and event window is built: a trace may hold hundreds of thousands of tracks, and the
// viewer looks each lane's up), or nullptr.
template <class Entry>
const Entry* find_track(const std::vector<Entry>& entries, std::uint32_t track) {
  const auto it = std::lower_bound(entries.begin(), entries.end(), track,
                                   [](const Entry& e, std::uint32_t id) { return e.track < id; });
  return it != entries.end() && it->track == track ? &*it : nullptr;
}

// Orders entries by track id (what find_track needs).
template <class Entry>
void order_by_track(std::vector<Entry>& entries) {
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.track < b.track; });
}

struct LabelStats {
  std::string name;
  trace::Category category = trace::Category::other;
  std::uint64_t count = 0;
  std::vector<std::uint32_t> bins;        // search bins in which its events start, ascending
  std::vector<std::uint64_t> bin_counts;  // how many of its events start in each of those
};

struct Overview {
  // The resolution is extent / kBins: the viewer draws from the overview while a pixel spans at
  // least that (a view of a sixteenth of the trace or more, 1000 pixels wide), and loads events
  // closer in.
  static constexpr int kBins = 1 << 14;
  static constexpr int kSearchBins = 1 << 11;  // granularity of the label index

  bool has_extent = false;  // false until a scan has read the trace's time range
  std::int64_t begin_ns = 0, end_ns = 0;
  double resolution_ns = 1;
  std::uint64_t events = 0;             // events it holds
  std::vector<TrackRows> tracks;        // ordered by track id
  std::vector<CounterSeries> counters;  // ordered by track id
  std::unordered_map<std::uint32_t, LabelStats> labels;

  const TrackRows* rows_of(std::uint32_t track) const;
  const CounterSeries* counter_of(std::uint32_t track) const;
  // The search bin holding time t (clamped).
  std::uint32_t search_bin(std::int64_t t) const;
  std::pair<std::int64_t, std::int64_t> search_bin_range(std::uint32_t bin) const;
};

}  // namespace ts::store
