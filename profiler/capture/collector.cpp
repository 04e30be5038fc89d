#include "profiler/capture/collector.hpp"

#include <algorithm>
#include <bit>

#include "trainscope/meta_keys.hpp"

namespace ts::trace::capture {

using core::EventKind;

namespace {

std::int64_t opt(std::uint64_t v) {
  return v == 0 ? store::kNull : static_cast<std::int64_t>(v & 0x7FFFFFFFFFFFFFFFull);
}

std::int64_t step_of(std::uint32_t s) {
  return s == core::kNoStep32 ? store::kNull : static_cast<std::int64_t>(s);
}

}  // namespace

Collector::Collector(store::Writer& writer, const core::Calibration& calibration,
                     core::Runtime& runtime)
    : writer_(writer), cal_(calibration), rt_(runtime) {
  drop_baseline_ = rt_.threads.dropped_by_track();
}

std::uint32_t Collector::site_label(const Site* site) {
  auto [it, fresh] = site_labels_.try_emplace(site, next_label_);
  if (fresh) {
    ++next_label_;
    writer_.put_label(it->second, rt_.strings.intern(site->name), site->category,
                      rt_.strings.intern(site->file), site->line);
  }
  return it->second;
}

std::uint32_t Collector::name_label(std::uint32_t name_id, std::uint8_t category) {
  const std::uint64_t key = core::pack_name(name_id, category);
  auto [it, fresh] = name_labels_.try_emplace(key, next_label_);
  if (fresh) {
    ++next_label_;
    const auto c = category < kCategoryCount ? static_cast<Category>(category) : Category::other;
    writer_.put_label(it->second, name_id, c);
  }
  return it->second;
}

std::uint32_t Collector::step_label() {
  if (step_label_ == 0)
    step_label_ = name_label(rt_.strings.intern("step"), static_cast<std::uint8_t>(Category::step));
  return step_label_;
}

std::uint32_t Collector::counter_track(const CounterSite* site) {
  auto [it, fresh] = counter_tracks_.try_emplace(site, 0);
  if (fresh) it->second = rt_.tracks.find_or_add(site->name, TrackKind::counter);
  return it->second;
}

void Collector::use_track(std::uint32_t track) {
  if (track >= track_used_.size()) track_used_.resize(track + 1, false);
  if (!track_used_[track]) {
    track_used_[track] = true;
    tracks_dirty_ = true;
  }
}

void Collector::on_event(const core::ThreadBuffer& thread, const core::Event& e,
                         const core::ArgsRecord* a) {
  store::EventRow r;
  r.track = thread.track;
  r.step = step_of(e.step);
  switch (e.kind) {
    case EventKind::zone:
      r.label = site_label(reinterpret_cast<const Site*>(e.ref));
      break;
    case EventKind::zone_dynamic:
      r.label = name_label(core::name_of(e.ref), core::category_of(e.ref));
      break;
    case EventKind::step:
      r.label = step_label();
      break;
    case EventKind::device:
      r.label = name_label(core::name_of(e.ref), core::category_of(e.ref));
      r.track = e.track;
      r.start_ns = static_cast<std::int64_t>(e.t0);
      r.dur_ns = std::max<std::int64_t>(0, static_cast<std::int64_t>(e.t1 - e.t0));
      break;
    case EventKind::counter_site:
    case EventKind::counter_track: {
      const std::uint32_t track = e.kind == EventKind::counter_site
                                      ? counter_track(reinterpret_cast<const CounterSite*>(e.ref))
                                      : e.track;
      if (track == 0) return;
      use_track(track);
      counters_.push_back({track, cal_.to_ns(e.t0), std::bit_cast<double>(e.t1)});
      return;
    }
    default:
      return;
  }
  if (e.kind != EventKind::device) {
    r.start_ns = cal_.to_ns(e.t0);
    r.dur_ns = std::max<std::int64_t>(0, cal_.to_ns(e.t1) - r.start_ns);
  }
  if (a != nullptr) {
    r.bytes = opt(a->bytes);
    r.work_size = opt(a->work_size);
    r.correlation = opt(a->correlation);
  }
  use_track(r.track);
  rows_.push_back(r);
}

std::size_t Collector::drain() {
  std::size_t n = 0;
  for (core::ThreadBuffer* b : rt_.threads.buffers()) {
    core::SpscRing* ring = b->ring.load(std::memory_order_acquire);
    if (ring == nullptr) continue;
    n += ring->drain([&](const core::Event& e, const core::ArgsRecord* a) { on_event(*b, e, a); });
  }
  write_rows();
  return n;
}

void Collector::reap(bool last) {
  const core::DrainFn fn = [&](const core::ThreadBuffer& b, const core::Event& e,
                               const core::ArgsRecord* a) { on_event(b, e, a); };
  if (last)
    rt_.threads.end_consuming(fn);
  else
    rt_.threads.reap(fn);
  write_rows();
}

void Collector::write_rows() {
  // Rows go in the order drained: per thread, the order recorded (a zone is recorded when it
  // ends, after the zones nested in it). The writer sorts them stably by key when it indexes
  // them, which keeps that order among ties, the order its nesting rules rely on; capture pays
  // for a copy only.
  if (!rows_.empty()) {
    writer_.append(std::span<const store::EventRow>(rows_));
    rows_.clear();
  }
  if (!counters_.empty()) {
    writer_.append(std::span<const store::CounterRow>(counters_));
    counters_.clear();
  }
}

void Collector::sync_tracks() {
  const std::uint64_t v = rt_.tracks.version();
  if (!tracks_dirty_ && v == tracks_version_) return;
  tracks_version_ = v;
  tracks_dirty_ = false;
  for (const core::TrackInfo& t : rt_.tracks.snapshot()) {
    const bool used = t.id < track_used_.size() && track_used_[t.id];
    if (t.kind == TrackKind::thread && !used) continue;
    auto it = tracks_written_.find(t.id);
    if (it != tracks_written_.end() && it->second == t.name) continue;
    writer_.put_track(t.id, t.name, t.kind, t.kind == TrackKind::thread ? t.os_tid : store::kNull);
    tracks_written_[t.id] = t.name;
  }
}

std::map<std::uint32_t, std::uint64_t> Collector::drops_by_track() {
  std::map<std::uint32_t, std::uint64_t> out;
  for (const auto& [track, count] : rt_.threads.dropped_by_track()) {
    auto base = drop_baseline_.find(track);
    const std::uint64_t n = count - (base != drop_baseline_.end() ? base->second : 0);
    if (n != 0) out[track] = n;
  }
  return out;
}

std::uint64_t Collector::count_dropped() {
  std::uint64_t total = 0;
  for (const auto& [track, n] : drops_by_track()) total += n;
  return total;
}

std::uint64_t Collector::discard() {
  std::uint64_t n = rows_.size();
  rows_.clear();
  counters_.clear();
  const auto count = [&](const core::ThreadBuffer&, const core::Event& e, const core::ArgsRecord*) {
    n += e.kind != EventKind::counter_site && e.kind != EventKind::counter_track ? 1 : 0;
  };
  for (core::ThreadBuffer* b : rt_.threads.buffers())
    if (core::SpscRing* ring = b->ring.load(std::memory_order_acquire))
      ring->drain([&](const core::Event& e, const core::ArgsRecord* a) { count(*b, e, a); });
  rt_.threads.end_consuming(count);
  return n;
}

void Collector::sync_drops() {
  std::uint64_t total = 0;
  for (const auto& [track, n] : drops_by_track()) {
    total += n;
    auto& written = drops_written_[track];
    if (written != n) {
      writer_.put_meta("dropped_events.track." + std::to_string(track), std::to_string(n));
      written = n;
    }
  }
  if (total != dropped_ || !drops_written_once_) {
    dropped_ = total;
    drops_written_once_ = true;
    writer_.put_meta(meta_key::kDroppedEvents, std::to_string(total));
  }
}

void Collector::sync_tables() {
  std::vector<std::string> fresh;
  const std::uint32_t first = next_string_;
  next_string_ = rt_.strings.copy_since(first, fresh);
  for (std::size_t i = 0; i < fresh.size(); ++i)
    writer_.put_string(first + static_cast<std::uint32_t>(i), fresh[i]);
  sync_tracks();
  sync_drops();
  const std::uint64_t mv = rt_.meta.version();
  if (mv != meta_version_) {
    meta_version_ = mv;
    for (const auto& [k, v] : rt_.meta.snapshot()) writer_.put_meta(k, v);
  }
}

}  // namespace ts::trace::capture
