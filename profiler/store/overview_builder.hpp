// Builds an Overview (overview.hpp) from a trace's events in the reader's order (by start, an
// enclosing event before the events nested in it). Each event finds its nesting depth on its
// track (DepthTracker) and joins its row's run (RowMerger); every label counts its events per
// search bin. Costs O(1) amortised per event and memory proportional to the overview, not to
// the trace. build_overview() does a whole trace in one scan; the viewer drives an
// OverviewBuilder chunk by chunk instead, publishing as it goes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "profiler/store/overview.hpp"
#include "profiler/store/reader.hpp"

namespace ts::store {

// A map from integer ids (tracks, labels) to values for per-event lookups on hot paths: a
// vector for the small ids real traces use, a hash map above kDense (a hostile file may use any
// id). Values are default-constructed on first access.
template <class T>
class IdMap {
 public:
  static constexpr std::uint32_t kDense = 1 << 16;

  IdMap() = default;
  // A deep copy (a live summary keeps a builder's state to go on from, overview_builder users).
  IdMap(const IdMap& other) : sparse_(other.sparse_) {
    dense_.reserve(other.dense_.size());
    for (const auto& p : other.dense_) dense_.push_back(p ? std::make_unique<T>(*p) : nullptr);
  }
  IdMap& operator=(const IdMap& other) {
    if (this != &other) *this = IdMap(other);
    return *this;
  }
  IdMap(IdMap&&) noexcept = default;
  IdMap& operator=(IdMap&&) noexcept = default;

  T& operator[](std::uint32_t id) {
    if (id >= kDense) return sparse_[id];
    if (id >= dense_.size()) dense_.resize(id + 1);
    if (!dense_[id]) dense_[id] = std::make_unique<T>();
    return *dense_[id];
  }
  T* find(std::uint32_t id) {
    if (id < kDense) return id < dense_.size() ? dense_[id].get() : nullptr;
    const auto it = sparse_.find(id);
    return it != sparse_.end() ? &it->second : nullptr;
  }
  template <class Fn>
  void for_each(Fn&& fn) {
    for (std::uint32_t id = 0; id < dense_.size(); ++id)
      if (dense_[id]) fn(id, *dense_[id]);
    for (auto& [id, v] : sparse_) fn(id, v);
  }

 private:
  std::vector<std::unique_ptr<T>> dense_;  // pointers: references stay valid as it grows
  std::unordered_map<std::uint32_t, T> sparse_;
};

// Nesting depth of zones, per track, from events in the reader's order. An event that starts
// inside another and ends after it is drawn one row deeper, so the zones of one row never
// overlap.
class DepthTracker {
 public:
  // Rows deeper than this are not kept (a pathological trace could nest without bound).
  static constexpr int kMaxDepth = 31;

  // The depth of an event [start_ns, end_ns) on `track`; it becomes the innermost open event.
  int push(std::uint32_t track, std::int64_t start_ns, std::int64_t end_ns);

 private:
  IdMap<std::vector<std::int64_t>> open_ends_;
};

// Streaming merge of one row at a fixed resolution: zones arrive in start order and leave as
// runs. Zones at least min_ns wide stay whole; a run of narrower zones closer than min_ns to each
// other becomes one zone counting them, labelled by its longest. Unlike drawing, a run also ends
// when it grows wider than max_run_ns: a dense row must not become one zone standing for the
// whole trace, which closer zoom levels could not take apart.
class RowMerger {
 public:
  explicit RowMerger(double min_ns = 1, double max_run_ns = 4)
      : min_ns_(min_ns), max_run_ns_(std::max(min_ns, max_run_ns)) {}

  // Takes the next zone of the row; appends zones that are complete to `out`.
  void add(const Zone& z, std::vector<Zone>& out);
  // Appends the open run, if any.
  void flush(std::vector<Zone>& out);

 private:
  bool wide(const Zone& z) const { return static_cast<double>(z.end_ns - z.start_ns) >= min_ns_; }

  double min_ns_;
  double max_run_ns_;
  bool open_ = false;
  Zone run_;
  std::int64_t longest_ = 0;  // the longest zone's duration in the open run
};

class OverviewBuilder {
 public:
  // Sets `out`'s extent and resolution from `range` and gives it one (empty) TrackRows per
  // track that is not a counter.
  OverviewBuilder(const TimeRange& range, const std::vector<Track>& tracks, Overview& out);

  // The next event, in the reader's order. Events of tracks not given above are not counted.
  void take(const Event& e);
  // Moves what was taken since the last call into `out` (the Overview given above, or a copy
  // of it); `last` also closes the open runs. Labels are named through `label_of`.
  void publish(Overview& out, const std::function<const Label&(std::uint32_t)>& label_of,
               bool last);
  std::uint64_t events() const { return events_; }

 private:
  struct RowState {
    RowMerger merger;
    std::vector<Zone> pending;  // finished zones not yet published
  };
  struct TrackState {
    std::size_t index = 0;  // into Overview::tracks
    std::vector<RowState> rows;
  };
  struct LabelState {
    std::uint64_t count = 0;
    std::vector<std::uint32_t> new_bins;
    std::vector<std::uint64_t> new_counts;  // events per entry of new_bins
    std::int64_t last_bin = -1;
  };

  Overview extent_;  // begin/end only, for search_bin()
  double resolution_ = 1;
  DepthTracker depth_;
  IdMap<TrackState> tracks_;
  IdMap<LabelState> labels_;
  std::uint64_t events_ = 0;
};

// The counter tracks' series, thinned (make_counter_series).
std::vector<CounterSeries> read_counters(const Reader& reader);

// The overview of the whole trace `reader` reads, in one scan.
Overview build_overview(const Reader& reader);
// The same over `extent` (its resolution and search bins), which covers the trace's events.
Overview build_overview(const Reader& reader, const TimeRange& extent);

}  // namespace ts::store
