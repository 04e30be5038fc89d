#include "profiler/store/reader.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "profiler/store/analysis_table.hpp"
#include "profiler/store/event_key.hpp"
#include "profiler/store/event_pages.hpp"
#include "profiler/store/file_check.hpp"
#include "profiler/store/file_header.hpp"
#include "profiler/store/live_copy.hpp"
#include "profiler/store/read_only_open.hpp"
#include "profiler/store/schema.hpp"
#include "trainscope/meta_keys.hpp"

namespace ts::store {

namespace {

constexpr const char* kRead = "cannot read trace";
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

// An event's columns, its key first, in each layout.
constexpr const char* kKeyedColumns = "SELECT id, dur_ns, label, step, bytes FROM event ";
constexpr const char* kPairColumns =
    "SELECT start_ns, track, dur_ns, label, step, bytes FROM event ";
// The same columns handed to a scan by ts_row() (row_function.hpp).
constexpr const char* kKeyedRow = "ts_row(id, dur_ns, label, step, bytes)";
constexpr const char* kPairRow = "ts_row(start_ns, track, dur_ns, label, step, bytes)";

trace::Category category_of(std::int64_t v) {
  return v >= 0 && v < trace::kCategoryCount ? static_cast<trace::Category>(v)
                                             : trace::Category::other;
}

trace::TrackKind track_kind_of(std::int64_t v) {
  return v >= 0 && v < trace::kTrackKindCount ? static_cast<trace::TrackKind>(v)
                                              : trace::TrackKind::thread;
}

bool is_id(std::int64_t v) {
  return v >= 0 && v <= std::numeric_limits<std::uint32_t>::max();
}

// Resets a statement however the loop over its rows ends.
struct ResetOnExit {
  Stmt& st;
  ~ResetOnExit() { st.reset(); }
};

// Names the commonest damage before SQLite sees the file: not an SQLite file at all, or one cut
// short (a partial copy or download). An empty file is left to SQLite: a capture killed early
// may have everything in its -wal file.
void check_file(const std::string& path) {
  check_regular_files(path);
  const auto h = read_file_header(path);
  if (!h) throw Error("cannot open trace " + path + ": " + std::strerror(errno));
  if (h->header_bytes == 0) return;
  if (!h->sqlite) throw Error(path + " is not a trainscope trace (not an SQLite database)");
  const std::string truncated = path + " is truncated: it holds " + std::to_string(h->file_size);
  if (h->header_bytes < 100) throw Error(truncated + " bytes, not even a whole SQLite header");
  const std::uint64_t expected = std::uint64_t{h->page_count} * h->page_size;
  if (h->file_size < expected && !has_write_ahead_log(path))
    throw Error(truncated + " of its " + std::to_string(expected) + " bytes");
}

// True when SQLite failed to open `path` (its last error on `db` says so) because its last
// writes are in its -wal and its folder cannot take the -shm index that reading them needs (an
// index present but unusable, say). Other failures (a damaged file, an altered schema) keep
// their own message.
bool log_unreadable_here(const Db& db, const std::string& path) {
  const int code = db.get() != nullptr ? sqlite3_errcode(db.get()) & 0xFF : SQLITE_OK;
  if (code != SQLITE_CANTOPEN && code != SQLITE_READONLY && code != SQLITE_IOERR) return false;
  const TraceSurroundings s = trace_surroundings(path);
  return s.write_ahead_log_mode && s.log_has_content && !s.folder_writable;
}

// The string table's texts while the labels are read, in one buffer with an index sorted by id.
// A trace imported with a label for each step holds a string for each step too: one allocation
// per string (a map's node and the text's own) would leave millions of small holes in the heap
// once the strings are dropped, memory the process keeps to the end (340 MB at 3.6 M steps).
class StringTexts {
 public:
  void add(std::int64_t id, std::string_view text) {
    rows_.push_back({id, texts_.size(), text.size()});
    texts_.append(text);
  }
  // After the last add(). The rows come in id order (the table's integer primary key: ids are
  // unique, and a scan returns them in that order); any other order is sorted.
  void finish() {
    const auto by_id = [](const Row& a, const Row& b) { return a.id < b.id; };
    if (!std::is_sorted(rows_.begin(), rows_.end(), by_id))
      std::sort(rows_.begin(), rows_.end(), by_id);
  }
  // The text of string `id`, "?" for an id the table does not hold.
  std::string text(std::int64_t id) const {
    const auto it = std::lower_bound(rows_.begin(), rows_.end(), id,
                                     [](const Row& r, std::int64_t v) { return r.id < v; });
    if (it == rows_.end() || it->id != id) return "?";
    return texts_.substr(it->offset, it->size);
  }

 private:
  struct Row {
    std::int64_t id = 0;
    std::size_t offset = 0, size = 0;
  };
  std::vector<Row> rows_;
  std::string texts_;
};

}  // namespace

template <class Fn>
void Reader::each_row(Stmt& st, Fn&& fn) const {
  ResetOnExit guard{st};
  while (st.step()) fn();
}

Reader::Reader(const std::string& path) : Reader(path, nullptr) {}

Reader::Reader(const std::string& path, std::shared_ptr<const Snapshot> snapshot)
    : snapshot_(std::move(snapshot)) {
  open(path);
  load_tables();
  prepare_queries();
}

Reader::Reader(const std::string& path, std::shared_ptr<const Snapshot> snapshot,
               const Reader& tables_from)
    : snapshot_(std::move(snapshot)) {
  open(path);
  if (can_share_tables(tables_from)) {
    load_key_origin();
    tables_ = tables_from.tables_;
    names_cut_ = tables_->names_cut;
  } else {
    load_tables();
  }
  prepare_queries();
}

void Reader::open(const std::string& path) {
  if (snapshot_) {
    open_snapshot(path);
  } else {
    open_file(path);
  }
}

bool Reader::can_share_tables(const Reader& other) const {
  if (!other.tables_ || other.path() != path() || other.version_ != version_ ||
      other.snapshot_ != snapshot_)
    return false;
  if (snapshot_) return true;  // the same bytes
  // A finished trace's tables never change; the same first and last event tell a file replaced
  // meanwhile apart. Only what `other` recorded when it loaded them is read: its connection may
  // be in use on another thread.
  return !live_ && other.tables_->finished && has_overview() &&
         first_last_keys() == other.tables_->first_last_keys;
}

void Reader::open_file(const std::string& path) {
  check_file(path);
  try {
    open_read_only(db_, path, "cannot open trace");  // writes nothing beside the file
    // A finished trace is in rollback-journal mode: while another connection commits to it (the
    // analysis being kept in it, analysis_table.hpp) readers wait for the commit, up to this
    // long, rather than fail at once with "database is locked".
    sqlite3_busy_timeout(db_.get(), kReaderBusyMs);
    db_.set_work_budget(work_budget(size_with_write_ahead_log(path)));
    open_checked();
  } catch (const Error&) {
    if (log_unreadable_here(db_, path)) throw Error(unreadable_log_message(path));
    throw;
  }
  if (has_staged_events()) {
    // A capture still running or killed left events staged: read a copy with them indexed.
    live_ = std::make_unique<LiveCopy>(db_, version_);
    staged_indexed_ = true;
  } else {
    data_version_ = db_.pragma_int("data_version", kRead);  // a staged reader's: refresh() reads
  }
}

void Reader::open_snapshot(const std::string& path) {
  db_.open_memory(path, kRead);
  // Read-only and not owned: every reader of the snapshot reads the same bytes.
  auto* bytes = const_cast<unsigned char*>(snapshot_->bytes());
  const auto size = static_cast<sqlite3_int64>(snapshot_->size());
  const int rc =
      sqlite3_deserialize(db_.get(), "main", bytes, size, size, SQLITE_DESERIALIZE_READONLY);
  if (rc != SQLITE_OK) db_.fail(rc, kRead);
  db_.set_work_budget(work_budget(snapshot_->size()));
  open_checked();
  staged_indexed_ = true;
}

std::uint64_t Reader::blocks_indexed() const {
  return live_ ? live_->blocks_indexed() : 0;
}

std::shared_ptr<const Snapshot> Reader::snapshot_copy() const {
  if (snapshot_) return snapshot_;
  if (!staged_indexed_) return nullptr;
  sqlite3_int64 size = 0;
  unsigned char* bytes = sqlite3_serialize(db_.get(), "main", &size, 0);
  if (bytes == nullptr) throw Error(path() + ": out of memory copying the trace's events");
  // The copy's header still says write-ahead log (bytes 18 and 19 of the SQLite header, as the
  // capture's file has it): a database in memory has none, so it says rollback journal.
  if (size >= 100) bytes[18] = bytes[19] = 1;
  return std::make_shared<const Snapshot>(bytes, static_cast<std::size_t>(size));
}

void Reader::prepare_queries() {
  // Windows are bound as inclusive key bounds (start_bounds); an event's end is checked here.
  const std::string columns = keyed_ ? kKeyedColumns : kPairColumns;
  const std::string key = keyed_ ? "id" : "start_ns";
  const std::string order = keyed_ ? " ORDER BY id" : " ORDER BY start_ns, track";
  const std::string window = "WHERE " + key + " >= ?1 AND " + key + " <= ?2";
  // Scans: each row handed over from within SQLite (row_function.hpp), the same columns.
  rows_.install(db_);
  const std::string row_columns = keyed_ ? kKeyedRow : kPairRow;
  range_ = Stmt(db_, "SELECT 1 FROM event " + window + " AND " + row_columns + order, kRead);
  range_track_ = Stmt(db_,
                      "SELECT 1 FROM event " + window +
                          (keyed_ ? " AND (id & 65535) = ?3" : " AND track = ?3") + " AND " +
                          row_columns + order,
                      kRead);
  long_ = Stmt(db_,
               columns + "INDEXED BY event_long WHERE dur_ns >= " + std::to_string(kLongEventNs) +
                   " AND " + key + " <= ?1",
               kRead);
  arg_ = Stmt(db_,
              keyed_ ? "SELECT work_size, correlation FROM event_arg WHERE id = ?1"
                     : "SELECT work_size, correlation FROM event_arg "
                       "WHERE start_ns = ?1 AND track = ?2",
              kRead);
  args_range_ = Stmt(db_,
                     (keyed_ ? "SELECT id, work_size, correlation FROM event_arg "
                             : "SELECT start_ns, track, work_size, correlation FROM event_arg ") +
                         window + order,
                     kRead);
  by_correlation_ =
      Stmt(db_,
           keyed_ ? "SELECT e.id, e.dur_ns, e.label, e.step, e.bytes "
                    "FROM event_arg AS a JOIN event AS e ON e.id = a.id "
                    "WHERE a.id >= ?1 AND a.id <= ?2 AND a.correlation = ?3 "
                    "ORDER BY a.id LIMIT ?4"
                  : "SELECT e.start_ns, e.track, e.dur_ns, e.label, e.step, e.bytes "
                    "FROM event_arg AS a JOIN event AS e "
                    "ON e.start_ns = a.start_ns AND e.track = a.track "
                    "WHERE a.start_ns >= ?1 AND a.start_ns <= ?2 AND a.correlation = ?3 "
                    "ORDER BY a.start_ns LIMIT ?4",
           kRead);
  steps_ =
      Stmt(db_, "SELECT step, start_ns, dur_ns, track FROM step_span ORDER BY start_ns", kRead);
  step_by_number_ =
      Stmt(db_, "SELECT start_ns, dur_ns FROM step_span WHERE step = ? ORDER BY start_ns", kRead);
  steps_in_ = Stmt(db_,
                   "SELECT step, start_ns, dur_ns, track FROM step_span "
                   "WHERE start_ns >= ? AND start_ns < ? ORDER BY start_ns, track",
                   kRead);
  step_before_ = Stmt(db_,
                      "SELECT step, start_ns, dur_ns, track FROM step_span WHERE start_ns < ? "
                      "ORDER BY start_ns DESC, track DESC LIMIT 1",
                      kRead);
  steps_until_ = Stmt(db_,
                      "SELECT count(*) FROM step_span "
                      "WHERE (start_ns, track) >= (?1, ?2) AND start_ns < ?3",
                      kRead);
  steps_from_ = Stmt(db_,
                     "SELECT step, start_ns, dur_ns, track FROM step_span "
                     "WHERE (start_ns, track) >= (?1, ?2) ORDER BY start_ns, track LIMIT ?3",
                     kRead);
  steps_numbered_ = Stmt(db_,
                         "SELECT step, start_ns, dur_ns, track FROM step_span "
                         "WHERE step >= ? AND step <= ? ORDER BY start_ns, track",
                         kRead);
  step_after_ = Stmt(db_,
                     "SELECT start_ns FROM step_span WHERE start_ns > ? ORDER BY start_ns "
                     "LIMIT 1 OFFSET 1",
                     kRead);
  counter_ = Stmt(db_,
                  "SELECT ts_ns, value FROM counter_sample WHERE track = ? AND ts_ns >= ? "
                  "AND ts_ns < ? ORDER BY ts_ns",
                  kRead);
  meta_one_ = Stmt(db_, "SELECT value FROM meta WHERE key = ?", kRead);
  // A file read in place, in rollback-journal mode: its event pages are read directly.
  if (keyed_ && !snapshot_ && !live_) {
    pages_ = EventPages::open(path());
    event_root_ = Stmt(
        db_, "SELECT rootpage FROM sqlite_schema WHERE type = 'table' AND name = 'event'", kRead);
  }
}

template <class Fn>
void Reader::range_rows(Bounds b, Fn&& on_row) const {
  if (b.lo > b.hi) return;
  // As with SQLite's statements, which cannot be entered twice: no scan within a scan.
  if (in_range_rows_)
    throw Error("a scan of a trace was started again from within itself (" + path() + ")");
  in_range_rows_ = true;
  struct Leave {
    bool& flag;
    ~Leave() { flag = false; }
  } leave{in_range_rows_};
  // The pages are read under the shared lock of a read transaction, which reading the schema
  // takes (and ends, if it began it, on leaving): no writer changes them meanwhile.
  bool began = false;
  struct End {
    sqlite3* db;
    bool& began;
    ~End() {
      if (began) sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    }
  } end{db_.get(), began};
  if (pages_) {
    if (sqlite3_get_autocommit(db_.get()) != 0) {
      if (sqlite3_exec(db_.get(), "BEGIN", nullptr, nullptr, nullptr) != SQLITE_OK)
        db_.fail(sqlite3_errcode(db_.get()), kRead);
      began = true;
    }
    std::int64_t root = 0;
    each_row(event_root_, [&] { root = event_root_.col_int(0); });
    if (root > 0 && root <= 0xFFFFFFFF) {
      const auto rest = pages_->scan(static_cast<std::uint32_t>(root), b.lo, b.hi,
                                     [&](const EventPages::Row& row) { on_row(row); });
      if (!rest) return;
      b.lo = *rest;  // the rest through SQLite
    }
  }
  range_.bind(1, b.lo);
  range_.bind(2, b.hi);
  rows_.run(range_, [&](const RowValues& row) { on_row(row); });
}

void Reader::open_checked() {
  harden_for_reading(db_);
  db_.exec("PRAGMA query_only=ON", kRead);

  if (db_.pragma_int("application_id", kRead) != kApplicationId)
    throw Error(path() + " is not a trainscope trace");
  const std::int64_t v = db_.pragma_int("user_version", kRead);
  if (v > kSchemaVersion)
    throw Error(path() + " has trace schema version " + std::to_string(v) +
                ", newer than version " + std::to_string(kSchemaVersion) +
                " that this trainscope reads; open it with a newer trainscope");
  if (v < 1) throw Error(path() + " is not a trainscope trace (no schema version)");
  version_ = static_cast<int>(v);
  keyed_ = version_ >= 5;
  check_schema(db_, version_);
}

bool Reader::has_staged_events() const {
  if (version_ < 2) return false;
  Stmt st(db_, "SELECT 1 FROM event_block LIMIT 1", kRead);
  return st.step();
}

// A name column's text, cut to kMaxNameBytes.
std::string Reader::name_text(const Stmt& st, int column, std::uint64_t& names_cut) {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st.get(), column));
  if (p == nullptr) return {};
  auto n = static_cast<std::size_t>(sqlite3_column_bytes(st.get(), column));
  if (n <= kMaxNameBytes) return std::string(p, n);
  ++names_cut;
  n = kMaxNameBytes;
  while (n > 0 && (static_cast<unsigned char>(p[n]) & 0xC0) == 0x80) --n;  // a UTF-8 boundary
  return std::string(p, n) + "\xE2\x80\xA6";                               // "…"
}

void Reader::load_key_origin() {
  if (!keyed_) return;
  // A missing or malformed origin reads as 0: the events still come in key order.
  Stmt st(db_, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?", kRead);
  st.bind(1, std::string_view(meta_key::kEventKeyOriginNs));
  key_origin_ = 0;
  each_row(st, [&] { key_origin_ = st.col_int(0); });
}

void Reader::load_tables() {
  load_key_origin();
  auto t = std::make_shared<Tables>();
  // Asked before the tables are read: a trace finished by then has its final tables.
  t->finished = !live_ && !snapshot_ && has_overview();
  if (t->finished) t->first_last_keys = first_last_keys();
  std::uint64_t& cut = t->names_cut;
  StringTexts strings;
  {
    Stmt st(db_, "SELECT id, text FROM string", kRead);
    each_row(st, [&] { strings.add(st.col_int(0), name_text(st, 1, cut)); });
    strings.finish();
  }
  const auto text = [&](std::int64_t id) { return strings.text(id); };
  {
    Stmt st(db_, "SELECT id, name, category, file, line FROM label", kRead);
    each_row(st, [&] {
      const std::int64_t id = st.col_int(0);
      if (!is_id(id)) return;
      Label l;
      l.name = text(st.col_int(1));
      l.category = category_of(st.col_int(2));
      if (!st.col_null(3)) l.file = text(st.col_int(3));
      if (!st.col_null(4)) l.line = st.col_int(4);
      t->labels[static_cast<std::uint32_t>(id)] = std::move(l);
    });
    for (const auto& [id, l] : t->labels) {
      if (id >= kDenseLabels) continue;
      if (id >= t->label_index.size()) t->label_index.resize(id + 1, nullptr);
      t->label_index[id] = &l;
    }
  }
  {
    // Before version 3 there are no processes: every track belongs to the one process.
    Stmt st(db_,
            version_ >= 3 ? "SELECT id, name, kind, os_tid, process FROM track ORDER BY id"
                          : "SELECT id, name, kind, os_tid, NULL FROM track ORDER BY id",
            kRead);
    each_row(st, [&] {
      const std::int64_t id = st.col_int(0);
      if (!is_id(id)) return;
      t->track_index[static_cast<std::uint32_t>(id)] = t->tracks.size();
      t->tracks.push_back({static_cast<std::uint32_t>(id), name_text(st, 1, cut),
                           track_kind_of(st.col_int(2)), st.col_null(3) ? kNull : st.col_int(3),
                           st.col_null(4) || !is_id(st.col_int(4)) ? kNull : st.col_int(4)});
    });
  }
  if (version_ >= 3) {
    auto& processes = t->processes;
    Stmt st(db_, "SELECT id, name, rank, pid, host FROM process ORDER BY id", kRead);
    each_row(st, [&] {
      const std::int64_t id = st.col_int(0);
      if (!is_id(id)) return;
      processes.push_back({static_cast<std::uint32_t>(id), name_text(st, 1, cut),
                           st.col_null(2) ? kNull : st.col_int(2),
                           st.col_null(3) ? kNull : st.col_int(3),
                           st.col_null(4) ? std::string() : name_text(st, 4, cut)});
    });
    // process() searches by id: a damaged table can return its rows out of order, or one id
    // twice (the first is kept).
    std::stable_sort(processes.begin(), processes.end(),
                     [](const Process& a, const Process& b) { return a.id < b.id; });
    processes.erase(std::unique(processes.begin(), processes.end(),
                                [](const Process& a, const Process& b) { return a.id == b.id; }),
                    processes.end());
  }
  names_cut_ += cut;
  tables_ = std::move(t);
}

std::string Reader::overview_bytes() const {
  std::string out;
  if (version_ < 4 || staged_indexed_) return out;
  Stmt st(db_, "SELECT data FROM overview ORDER BY part", kRead);
  while (st.step()) {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(st.get(), 0));
    if (p != nullptr) out.append(p, static_cast<std::size_t>(sqlite3_column_bytes(st.get(), 0)));
  }
  return out;
}

bool Reader::has_overview() const {
  if (version_ < 4 || staged_indexed_) return false;
  Stmt st(db_, "SELECT 1 FROM overview LIMIT 1", kRead);
  return st.step();
}

bool Reader::kept_analysis(
    std::string_view key,
    const std::function<bool(std::string_view part, std::uint64_t all_bytes)>& part) const {
  if (version_ < 4 || staged_indexed_ || snapshot_) return false;
  Stmt table(db_, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'analysis'", kRead);
  if (!table.step()) return false;
  Stmt size(db_, "SELECT sum(length(data)) FROM analysis WHERE key = ? AND part >= 0", kRead);
  size.bind(1, key);
  if (!size.step() || size.col_null(0) || size.col_int(0) <= 0) return false;
  const auto all_bytes = static_cast<std::uint64_t>(size.col_int(0));
  Stmt st(db_, "SELECT part, data FROM analysis WHERE key = ? AND part >= 0 ORDER BY part", kRead);
  st.bind(1, key);
  std::int64_t expected = 0;
  while (st.step()) {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(st.get(), 1));
    const auto n = static_cast<std::size_t>(sqlite3_column_bytes(st.get(), 1));
    // Parts numbered 0, 1, ... without a hole: anything else is not what was kept.
    if (st.col_int(0) != expected++ || p == nullptr || !part(std::string_view(p, n), all_bytes))
      return false;
  }
  return expected > 0;
}

std::optional<std::string> Reader::kept_analysis_seal(std::string_view key) const {
  if (version_ < 4 || staged_indexed_ || snapshot_) return std::nullopt;
  Stmt table(db_, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'analysis'", kRead);
  if (!table.step()) return std::nullopt;
  Stmt st(db_, "SELECT data FROM analysis WHERE key = ? AND part = ?", kRead);
  st.bind(1, key);
  st.bind(2, kSealPart);
  if (!st.step()) return std::nullopt;
  const auto* p = static_cast<const char*>(sqlite3_column_blob(st.get(), 0));
  const auto n = static_cast<std::size_t>(sqlite3_column_bytes(st.get(), 0));
  return std::string(p ? p : "", p ? n : 0);
}

const Track* Reader::track(std::uint32_t id) const {
  const auto it = tables_->track_index.find(id);
  return it == tables_->track_index.end() ? nullptr : &tables_->tracks[it->second];
}

const Process* Reader::process(std::int64_t id) const {
  const auto& processes = tables_->processes;
  const auto it = std::lower_bound(processes.begin(), processes.end(), id,
                                   [](const Process& p, std::int64_t v) { return p.id < v; });
  return it != processes.end() && it->id == id ? &*it : nullptr;
}

const Label& Reader::label(std::uint32_t id) const {
  const Tables& t = *tables_;
  if (id < t.label_index.size()) return t.label_index[id] ? *t.label_index[id] : unknown_label_;
  auto it = t.labels.find(id);
  return it != t.labels.end() ? it->second : unknown_label_;
}

template <class Row>
Event Reader::read_event(const Row& st) const {
  Event e;
  std::int64_t track = 0;
  int c = 0;  // the first column after the key
  if (keyed_) {
    const std::int64_t key = st.col_int(0);
    e.start_ns = key_start(key, key_origin_);
    track = key_track(key);
    c = 1;
  } else {
    e.start_ns = st.col_int(0);
    track = st.col_int(1);
    c = 2;
  }
  e.track = is_id(track) ? static_cast<std::uint32_t>(track) : 0;
  e.dur_ns = std::max<std::int64_t>(0, st.col_int(c));
  const std::int64_t label = st.col_int(c + 1);
  e.label = is_id(label) ? static_cast<std::uint32_t>(label) : 0;
  e.category = this->label(e.label).category;
  e.step = st.col_null(c + 2) ? kNull : st.col_int(c + 2);
  e.bytes = st.col_null(c + 3) ? kNull : st.col_int(c + 3);
  return e;
}

template <class Row>
std::pair<std::int64_t, std::int64_t> Reader::stored_key(const Row& st) const {
  return keyed_ ? std::pair{st.col_int(0), std::int64_t{0}}
                : std::pair{st.col_int(0), st.col_int(1)};
}

Reader::Bounds Reader::start_bounds(std::int64_t t0, std::int64_t t1) const {
  if (keyed_) {
    const KeyRange k = key_range(t0, t1, key_origin_);
    return {k.lo, k.hi};
  }
  if (t0 >= t1) return {};
  return {t0, t1 - 1};
}

// Long events (the event_long index) starting before `before` and ending at t0 or later, on
// `track` (0: every track), in key order.
void Reader::scan_long(std::int64_t t0, std::int64_t before, std::uint32_t track,
                       std::vector<Event>& out) const {
  const Bounds b = start_bounds(kMin, before);
  if (b.lo > b.hi) return;
  long_.bind(1, b.hi);
  each_row(long_, [&] {
    const Event e = read_event(long_);
    if (e.end_ns() >= t0 && (track == 0 || e.track == track)) out.push_back(e);
  });
  std::sort(out.begin(), out.end(), [](const Event& a, const Event& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.track < b.track;
  });
}

void Reader::scan(std::int64_t t0, std::int64_t t1, std::uint32_t track,
                  const std::function<void(const Event&)>& fn) const {
  const std::int64_t from = sat_sub(t0, kLongEventNs);
  // Long events starting before the main scan: few, via the partial index.
  std::vector<Event> early;
  scan_long(t0, std::min(from, t1), track, early);
  for (const Event& e : early) fn(e);

  const Bounds b = start_bounds(from, t1);
  if (b.lo > b.hi) return;
  // One track of a file whose pages are read: the range's rows read from them, the others left
  // out here (SQLite's query reads the whole range too, testing each row's track).
  if (track == 0 || pages_) {
    range_rows(b, [&](const auto& row) {
      const Event e = read_event(row);
      if (e.end_ns() >= t0 && (track == 0 || e.track == track)) fn(e);
    });
    return;
  }
  Stmt& r = range_track_;
  r.bind(1, b.lo);
  r.bind(2, b.hi);
  r.bind(3, std::int64_t{track});
  rows_.run(r, [&](const RowValues& row) {
    const Event e = read_event(row);
    // The query filters the track before it hands a row over; checked again here so that no
    // order SQLite may evaluate the terms in can hand over another track's events.
    if (e.end_ns() >= t0 && e.track == track) fn(e);
  });
}

void Reader::scan_with_args(std::int64_t t0, std::int64_t t1,
                            const std::function<void(const Event&, const EventArgs&)>& fn) const {
  const std::int64_t from = sat_sub(t0, kLongEventNs);
  // Long events starting before the main scan's range: few, each with its own lookup.
  std::vector<Event> early;
  scan_long(t0, std::min(from, t1), 0, early);
  for (const Event& e : early) fn(e, args(e));

  // The main range and the arguments of the same range, in one key order: an event's arguments
  // are at the argument cursor or nowhere.
  const Bounds b = start_bounds(from, t1);
  if (b.lo > b.hi) return;
  const int arg_columns = keyed_ ? 1 : 2;  // the argument row's key columns
  Stmt& a = args_range_;
  ResetOnExit args_guard{a};
  a.bind(1, b.lo);
  a.bind(2, b.hi);
  // The argument row at the cursor, read once per row.
  bool more_args = false;
  std::pair<std::int64_t, std::int64_t> arg_key;
  EventArgs at_cursor;
  const auto next_args = [&] {
    more_args = a.step();
    if (!more_args) return;
    arg_key = stored_key(a);
    at_cursor.work_size = a.col_null(arg_columns) ? kNull : a.col_int(arg_columns);
    at_cursor.correlation = a.col_null(arg_columns + 1) ? kNull : a.col_int(arg_columns + 1);
  };
  next_args();
  const EventArgs none;
  range_rows(b, [&](const auto& row) {
    const auto key = stored_key(row);  // as stored, before read_event's checks
    while (more_args && arg_key < key) next_args();
    const Event e = read_event(row);
    if (e.end_ns() >= t0) fn(e, more_args && arg_key == key ? at_cursor : none);
  });
}

std::vector<Event> Reader::events(std::int64_t t0, std::int64_t t1, std::uint32_t track) const {
  std::vector<Event> out;
  scan(t0, t1, track, [&](const Event& e) { out.push_back(e); });
  return out;
}

std::vector<Event> Reader::step_events(std::int64_t step) const {
  // Events of a step lie between its start and the start of the step after next (device work
  // launched in a step may finish after it); with no step_span row, scan everything.
  std::int64_t t0 = kMin, t1 = kMax;
  step_by_number_.bind(1, step);
  bool found = false;
  each_row(step_by_number_, [&] {
    const std::int64_t s = step_by_number_.col_int(0);
    const std::int64_t end = sat_add(s, std::max<std::int64_t>(0, step_by_number_.col_int(1)));
    t0 = found ? std::min(t0, s) : s;
    t1 = found ? std::max(t1, end) : end;
    found = true;
  });
  if (found) {
    step_after_.bind(1, t1);
    std::int64_t bound = kMax;
    each_row(step_after_, [&] { bound = step_after_.col_int(0); });
    t1 = std::max(t1, bound);
  }
  std::vector<Event> out;
  scan(t0, t1, 0, [&](const Event& e) {
    if (e.step == step) out.push_back(e);
  });
  return out;
}

EventArgs Reader::args(const Event& e) const {
  EventArgs a;
  if (keyed_) {
    if (!has_key(e.start_ns, key_origin_) || e.track >= kTrackLimit) return a;
    arg_.bind(1, event_key(e.start_ns, e.track, key_origin_));
  } else {
    arg_.bind(1, e.start_ns);
    arg_.bind(2, std::int64_t{e.track});
  }
  each_row(arg_, [&] {
    a.work_size = arg_.col_null(0) ? kNull : arg_.col_int(0);
    a.correlation = arg_.col_null(1) ? kNull : arg_.col_int(1);
  });
  return a;
}

std::vector<Event> Reader::events_with_correlation(std::int64_t id, std::int64_t t0,
                                                   std::int64_t t1, int limit) const {
  std::vector<Event> out;
  const Bounds b = start_bounds(t0, t1);
  if (b.lo > b.hi) return out;
  by_correlation_.bind(1, b.lo);
  by_correlation_.bind(2, b.hi);
  by_correlation_.bind(3, id);
  by_correlation_.bind(4, std::int64_t{limit});
  each_row(by_correlation_, [&] { out.push_back(read_event(by_correlation_)); });
  return out;
}

Step Reader::read_step(const Stmt& st) {
  const std::int64_t track = st.col_int(3);
  return {st.col_int(0), st.col_int(1), std::max<std::int64_t>(0, st.col_int(2)),
          is_id(track) ? static_cast<std::uint32_t>(track) : 0};
}

namespace {

std::pair<std::int64_t, std::uint32_t> step_key(const Step& s) {
  return {s.start_ns, s.track};
}

// A damaged b-tree can return its rows out of key order, or one twice, despite ORDER BY: the
// steps are sorted by (start, track) here, keeping the first of a repeated key.
void sort_unique_steps(std::vector<Step>& steps) {
  const auto before = [&](const Step& a, const Step& b) { return step_key(a) < step_key(b); };
  if (!std::is_sorted(steps.begin(), steps.end(), before))
    std::stable_sort(steps.begin(), steps.end(), before);
  const auto same = [&](const Step& a, const Step& b) { return step_key(a) == step_key(b); };
  steps.erase(std::unique(steps.begin(), steps.end(), same), steps.end());
}

}  // namespace

std::vector<Step> Reader::read_steps(Stmt& st) const {
  std::vector<Step> out;
  each_row(st, [&] { out.push_back(read_step(st)); });
  sort_unique_steps(out);
  return out;
}

std::int64_t Reader::step_count() const {
  Stmt count(db_, "SELECT count(*) FROM step_span", kRead);
  return count.step() ? count.col_int(0) : 0;
}

std::vector<Step> Reader::steps() const {
  std::vector<Step> out;
  // Room for every row at once: a long trace has millions of steps, which growing by doubling
  // would hold up to twice over.
  if (const std::int64_t n = step_count(); n > 0) out.reserve(static_cast<std::size_t>(n));
  each_row(steps_, [&] { out.push_back(read_step(steps_)); });
  sort_unique_steps(out);
  return out;
}

bool Reader::each_step(const std::function<void(const Step&)>& fn) const {
  ResetOnExit guard{steps_};
  std::optional<Step> last;
  while (steps_.step()) {
    const Step s = read_step(steps_);
    if (last && step_key(s) <= step_key(*last)) return false;
    fn(s);
    last = s;
  }
  return true;
}

std::vector<Step> Reader::steps_starting_in(std::int64_t t0, std::int64_t t1) const {
  if (t1 <= t0) return {};
  steps_in_.bind(1, t0);
  steps_in_.bind(2, t1);
  return read_steps(steps_in_);
}

std::optional<Step> Reader::last_step_before(std::int64_t t) const {
  std::optional<Step> out;
  step_before_.bind(1, t);
  each_row(step_before_, [&] { out = read_step(step_before_); });
  return out;
}

std::int64_t Reader::steps_from_until(const Step& from, std::int64_t t) const {
  steps_until_.bind(1, from.start_ns);
  steps_until_.bind(2, std::int64_t{from.track});
  steps_until_.bind(3, t);
  std::int64_t n = 0;
  each_row(steps_until_, [&] { n = steps_until_.col_int(0); });
  return n;
}

std::vector<Step> Reader::steps_from(const Step& from, std::int64_t limit) const {
  if (limit <= 0) return {};
  steps_from_.bind(1, from.start_ns);
  steps_from_.bind(2, std::int64_t{from.track});
  steps_from_.bind(3, limit);
  return read_steps(steps_from_);
}

void Reader::each_numbered_step(std::int64_t first, std::int64_t last,
                                const std::function<bool(const Step&)>& fn) const {
  if (last < first) return;
  ResetOnExit guard{steps_numbered_};
  steps_numbered_.bind(1, first);
  steps_numbered_.bind(2, last);
  while (steps_numbered_.step())
    if (!fn(read_step(steps_numbered_))) return;
}

std::vector<CounterSample> Reader::counter(std::uint32_t track, std::int64_t t0,
                                           std::int64_t t1) const {
  std::vector<CounterSample> out;
  counter_.bind(1, std::int64_t{track});
  counter_.bind(2, t0);
  counter_.bind(3, t1);
  each_row(counter_, [&] { out.push_back({counter_.col_int(0), counter_.col_double(1)}); });
  // As for steps(): in time order, one sample per time, whatever a damaged b-tree returns.
  const auto before = [](const CounterSample& a, const CounterSample& b) {
    return a.ts_ns < b.ts_ns;
  };
  if (!std::is_sorted(out.begin(), out.end(), before))
    std::stable_sort(out.begin(), out.end(), before);
  const auto same = [](const CounterSample& a, const CounterSample& b) {
    return a.ts_ns == b.ts_ns;
  };
  out.erase(std::unique(out.begin(), out.end(), same), out.end());
  return out;
}

std::optional<std::string> Reader::meta(std::string_view key) const {
  std::optional<std::string> out;
  meta_one_.bind(1, key);
  each_row(meta_one_, [&] { out = meta_one_.col_text(0); });
  return out;
}

std::vector<std::pair<std::string, std::string>> Reader::meta() const {
  std::vector<std::pair<std::string, std::string>> out;
  Stmt st(db_, "SELECT key, value FROM meta ORDER BY key", kRead);
  each_row(st, [&] { out.emplace_back(st.col_text(0), st.col_text(1)); });
  return out;
}

std::int64_t Reader::event_count() const {
  Stmt st(db_, "SELECT count(*) FROM event", kRead);
  std::int64_t n = 0;
  each_row(st, [&] { n = st.col_int(0); });
  return n;
}

std::int64_t Reader::event_count(std::int64_t at_most) const {
  Stmt st(db_, "SELECT count(*) FROM (SELECT 1 FROM event LIMIT ?)", kRead);
  st.bind(1, std::max<std::int64_t>(at_most, 0));
  std::int64_t n = 0;
  each_row(st, [&] { n = st.col_int(0); });
  return n;
}

std::pair<std::int64_t, std::int64_t> Reader::first_last_keys() const {
  const std::string key = keyed_ ? "id" : "start_ns";
  std::pair<std::int64_t, std::int64_t> out{0, 0};
  Stmt first(db_, "SELECT min(" + key + ") FROM event", kRead);
  each_row(first, [&] { out.first = first.col_int(0); });
  Stmt last(db_, "SELECT max(" + key + ") FROM event", kRead);
  each_row(last, [&] { out.second = last.col_int(0); });
  return out;
}

TimeRange Reader::time_range() const {
  TimeRange r;
  // Two queries, each one end of the key: SQLite answers a lone min() or max() from the b-tree,
  // but scans the whole table for min() and max() in one SELECT.
  const std::string key = keyed_ ? "id" : "start_ns";
  Stmt first(db_, "SELECT min(" + key + ") FROM event", kRead);
  Stmt last(db_, "SELECT max(" + key + ") FROM event", kRead);
  const auto start_of = [&](std::int64_t k) { return keyed_ ? key_start(k, key_origin_) : k; };
  bool any = false;
  each_row(first, [&] {
    if (first.col_null(0)) return;
    any = true;
    r.start_ns = start_of(first.col_int(0));
  });
  if (!any) return r;
  each_row(last, [&] {
    if (!last.col_null(0)) r.end_ns = start_of(last.col_int(0));
  });
  // The latest end: among events starting up to kLongEventNs before the last start, and the
  // long ones. Version 5 sums the offset from the origin (origin added here, saturating).
  const std::string end = keyed_ ? "(id >> 16) + dur_ns" : "start_ns + dur_ns";
  Stmt tail(
      db_,
      "SELECT max(" + end + ") FROM event WHERE " + key + " >= ?1 UNION ALL SELECT max(" + end +
          ") FROM event INDEXED BY event_long WHERE dur_ns >= " + std::to_string(kLongEventNs),
      kRead);
  tail.bind(1, start_bounds(sat_sub(r.end_ns, kLongEventNs), kMax).lo);
  each_row(tail, [&] {
    if (!tail.col_null(0))
      r.end_ns =
          std::max(r.end_ns, keyed_ ? sat_add(key_origin_, tail.col_int(0)) : tail.col_int(0));
  });
  return r;
}

}  // namespace ts::store
