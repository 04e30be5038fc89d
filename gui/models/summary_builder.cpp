#include "gui/models/summary_builder.hpp"

#include <algorithm>
#include <limits>

#include "gui/models/depth_tracker.hpp"
#include "gui/models/id_map.hpp"
#include "gui/models/row_merger.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/schema.hpp"

namespace ts::gui {

namespace {

// Per row: the merger and the finished zones not yet published.
struct RowState {
  RowMerger merger;
  std::vector<Zone> pending;
};

struct TrackState {
  std::size_t index = 0;  // into SummaryData::tracks
  std::vector<RowState> rows;
};

// Per label: events since the last publish, and the last search bin recorded.
struct LabelState {
  std::uint64_t count = 0;
  std::vector<std::uint32_t> new_bins;
  std::vector<std::uint64_t> new_counts;  // events per entry of new_bins
  std::int64_t last_bin = -1;
};

class Builder {
 public:
  Builder(const std::string& path, TraceSummary& summary) : reader_(path), summary_(summary) {}

  void run(const std::atomic<bool>& cancel, const std::function<void(double)>& progress) {
    const store::TimeRange range = reader_.time_range();
    load_counters();
    setup(range);
    const double span = static_cast<double>(range.end_ns - range.start_ns) + 1;
    // Chunks of at least four long-event lookbacks, so the reader's lookback stays cheap.
    const double chunks = std::clamp(span / (4.0 * store::kLongEventNs), 1.0, 32.0);
    const auto chunk_end = [&](int k) {
      return k >= static_cast<int>(chunks)
                 ? range.end_ns + 1
                 : range.start_ns + static_cast<std::int64_t>(span * k / chunks);
    };
    for (int k = 0; k < static_cast<int>(chunks); ++k) {
      if (cancel.load()) return;
      const std::int64_t t0 = chunk_end(k), t1 = chunk_end(k + 1);
      reader_.scan(t0, t1, 0, [&](const store::Event& e) {
        if (e.start_ns >= t0) take(e);
      });
      if (k + 1 == static_cast<int>(chunks))
        tracks_.for_each([](std::uint32_t, TrackState& t) {
          for (RowState& r : t.rows) r.merger.flush(r.pending);
        });
      publish(t1, k + 1 == static_cast<int>(chunks));
      if (progress) progress((k + 1) / chunks);
    }
  }

 private:
  void load_counters() {
    std::vector<CounterSeries> counters;
    for (const store::Track& t : reader_.tracks()) {
      if (t.kind != trace::TrackKind::counter) continue;
      const auto samples = reader_.counter(t.id, std::numeric_limits<std::int64_t>::min(),
                                           std::numeric_limits<std::int64_t>::max());
      counters.push_back(make_counter_series(t.id, samples));
    }
    summary_.write([&](SummaryData& d) { d.counters = std::move(counters); });
  }

  void setup(const store::TimeRange& range) {
    resolution_ =
        std::max(1.0, static_cast<double>(range.end_ns - range.start_ns) / SummaryData::kBins);
    summary_.write([&](SummaryData& d) {
      d.has_extent = true;
      d.begin_ns = range.start_ns;
      d.end_ns = std::max(range.end_ns, range.start_ns + 1);
      d.resolution_ns = resolution_;
      d.scanned_until_ns = range.start_ns;
      for (const store::Track& t : reader_.tracks()) {
        if (t.kind == trace::TrackKind::counter) continue;
        tracks_[t.id].index = d.tracks.size();
        d.tracks.push_back(TrackRows{t.id, {}});
      }
      extent_.begin_ns = d.begin_ns;  // for search_bin()
      extent_.end_ns = d.end_ns;
    });
  }

  void take(const store::Event& e) {
    TrackState* track = tracks_.find(e.track);
    if (!track) return;  // an event of a track the file does not define
    const int depth = depth_.push(e.track, e.start_ns, e.end_ns());
    ++events_;
    LabelState& l = labels_[e.label];
    ++l.count;
    const std::int64_t bin = extent_.search_bin(e.start_ns);
    if (bin != l.last_bin || l.new_bins.empty()) {
      l.new_bins.push_back(static_cast<std::uint32_t>(bin));
      l.new_counts.push_back(0);
      l.last_bin = bin;
    }
    ++l.new_counts.back();
    if (depth > DepthTracker::kMaxDepth) return;
    auto& rows = track->rows;
    while (rows.size() <= static_cast<std::size_t>(depth))
      rows.push_back({RowMerger(resolution_, 4 * resolution_), {}});
    RowState& r = rows[static_cast<std::size_t>(depth)];
    r.merger.add(Zone{e.start_ns, e.end_ns(), e.label, 1}, r.pending);
  }

  void publish(std::int64_t scanned_until, bool done) {
    summary_.write([&](SummaryData& d) {
      tracks_.for_each([&](std::uint32_t, TrackState& t) {
        TrackRows& out = d.tracks[t.index];
        for (std::size_t depth = 0; depth < t.rows.size(); ++depth) {
          Row& row = out.row(depth);
          for (const Zone& z : t.rows[depth].pending) row.push(z);
          t.rows[depth].pending.clear();
        }
      });
      labels_.for_each([&](std::uint32_t id, LabelState& l) {
        LabelStats& s = d.labels[id];
        if (s.count == 0) {
          const store::Label& label = reader_.label(id);
          s.name = label.name;
          s.category = label.category;
        }
        s.count += l.count;
        for (std::size_t i = 0; i < l.new_bins.size(); ++i) {
          if (s.bins.empty() || s.bins.back() != l.new_bins[i]) {
            s.bins.push_back(l.new_bins[i]);
            s.bin_counts.push_back(0);
          }
          s.bin_counts.back() += l.new_counts[i];
        }
        l.count = 0;
        l.new_bins.clear();
        l.new_counts.clear();
      });
      d.scanned_until_ns = scanned_until;
      d.events = events_;
      d.done = done;
    });
  }

  store::Reader reader_;
  TraceSummary& summary_;
  SummaryData extent_;
  double resolution_ = 1;
  DepthTracker depth_;
  IdMap<TrackState> tracks_;
  IdMap<LabelState> labels_;
  std::uint64_t events_ = 0;
};

}  // namespace

void build_summary(const std::string& path, TraceSummary& summary, const std::atomic<bool>& cancel,
                   const std::function<void(double)>& progress) {
  try {
    Builder(path, summary).run(cancel, progress);
  } catch (const std::exception& e) {
    summary.write([&](SummaryData& d) { d.error = e.what(); });
    throw;
  }
}

}  // namespace ts::gui
