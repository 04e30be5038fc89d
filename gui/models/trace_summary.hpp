// The whole trace at a coarse, fixed resolution: every row of every track merged into runs no
// finer than extent / kBins (row_merger.hpp), the counter series, and per label how many events
// it has and where (for search). Built by one background scan of the file (summary_builder.hpp)
// that publishes chunk by chunk, so the timeline draws the part scanned so far while the rest is
// read. The timeline draws from it whenever a pixel spans at least `resolution_ns`; closer in it
// loads the visible window exactly (event_window.hpp).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gui/models/counter_series.hpp"
#include "gui/models/zone.hpp"
#include "trainscope/taxonomy.hpp"

namespace ts::gui {

struct LabelStats {
  std::string name;
  trace::Category category = trace::Category::other;
  std::uint64_t count = 0;
  std::vector<std::uint32_t> bins;        // search bins in which its events start, ascending
  std::vector<std::uint64_t> bin_counts;  // how many of its events start in each of those
};

struct SummaryData {
  static constexpr int kBins = 1 << 16;        // the resolution is extent / kBins
  static constexpr int kSearchBins = 1 << 12;  // granularity of the label index

  bool has_extent = false;  // false until the scan has read the trace's time range
  std::int64_t begin_ns = 0, end_ns = 0;
  double resolution_ns = 1;
  std::int64_t scanned_until_ns = 0;  // every event starting before it is in
  std::uint64_t events = 0;           // events scanned
  bool done = false;
  std::string error;  // set when the scan failed; what was published before stays
  std::vector<TrackRows> tracks;
  std::vector<CounterSeries> counters;
  std::unordered_map<std::uint32_t, LabelStats> labels;

  const TrackRows* rows_of(std::uint32_t track) const;
  const CounterSeries* counter_of(std::uint32_t track) const;
  // The search bin holding time t (clamped).
  std::uint32_t search_bin(std::int64_t t) const;
  std::pair<std::int64_t, std::int64_t> search_bin_range(std::uint32_t bin) const;
};

// SummaryData shared between the scanning thread and the GUI thread.
class TraceSummary {
 public:
  template <class Fn>
  decltype(auto) read(Fn&& fn) const {
    std::lock_guard lock(mu_);
    return fn(static_cast<const SummaryData&>(data_));
  }
  template <class Fn>
  decltype(auto) write(Fn&& fn) {
    std::lock_guard lock(mu_);
    return fn(data_);
  }

 private:
  mutable std::mutex mu_;
  SummaryData data_;
};

}  // namespace ts::gui
