#include "gui/models/event_window.hpp"

#include <unordered_map>

#include "profiler/store/overview_builder.hpp"

namespace ts::gui {

namespace {
struct TooManyEvents {};
}  // namespace

const TrackRows* EventWindow::rows_of(std::uint32_t track) const {
  return store::find_track(tracks, track);
}

const CounterSeries* EventWindow::counter_of(std::uint32_t track) const {
  return store::find_track(counters, track);
}

std::optional<EventWindow> load_window(const store::Reader& reader, std::int64_t t0,
                                       std::int64_t t1, std::uint64_t max_events) {
  EventWindow w;
  w.t0 = t0;
  w.t1 = t1;
  for (const store::Track& t : reader.tracks())
    if (t.kind != trace::TrackKind::counter) w.tracks.push_back(TrackRows{t.id, {}});
  store::order_by_track(w.tracks);
  std::unordered_map<std::uint32_t, std::size_t> index;
  for (std::size_t i = 0; i < w.tracks.size(); ++i) index[w.tracks[i].track] = i;
  // Events that started before t0 and overlap it come too, so every zone's enclosing zones are
  // present and depths are right inside the window.
  store::DepthTracker depth;
  try {
    reader.scan(t0, t1, 0, [&](const store::Event& e) {
      const auto it = index.find(e.track);
      if (it == index.end()) return;
      if (++w.events > max_events) throw TooManyEvents{};
      const int d = depth.push(e.track, e.start_ns, e.end_ns());
      if (d > store::DepthTracker::kMaxDepth) return;
      w.tracks[it->second]
          .row(static_cast<std::size_t>(d))
          .zones.push_back(Zone{e.start_ns, e.end_ns(), e.label, 1});
    });
  } catch (const TooManyEvents&) {
    return std::nullopt;
  }
  for (const store::Track& t : reader.tracks())
    if (t.kind == trace::TrackKind::counter)
      w.counters.push_back(make_counter_series(t.id, reader.counter(t.id, t0, t1)));
  store::order_by_track(w.counters);
  return w;
}

}  // namespace ts::gui
