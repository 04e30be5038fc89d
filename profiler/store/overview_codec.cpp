#include "profiler/store/overview_codec.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "profiler/store/analysis_table.hpp"
#include "profiler/store/byte_codec.hpp"
#include "profiler/store/overview_builder.hpp"
#include "profiler/store/overview_feed.hpp"
#include "profiler/store/sqlite.hpp"
#include "profiler/store/varint.hpp"

namespace ts::store {

namespace {

constexpr std::string_view kMagic = "TSOV";
constexpr unsigned char kFormat = 1;
// Parts of the overview table: well below SQLite's 16 MiB value limit that readers set.
constexpr std::size_t kPartBytes = std::size_t{4} << 20;
// Bounds no overview a writer builds exceeds (events name tracks with 16 bits), so a hostile
// one cannot make the decoder allocate many times its own size.
constexpr std::size_t kMaxTracks = std::size_t{1} << 16;

bool decode_row(ByteInput& in, Row& row) {
  std::size_t zones = 0;
  if (!in.count(zones, 3)) return false;
  row.zones.reserve(zones);
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  for (std::size_t i = 0; i < zones; ++i) {
    Zone z;
    std::uint64_t gap = 0, dur = 0, label = 0;
    if (!in.u64(gap) || !in.u64(dur) || !in.u64(label) || dur > kMax ||
        (label >> 1) > std::numeric_limits<std::uint32_t>::max())
      return false;
    if (i == 0) {
      z.start_ns = varint::unzigzag(gap);
    } else if (gap > kMax || __builtin_add_overflow(row.zones.back().end_ns,
                                                    static_cast<std::int64_t>(gap), &z.start_ns)) {
      return false;
    }
    if (__builtin_add_overflow(z.start_ns, static_cast<std::int64_t>(dur), &z.end_ns)) return false;
    z.label = static_cast<std::uint32_t>(label >> 1);
    z.count = 1;
    if ((label & 1) != 0 && (!in.u32(z.count) || z.count < 2)) return false;
    row.push(z);
  }
  return true;
}

bool decode_counter(ByteInput& in, CounterSeries& c) {
  std::size_t points = 0;
  if (!in.u32(c.track) || !in.f64(c.min) || !in.f64(c.max) || !in.u64(c.samples) ||
      !in.count(points, 9))
    return false;
  c.ts_ns.reserve(points);
  c.values.reserve(points);
  std::int64_t ts = 0;
  for (std::size_t i = 0; i < points; ++i) {
    std::int64_t delta = 0;
    double v = 0;
    if (!in.i64(delta) || !in.f64(v)) return false;
    if (i > 0 && (delta < 0 || __builtin_add_overflow(ts, delta, &ts))) return false;
    if (i == 0) ts = delta;
    c.ts_ns.push_back(ts);
    c.values.push_back(v);
  }
  return true;
}

bool decode_label(ByteInput& in, std::uint32_t& id, LabelStats& l) {
  std::uint64_t category = 0;
  std::size_t name_bytes = 0, bins = 0;
  if (!in.u32(id) || !in.u64(category) || category >= trace::kCategoryCount || !in.u64(l.count) ||
      !in.count(name_bytes, 1) || name_bytes > kMaxNameBytes + 3 || !in.bytes(name_bytes, l.name) ||
      !in.count(bins, 2))
    return false;
  l.category = static_cast<trace::Category>(category);
  std::uint64_t bin = 0;
  for (std::size_t i = 0; i < bins; ++i) {
    std::uint64_t delta = 0, events = 0;
    if (!in.u64(delta) || !in.u64(events)) return false;
    if (i > 0 && delta == 0) return false;  // bins ascend
    bin += delta;
    if (bin >= static_cast<std::uint64_t>(Overview::kSearchBins)) return false;
    l.bins.push_back(static_cast<std::uint32_t>(bin));
    l.bin_counts.push_back(events);
  }
  return true;
}

}  // namespace

std::string encode_overview(const Overview& o) {
  std::string out(kMagic);
  out += static_cast<char>(kFormat);
  varint::append(out, o.events);
  varint::append(out, varint::zigzag(o.begin_ns));
  varint::append(out, varint::zigzag(o.end_ns));
  put_f64(out, o.resolution_ns);
  varint::append(out, o.tracks.size());
  for (const TrackRows& t : o.tracks) {
    varint::append(out, t.track);
    varint::append(out, t.rows.size());
    for (const Row& row : t.rows) {
      varint::append(out, row.zones.size());
      for (std::size_t i = 0; i < row.zones.size(); ++i) {
        const Zone& z = row.zones[i];
        // Unsigned differences: a span beyond INT64_MAX (a hostile trace's) encodes without
        // overflowing, and the decoder refuses it, so the viewer scans that trace instead.
        varint::append(out, i == 0 ? varint::zigzag(z.start_ns)
                                   : static_cast<std::uint64_t>(z.start_ns) -
                                         static_cast<std::uint64_t>(row.zones[i - 1].end_ns));
        varint::append(
            out, static_cast<std::uint64_t>(z.end_ns) - static_cast<std::uint64_t>(z.start_ns));
        const bool merged = z.count != 1;
        varint::append(out, std::uint64_t{z.label} << 1 | (merged ? 1 : 0));
        if (merged) varint::append(out, z.count);
      }
    }
  }
  varint::append(out, o.counters.size());
  for (const CounterSeries& c : o.counters) {
    varint::append(out, c.track);
    put_f64(out, c.min);
    put_f64(out, c.max);
    varint::append(out, c.samples);
    varint::append(out, c.ts_ns.size());
    std::int64_t ts = 0;
    for (std::size_t i = 0; i < c.ts_ns.size(); ++i) {
      varint::append(out, varint::zigzag(varint::wrapping_sub(c.ts_ns[i], ts)));
      put_f64(out, c.values[i]);
      ts = c.ts_ns[i];
    }
  }
  // Labels by id: the same overview always encodes to the same bytes.
  std::vector<std::uint32_t> ids;
  ids.reserve(o.labels.size());
  for (const auto& entry : o.labels) ids.push_back(entry.first);
  std::sort(ids.begin(), ids.end());
  varint::append(out, ids.size());
  for (const std::uint32_t id : ids) {
    const LabelStats& l = o.labels.at(id);
    varint::append(out, id);
    varint::append(out, static_cast<std::uint64_t>(l.category));
    varint::append(out, l.count);
    varint::append(out, l.name.size());
    out += l.name;
    varint::append(out, l.bins.size());
    std::uint32_t bin = 0;
    for (std::size_t i = 0; i < l.bins.size(); ++i) {
      varint::append(out, l.bins[i] - bin);
      varint::append(out, l.bin_counts[i]);
      bin = l.bins[i];
    }
  }
  return out;
}

std::optional<Overview> decode_overview(std::string_view bytes) {
  ByteInput in(bytes);
  Overview o;
  std::uint64_t format = 0;
  std::int64_t begin = 0, end = 0;
  if (!in.skip(kMagic) || !in.u64(format) || format != kFormat || !in.u64(o.events) ||
      !in.i64(begin) || !in.i64(end) || !in.f64(o.resolution_ns) || end < begin ||
      !(o.resolution_ns >= 1))
    return std::nullopt;
  o.has_extent = true;
  o.begin_ns = begin;
  o.end_ns = end;
  std::size_t tracks = 0;
  if (!in.count(tracks, 2) || tracks > kMaxTracks) return std::nullopt;
  o.tracks.resize(tracks);
  for (TrackRows& t : o.tracks) {
    std::size_t rows = 0;
    if (!in.u32(t.track) || !in.count(rows, 1) || rows > DepthTracker::kMaxDepth + 1)
      return std::nullopt;
    t.rows.resize(rows);
    for (Row& row : t.rows)
      if (!decode_row(in, row)) return std::nullopt;
  }
  std::size_t counters = 0;
  if (!in.count(counters, 19)) return std::nullopt;
  o.counters.resize(counters);
  for (CounterSeries& c : o.counters)
    if (!decode_counter(in, c)) return std::nullopt;
  std::size_t labels = 0;
  if (!in.count(labels, 5)) return std::nullopt;
  for (std::size_t i = 0; i < labels; ++i) {
    std::uint32_t id = 0;
    LabelStats l;
    if (!decode_label(in, id, l)) return std::nullopt;
    o.labels[id] = std::move(l);
  }
  if (in.left() != 0) return std::nullopt;
  // Tracks and counters are encoded in track order; out of order they would be looked up wrong.
  const auto by_track = [](const auto& a, const auto& b) { return a.track < b.track; };
  if (!std::is_sorted(o.tracks.begin(), o.tracks.end(), by_track) ||
      !std::is_sorted(o.counters.begin(), o.counters.end(), by_track))
    return std::nullopt;
  return o;
}

std::optional<Overview> stored_overview(const Reader& reader) {
  const std::string bytes = reader.overview_bytes();
  if (bytes.empty()) return std::nullopt;
  return decode_overview(bytes);
}

namespace {

bool store_overview(const std::string& path, OverviewFeed* fed, Durability durability) noexcept {
  try {
    std::string bytes;
    {
      const Reader reader(path);
      std::optional<Overview> made = fed != nullptr ? fed->finish(reader) : std::nullopt;
      bytes = encode_overview(made ? *made : build_overview(reader));
    }
    Db db;
    db.open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, "cannot store the overview of");
    set_durability(db, durability);
    db.exec("BEGIN; DELETE FROM overview", "cannot store the overview of");
    clear_kept_analysis(db);  // made from the events as they were
    Stmt put(db, "INSERT INTO overview (part, data) VALUES (?, ?)", "cannot store the overview of");
    for (std::size_t at = 0, part = 0; at < bytes.size(); at += kPartBytes, ++part) {
      const std::size_t n = std::min(kPartBytes, bytes.size() - at);
      put.bind(1, static_cast<std::int64_t>(part));
      sqlite3_bind_blob(put.get(), 2, bytes.data() + at, static_cast<int>(n), SQLITE_STATIC);
      put.run();
    }
    put = Stmt();
    db.exec("COMMIT", "cannot store the overview of");
    return true;
  } catch (...) {
    return false;  // an open transaction rolls back as the connection closes
  }
}

}  // namespace

bool store_overview(const std::string& path, Durability durability) noexcept {
  return store_overview(path, nullptr, durability);
}

bool store_overview(const std::string& path, OverviewFeed& fed, Durability durability) noexcept {
  return store_overview(path, &fed, durability);
}

}  // namespace ts::store
