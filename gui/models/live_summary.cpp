#include "gui/models/live_summary.hpp"

#include <algorithm>
#include <bit>
#include <utility>

namespace ts::gui {

namespace {

std::vector<std::uint32_t> event_tracks(const store::Reader& reader) {
  std::vector<std::uint32_t> ids;
  for (const store::Track& t : reader.tracks())
    if (t.kind != trace::TrackKind::counter) ids.push_back(t.id);
  return ids;
}

}  // namespace

store::TimeRange LiveSummary::extent_for(const store::TimeRange& range) {
  const auto span = static_cast<std::uint64_t>(
      std::max<std::int64_t>(1, store::sat_sub(range.end_ns, range.start_ns)));
  // At least 5/4 of the span, rounded up to a power of two: room for the capture to grow.
  const std::uint64_t room = span + span / 4 + 1;
  const std::uint64_t padded =
      room >= (std::uint64_t{1} << 62) ? std::uint64_t{1} << 62 : std::bit_ceil(room);
  return {range.start_ns, store::sat_add(range.start_ns, static_cast<std::int64_t>(padded))};
}

std::uint64_t LiveSummary::reused_events() const {
  const std::lock_guard lock(mutex_);
  return reused_;
}

bool LiveSummary::build(const store::Reader& reader, TraceSummary& summary,
                        const std::atomic<bool>& cancel) {
  const std::int64_t from = changed_.take();
  const auto keep_noted = [&] {
    changed_.note(from);
    const std::lock_guard lock(mutex_);
    kept_.reset();
  };
  try {
    const store::TimeRange range = reader.time_range();
    const std::vector<std::uint32_t> tracks = event_tracks(reader);
    const auto label_of = [&](std::uint32_t id) -> const store::Label& { return reader.label(id); };
    std::unique_lock lock(mutex_);
    const bool reuse = kept_ && kept_->until_ns <= from && kept_->tracks == tracks &&
                       kept_->extent.start_ns == range.start_ns &&
                       range.end_ns < kept_->extent.end_ns;
    const store::TimeRange extent = reuse ? kept_->extent : extent_for(range);
    store::Overview out;
    std::optional<store::OverviewBuilder> builder;
    std::int64_t start = range.start_ns;
    if (reuse) {
      out = kept_->overview;
      builder.emplace(kept_->builder);
      start = kept_->until_ns;
      reused_ = kept_->overview.events;
    } else {
      kept_.reset();
      builder.emplace(extent, reader.tracks(), out);
      reused_ = 0;
    }
    lock.unlock();
    out.counters = store::read_counters(reader);
    const auto take_from = [&](std::int64_t t0, std::int64_t t1) {
      reader.scan(t0, t1, 0, [&](const store::Event& e) {
        if (e.start_ns >= t0) builder->take(e);
      });
    };
    // Up to the time the next reload goes on from, then the last seconds.
    const std::int64_t settle = std::max(start, store::sat_sub(range.end_ns, settle_ns_));
    const std::int64_t end = store::sat_add(range.end_ns, 1);
    if (settle > start) {
      take_from(start, settle);
      builder->publish(out, label_of, false);
      if (cancel.load()) {
        keep_noted();
        return false;
      }
      lock.lock();
      kept_.reset();
      kept_.emplace(Kept{extent, tracks, settle, *builder, out});
      lock.unlock();
    }
    take_from(std::max(start, settle), end);
    builder->publish(out, label_of, true);
    if (cancel.load()) {
      keep_noted();
      return false;
    }
    summary.write([&](SummaryData& d) {
      static_cast<store::Overview&>(d) = std::move(out);
      d.content_end_ns = range.end_ns;
      d.scanned_until_ns = end;
      d.source = SummaryData::Source::scan;
      d.done = true;
    });
    return true;
  } catch (...) {
    keep_noted();
    throw;
  }
}

}  // namespace ts::gui
