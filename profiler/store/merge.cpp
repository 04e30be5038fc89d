#include "profiler/store/merge.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <queue>
#include <tuple>
#include <unordered_map>

#include "profiler/store/error.hpp"
#include "profiler/store/event_key.hpp"
#include "profiler/store/file_check.hpp"
#include "profiler/store/file_header.hpp"
#include "profiler/store/read_only_open.hpp"
#include "profiler/store/schema.hpp"
#include "profiler/store/sqlite.hpp"
#include "profiler/store/writer.hpp"
#include "trainscope/meta_keys.hpp"

namespace ts::store {

namespace {

constexpr const char* kRead = "cannot read trace";
constexpr std::size_t kBatch = 8192;
constexpr std::uint32_t kMaxTrack = kTrackLimit - 1;

bool is_id(std::int64_t v) {
  return v >= 0 && v <= std::int64_t{0xffffffff};
}

// The merged output's interned strings and labels, shared by every part.
class Tables {
 public:
  explicit Tables(Writer& w) : w_(w) {}

  std::uint32_t string(const std::string& text) {
    const auto [it, fresh] = strings_.try_emplace(text, next_string_);
    if (fresh) w_.put_string(next_string_++, text);
    return it->second;
  }

  std::uint32_t label(std::uint32_t name, std::int64_t category, std::uint32_t file,
                      std::int64_t line) {
    const auto key = std::make_tuple(name, category, file, line);
    const auto [it, fresh] = labels_.try_emplace(key, next_label_);
    if (fresh) {
      const auto cat = category >= 0 && category < trace::kCategoryCount
                           ? static_cast<trace::Category>(category)
                           : trace::Category::other;
      w_.put_label(next_label_++, name, cat, file, line);
    }
    return it->second;
  }

 private:
  Writer& w_;
  std::unordered_map<std::string, std::uint32_t> strings_;
  std::map<std::tuple<std::uint32_t, std::int64_t, std::uint32_t, std::int64_t>, std::uint32_t>
      labels_;
  std::uint32_t next_string_ = 1, next_label_ = 1;
};

// One part, read through its own connection: tables copied up front, events streamed in key
// order.
class PartReader {
 public:
  PartReader(const MergePart& part, std::size_t index) : part_(part), index_(index) {
    check_regular_files(part.path);
    const auto h = read_file_header(part.path);
    if (!h) throw Error("cannot open trace " + part.path + ": " + std::strerror(errno));
    if (h->header_bytes > 0 && !h->sqlite)
      throw Error(part.path + " is not a trainscope trace (not an SQLite database)");
    open_read_only(db_, part.path, "cannot open trace");
    db_.set_work_budget(work_budget(size_with_write_ahead_log(part.path)));
    sqlite3_db_config(db_.get(), SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(db_.get(), SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
    sqlite3_db_config(db_.get(), SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
    // A small page cache per part: a merge of hundreds of parts stays within tens of MiB.
    db_.exec("PRAGMA trusted_schema=OFF; PRAGMA query_only=ON; PRAGMA cache_size=-512", kRead);
    if (db_.pragma_int("application_id", kRead) != kApplicationId)
      throw Error(part.path + " is not a trainscope trace");
    version_ = db_.pragma_int("user_version", kRead);
    if (version_ < 1 || version_ > kSchemaVersion)
      throw Error(part.path + " has trace schema version " + std::to_string(version_) +
                  ", which this trainscope cannot merge");
    check_schema(db_, static_cast<int>(version_));
    if (version_ >= 2) {
      Stmt st(db_, "SELECT 1 FROM event_block LIMIT 1", kRead);
      if (st.step())
        throw Error(part.path +
                    " holds the staged events of a capture that did not stop; index them first "
                    "(trainscope recover, or trainscope merge, which does it)");
    }
  }

  const MergePart& part() const { return part_; }
  std::size_t index() const { return index_; }

  std::int64_t to_merged(std::int64_t t) const {
    if (part_.drift == 0) return t - part_.offset_ns;
    return t - part_.offset_ns -
           static_cast<std::int64_t>(
               std::llround(part_.drift * static_cast<double>(t - part_.ref_ns)));
  }

  std::vector<std::pair<std::string, std::string>> meta() const {
    std::vector<std::pair<std::string, std::string>> out;
    Stmt st(db_, "SELECT key, value FROM meta ORDER BY key", kRead);
    while (st.step()) out.emplace_back(st.col_text(0), st.col_text(1));
    return out;
  }

  // Copies strings, labels and tracks into the output, renumbered; tracks get ids from
  // `next_track` on, all in process `process`.
  void copy_tables(Writer& w, Tables& tables, std::uint32_t& next_track, std::int64_t process) {
    std::unordered_map<std::int64_t, std::uint32_t> strings;
    {
      Stmt st(db_, "SELECT id, text FROM string", kRead);
      while (st.step()) strings[st.col_int(0)] = tables.string(st.col_text(1));
    }
    const auto text_id = [&](std::int64_t id) {
      const auto it = strings.find(id);
      return it != strings.end() ? it->second : tables.string("?");
    };
    {
      Stmt st(db_, "SELECT id, name, category, file, line FROM label", kRead);
      while (st.step()) {
        if (!is_id(st.col_int(0))) continue;
        const std::uint32_t file = st.col_null(3) ? 0 : text_id(st.col_int(3));
        labels_[static_cast<std::uint32_t>(st.col_int(0))] = tables.label(
            text_id(st.col_int(1)), st.col_int(2), file, st.col_null(4) ? kNull : st.col_int(4));
      }
    }
    Stmt st(db_, "SELECT id, name, kind, os_tid FROM track ORDER BY id", kRead);
    while (st.step()) {
      if (!is_id(st.col_int(0))) continue;
      if (next_track > kMaxTrack)
        throw Error("cannot merge into one trace: the parts hold more than " +
                    std::to_string(kMaxTrack) + " tracks");
      const std::int64_t kind = st.col_int(2);
      w.put_track(next_track, st.col_text(1),
                  kind >= 0 && kind < trace::kTrackKindCount ? static_cast<trace::TrackKind>(kind)
                                                             : trace::TrackKind::thread,
                  st.col_null(3) ? kNull : st.col_int(3), process);
      tracks_[static_cast<std::uint32_t>(st.col_int(0))] = next_track++;
    }
  }

  std::uint32_t track(std::int64_t old) const {
    const auto it = is_id(old) ? tracks_.find(static_cast<std::uint32_t>(old)) : tracks_.end();
    return it != tracks_.end() ? it->second : 0;
  }

  std::uint32_t label(std::int64_t old) const {
    const auto it = is_id(old) ? labels_.find(static_cast<std::uint32_t>(old)) : labels_.end();
    return it != labels_.end() ? it->second : 0;
  }

  // Events in key order, one at a time.
  void start_events() {
    keyed_ = version_ >= 5;
    if (keyed_) {
      Stmt origin(db_, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?", kRead);
      origin.bind(1, std::string_view(meta_key::kEventKeyOriginNs));
      if (origin.step()) key_origin_ = origin.col_int(0);
    }
    // Both layouts give (key, key, ...) columns: version 5's id twice, else start and track.
    events_ = Stmt(db_,
                   keyed_ ? "SELECT e.id, e.id, e.dur_ns, e.label, e.step, e.bytes, a.work_size, "
                            "a.correlation FROM event AS e LEFT JOIN event_arg AS a "
                            "ON a.id = e.id ORDER BY e.id"
                          : "SELECT e.start_ns, e.track, e.dur_ns, e.label, e.step, e.bytes, "
                            "a.work_size, a.correlation FROM event AS e LEFT JOIN event_arg AS a "
                            "ON a.start_ns = e.start_ns AND a.track = e.track "
                            "ORDER BY e.start_ns, e.track",
                   kRead);
  }
  // Reads the next event into row(); false at the end.
  bool next_event() {
    for (;;) {
      if (!events_.step()) return false;
      const std::int64_t key = events_.col_int(0);
      const std::uint32_t track = this->track(keyed_ ? key_track(key) : events_.col_int(1));
      if (track == 0) continue;  // an event on a track the part does not define
      const auto opt = [&](int c) { return events_.col_null(c) ? kNull : events_.col_int(c); };
      row_.start_ns = to_merged(keyed_ ? key_start(key, key_origin_) : key);
      row_.track = track;
      row_.dur_ns = std::max<std::int64_t>(0, events_.col_int(2));
      row_.label = label(events_.col_int(3));
      row_.step = opt(4);
      row_.bytes = opt(5);
      row_.work_size = opt(6);
      row_.correlation = opt(7);
      return true;
    }
  }
  const EventRow& row() const { return row_; }

  std::uint64_t copy_counters(Writer& w) {
    Stmt st(db_, "SELECT track, ts_ns, value FROM counter_sample ORDER BY track, ts_ns", kRead);
    std::vector<CounterRow> batch;
    std::uint64_t n = 0;
    while (st.step()) {
      const std::uint32_t track = this->track(st.col_int(0));
      if (track == 0) continue;
      batch.push_back({track, to_merged(st.col_int(1)), st.col_double(2)});
      if (batch.size() == kBatch) {
        w.append(std::span<const CounterRow>(batch));
        n += batch.size();
        batch.clear();
      }
    }
    w.append(std::span<const CounterRow>(batch));
    return n + batch.size();
  }

 private:
  const MergePart& part_;
  std::size_t index_;
  Db db_;
  std::int64_t version_ = 0;
  bool keyed_ = false;  // version 5: events keyed by one integer from key_origin_
  std::int64_t key_origin_ = 0;
  std::unordered_map<std::uint32_t, std::uint32_t> labels_, tracks_;
  Stmt events_;
  EventRow row_;
};

bool key_greater(const EventRow& a, const EventRow& b) {
  if (a.start_ns != b.start_ns) return a.start_ns > b.start_ns;
  if (a.track != b.track) return a.track > b.track;
  return a.dur_ns < b.dur_ns;
}

// The merged meta table (see merge_traces).
bool dropped_key(const std::string& key, const MergeMeta& meta) {
  for (const std::string& d : meta.drop)
    if (key == d || (!d.empty() && d.back() == '.' && key.rfind(d, 0) == 0)) return true;
  return false;
}

void write_meta(Writer& w, const std::vector<std::unique_ptr<PartReader>>& parts,
                const MergeMeta& merge_meta) {
  std::map<std::string, std::string> base;
  std::map<std::string, std::string> out;
  std::int64_t dropped = 0;
  std::int64_t origin = INT64_MAX;
  for (const auto& p : parts) {
    const auto meta = p->meta();
    const bool first = p->index() == 0;
    const std::string prefix = p->part().meta_prefix.empty()
                                   ? "part." + std::to_string(p->index()) + "."
                                   : p->part().meta_prefix;
    for (const auto& [key, value] : meta) {
      // The store's own keys (event.*) describe each part's rows, not the merged trace's.
      if (key == "schema_version" || key == "trainscope_version" || key.rfind("event.", 0) == 0 ||
          dropped_key(key, merge_meta))
        continue;
      if (key == "dropped_events") {
        dropped += std::atoll(value.c_str());
        continue;
      }
      if (key.rfind("dropped_events.track.", 0) == 0) {
        const std::uint32_t track = p->track(std::atoll(key.c_str() + 21));
        if (track != 0) out["dropped_events.track." + std::to_string(track)] = value;
        continue;
      }
      if (key == "clock.origin_ns") {
        origin = std::min(origin, p->to_merged(std::atoll(value.c_str())));
        if (!first) out[prefix + key] = value;
        continue;
      }
      if (first) {
        base[key] = value;
        out[key] = value;
      } else if (const auto it = base.find(key); it == base.end() || it->second != value) {
        out[prefix + key] = value;
      }
    }
  }
  out["dropped_events"] = std::to_string(dropped);
  if (origin != INT64_MAX) out["clock.origin_ns"] = std::to_string(origin);
  for (const auto& [key, value] : merge_meta.extra) out[key] = value;
  for (const auto& [key, value] : out) w.put_meta(key, value);
}

// Refuses to replace anything but a trace (or an empty file).
void check_output(const std::string& out, std::span<const MergePart> parts) {
  for (const MergePart& p : parts)
    if (p.path == out) throw Error("cannot merge into " + out + ": it is one of the parts");
  if (::access(out.c_str(), F_OK) != 0) return;
  const auto h = read_file_header(out);
  if (!h) throw Error("cannot create trace " + out + ": " + std::strerror(errno));
  if (h->header_bytes == 0) return;
  if (h->sqlite && (h->application_id == kApplicationId || has_write_ahead_log(out))) return;
  throw Error(out + " exists and is not a trainscope trace; refusing to replace it");
}

}  // namespace

MergeResult merge_traces(std::span<const MergePart> parts, const std::string& out,
                         const MergeMeta& meta) {
  if (parts.empty()) throw Error("cannot merge into " + out + ": no trace to merge");
  check_output(out, parts);
  std::vector<std::unique_ptr<PartReader>> readers;
  for (std::size_t i = 0; i < parts.size(); ++i)
    readers.push_back(std::make_unique<PartReader>(parts[i], i));

  const std::string tmp = out + ".merging";
  remove_trace_files(tmp, "cannot create trace");
  MergeResult result;
  try {
    WriterOptions options;
    options.bulk = true;
    Writer w(tmp, options);
    Tables tables(w);
    std::uint32_t next_track = 1;
    for (std::size_t i = 0; i < readers.size(); ++i) {
      const MergePart& p = parts[i];
      const auto process = static_cast<std::uint32_t>(i + 1);
      w.put_process(process, p.name, p.rank, p.pid, p.host);
      readers[i]->copy_tables(w, tables, next_track, process);
    }
    result.tracks = next_track - 1;
    write_meta(w, readers, meta);

    // k-way merge of the parts' events in key order.
    const auto later = [](const PartReader* a, const PartReader* b) {
      return key_greater(a->row(), b->row());
    };
    std::priority_queue<PartReader*, std::vector<PartReader*>, decltype(later)> heap(later);
    for (auto& r : readers) {
      r->start_events();
      if (r->next_event()) heap.push(r.get());
    }
    std::vector<EventRow> batch;
    batch.reserve(kBatch);
    while (!heap.empty()) {
      PartReader* r = heap.top();
      heap.pop();
      batch.push_back(r->row());
      if (r->next_event()) heap.push(r);
      if (batch.size() == kBatch) {
        w.append(std::span<const EventRow>(batch));
        result.events += batch.size();
        batch.clear();
      }
    }
    w.append(std::span<const EventRow>(batch));
    result.events += batch.size();
    for (auto& r : readers) result.counter_samples += r->copy_counters(w);
    w.finish();
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  readers.clear();
  remove_trace_companions(out, "cannot create trace");
  if (std::rename(tmp.c_str(), out.c_str()) != 0) {
    const int e = errno;
    std::remove(tmp.c_str());
    throw Error("cannot create trace " + out + ": " + std::strerror(e));
  }
  return result;
}

}  // namespace ts::store
