#include "profiler/store/overview_builder.hpp"

#include <algorithm>
#include <limits>

#include "profiler/store/batch_pipe.hpp"

namespace ts::store {

int DepthTracker::push(std::uint32_t track, std::int64_t start_ns, std::int64_t end_ns) {
  std::vector<std::int64_t>& ends = open_ends_[track];
  while (!ends.empty() && ends.back() <= start_ns) ends.pop_back();
  const int depth = static_cast<int>(ends.size());
  ends.push_back(end_ns);
  return depth;
}

void RowMerger::add(const Zone& z, std::vector<Zone>& out) {
  const std::int64_t dur = sat_sub(z.end_ns, z.start_ns);
  if (open_ && !wide(z) &&
      static_cast<double>(z.start_ns) < static_cast<double>(run_.end_ns) + min_ns_ &&
      static_cast<double>(std::max(run_.end_ns, z.end_ns)) - static_cast<double>(run_.start_ns) <=
          max_run_ns_) {
    run_.end_ns = std::max(run_.end_ns, z.end_ns);
    run_.count += z.count;
    if (dur > longest_) {
      longest_ = dur;
      run_.label = z.label;
    }
    return;
  }
  flush(out);
  if (wide(z)) {
    out.push_back(z);
    return;
  }
  open_ = true;
  run_ = z;
  longest_ = dur;
}

void RowMerger::flush(std::vector<Zone>& out) {
  if (open_) out.push_back(run_);
  open_ = false;
}

OverviewBuilder::OverviewBuilder(const TimeRange& range, const std::vector<Track>& tracks,
                                 Overview& out) {
  resolution_ =
      std::max(1.0, (static_cast<double>(range.end_ns) - static_cast<double>(range.start_ns)) /
                        Overview::kBins);
  out.has_extent = true;
  out.begin_ns = range.start_ns;
  out.end_ns = std::max(range.end_ns, sat_add(range.start_ns, 1));
  out.resolution_ns = resolution_;
  for (const Track& t : tracks)
    if (t.kind != trace::TrackKind::counter) out.tracks.push_back(TrackRows{t.id, {}});
  order_by_track(out.tracks);
  for (std::size_t i = 0; i < out.tracks.size(); ++i) tracks_[out.tracks[i].track].index = i;
  extent_.begin_ns = out.begin_ns;
  extent_.end_ns = out.end_ns;
}

void OverviewBuilder::take(const Event& e) {
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

void OverviewBuilder::publish(Overview& out,
                              const std::function<const Label&(std::uint32_t)>& label_of,
                              bool last) {
  tracks_.for_each([&](std::uint32_t, TrackState& t) {
    TrackRows& rows_out = out.tracks[t.index];
    for (std::size_t depth = 0; depth < t.rows.size(); ++depth) {
      RowState& r = t.rows[depth];
      if (last) r.merger.flush(r.pending);
      Row& row = rows_out.row(depth);
      for (const Zone& z : r.pending) row.push(z);
      r.pending.clear();
    }
  });
  labels_.for_each([&](std::uint32_t id, LabelState& l) {
    if (l.count == 0) return;
    LabelStats& s = out.labels[id];
    if (s.count == 0) {
      const Label& label = label_of(id);
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
  out.events = events_;
}

std::vector<CounterSeries> read_counters(const Reader& reader) {
  std::vector<CounterSeries> counters;
  for (const Track& t : reader.tracks()) {
    if (t.kind != trace::TrackKind::counter) continue;
    const auto samples = reader.counter(t.id, std::numeric_limits<std::int64_t>::min(),
                                        std::numeric_limits<std::int64_t>::max());
    // A minimum and a maximum per two bins: a pixel of the widest view that draws from the
    // overview spans a few bins.
    counters.push_back(make_counter_series(t.id, samples, Overview::kBins));
  }
  order_by_track(counters);
  return counters;
}

Overview build_overview(const Reader& reader) {
  return build_overview(reader, reader.time_range());
}

Overview build_overview(const Reader& reader, const TimeRange& extent) {
  Overview out;
  out.counters = read_counters(reader);
  const TimeRange range = reader.time_range();
  OverviewBuilder builder(extent, reader.tracks(), out);
  {
    // The events are read on a thread of their own while this one builds: SQLite's stepping is
    // most of the time, and the builder runs beside it instead of after each row.
    BatchProducer<Event> events([&](BatchPipe<Event>& pipe) {
      reader.scan(range.start_ns, sat_add(range.end_ns, 1), 0,
                  [&](const Event& e) { pipe.push(e); });
    });
    std::vector<Event> batch;
    while (events.next(batch))
      for (const Event& e : batch) builder.take(e);
    events.join();  // the reader is this thread's again
  }
  builder.publish(
      out, [&](std::uint32_t id) -> const Label& { return reader.label(id); }, true);
  return out;
}

}  // namespace ts::store
