#include "profiler/store/writer.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "profiler/store/event_block.hpp"
#include "profiler/store/event_key.hpp"
#include "profiler/store/file_header.hpp"
#include "profiler/store/overview_codec.hpp"
#include "profiler/store/schema.hpp"
#include "trainscope/meta_keys.hpp"

#ifndef TRAINSCOPE_VERSION
#define TRAINSCOPE_VERSION "unknown"
#endif

namespace ts::store {

namespace {

constexpr const char* kCreate = "cannot create trace";
constexpr const char* kWrite = "cannot write trace";
constexpr int kCreateBusyMs = 5'000;

// The order append() takes rows in: by start, then track, the longer first.
bool key_less(const EventRow& a, const EventRow& b) {
  if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
  if (a.track != b.track) return a.track < b.track;
  return a.dur_ns > b.dur_ns;
}

// True when the file starts with an SQLite header carrying our application_id, or when its
// write-ahead log does: a capture killed before its first checkpoint left the application_id in
// the -wal file only (the reader, replaying the log, calls such a file a trace with no events).
bool is_trace_file(const std::string& path) {
  const auto h = read_file_header(path);
  if (!h || !h->sqlite || h->header_bytes != 100) return false;
  if (h->application_id == kApplicationId) return true;
  if (!has_write_ahead_log(path)) return false;
  try {
    Db db;
    db.open(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, kCreate);
    return db.pragma_int("application_id", kCreate) == kApplicationId;
  } catch (const Error&) {
    return false;
  }
}

void remove_if_present(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    throw Error(std::string(kCreate) + " " + path + ": " + std::strerror(errno));
}

// Makes room for a new trace at `path`: replaces an old trace or an empty file, refuses to
// clobber anything else.
void clear_path(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    throw Error(std::string(kCreate) + " " + path + ": " + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) throw Error(std::string(kCreate) + " " + path + ": it is a directory");
  if (!S_ISREG(st.st_mode))
    throw Error(std::string(kCreate) + " " + path + ": it exists and is not a regular file");
  if (st.st_size != 0 && !is_trace_file(path))
    throw Error(path + " exists and is not a trainscope trace; refusing to replace it");
  remove_if_present(path);
  remove_if_present(path + "-wal");
  remove_if_present(path + "-shm");
}

}  // namespace

Writer::Writer(const std::string& path, const WriterOptions& options)
    : db_(owned_),
      staged_mode_(options.staged),
      overview_(options.overview),
      cache_mib_(options.cache_mib) {
  clear_path(path);
  db_.open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, kCreate);
  // While the file is being set up a reader opening it (a viewer, a job waiting for a rank's
  // part) holds locks the switch to WAL and the first commits must wait out: a short wait, never
  // a failed capture. Once set up, readers of the WAL file never block this writer, and it never
  // waits on them: the timeout is lifted at the end of the constructor.
  sqlite3_busy_timeout(db_.get(), kCreateBusyMs);
  const int page = options.page_size;
  if (options.bulk) db_.exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF", kCreate);
  // Staging: incremental auto-vacuum, so that the pages the staged blocks held go back to the
  // file system when finish() has indexed them instead of staying in the file as free pages.
  // The application_id goes into the file's header before it switches to WAL, so a capture
  // killed at any later moment leaves a file that says it is a trace.
  db_.exec(("PRAGMA page_size=" + std::to_string(page) +
            (options.staged ? "; PRAGMA auto_vacuum=INCREMENTAL" : "") +
            "; PRAGMA application_id=" + std::to_string(kApplicationId))
               .c_str(),
           kCreate);
  if (!options.bulk) {
    Stmt wal(db_, "PRAGMA journal_mode=WAL", kCreate);  // creates the file
    if (!wal.step() || wal.col_text(0) != "wal")
      throw Error(std::string(kCreate) + " " + path + ": the file system does not support WAL");
  }
  const int checkpoint_pages = std::max(64, (16 << 20) / std::max(page, 512));
  // Staging only appends: a small page cache recycles its pages instead of faulting in fresh
  // memory while training runs; index_staged() grows it. Nor does staging fsync: a commit in the
  // OS's page cache survives the process being killed (a SIGKILL loses at most about a second), and
  // a WAL checkpoint's fsync on a busy disk could hold the writer long enough for full rings to
  // drop events. finish() syncs the file it leaves.
  db_.exec(("PRAGMA synchronous=" + std::string(options.staged || options.bulk ? "OFF" : "NORMAL") +
            "; PRAGMA temp_store=MEMORY; PRAGMA cache_size=-" +
            std::to_string((options.staged ? 2 : options.cache_mib) * 1024) +
            "; PRAGMA wal_autocheckpoint=" + std::to_string(checkpoint_pages))
               .c_str(),
           kCreate);
  db_.exec("BEGIN", kCreate);
  db_.exec(std::string(schema_sql()).c_str(), kCreate);
  db_.exec("COMMIT", kCreate);

  prepare();
  put_meta(meta_key::kSchemaVersion, std::to_string(kSchemaVersion));
  put_meta(meta_key::kTrainscopeVersion, TRAINSCOPE_VERSION);
  commit();
  sqlite3_busy_timeout(db_.get(), 0);
}

Writer::Writer(Db& db, Adopt) : db_(db), owns_file_(false) {
  keyed_ = db_.pragma_int("user_version", kWrite) >= 5;
  if (keyed_) {
    Stmt origin(db_, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?", kWrite);
    origin.bind(1, std::string_view(meta_key::kEventKeyOriginNs));
    if (origin.step() && !origin.col_null(0)) key_origin_ = origin.col_int(0);
  }
  prepare();
  Stmt st(db_, "SELECT id FROM label WHERE category = 0 AND id >= 0 AND id <= 4294967295", kWrite);
  while (st.step()) {
    mark_step_label(static_cast<std::uint32_t>(st.col_int(0)), true);
  }
}

void Writer::prepare() {
  begin_ = Stmt(db_, "BEGIN", kWrite);
  commit_ = Stmt(db_, "COMMIT", kWrite);
  const int key_columns = keyed_ ? 1 : 2;
  ins_event_ = MultiRowInsert(db_, "INSERT OR IGNORE INTO event VALUES ", key_columns + 4, kWrite);
  ins_event_ignore1_ = Stmt(db_,
                            keyed_ ? "INSERT OR IGNORE INTO event VALUES (?,?,?,?,?)"
                                   : "INSERT OR IGNORE INTO event VALUES (?,?,?,?,?,?)",
                            kWrite);
  find_event_ = Stmt(db_,
                     keyed_ ? "SELECT dur_ns, label, step, bytes FROM event WHERE id = ?"
                            : "SELECT dur_ns, label, step, bytes FROM event "
                              "WHERE start_ns = ? AND track = ?",
                     kWrite);
  ins_arg_ =
      MultiRowInsert(db_, "INSERT OR IGNORE INTO event_arg VALUES ", key_columns + 2, kWrite);
  ins_step_ = MultiRowInsert(db_, "INSERT OR IGNORE INTO step_span VALUES ", 4, kWrite);
  ins_counter_ = Stmt(db_, "INSERT OR IGNORE INTO counter_sample VALUES (?,?,?)", kWrite);
  put_string_ = Stmt(db_, "INSERT OR REPLACE INTO string VALUES (?,?)", kWrite);
  put_label_ = Stmt(db_, "INSERT OR REPLACE INTO label VALUES (?,?,?,?,?)", kWrite);
  put_meta_ = Stmt(db_, "INSERT OR REPLACE INTO meta VALUES (?,?)", kWrite);
  ins_block_ = Stmt(db_, "INSERT INTO event_block (data) VALUES (?)", kWrite);
}

Writer::~Writer() {
  try {
    finish();
  } catch (...) {
    // Destructors do not throw; an explicit finish() reports the error.
    salvage({});
  }
}

void Writer::begin() {
  if (in_txn_) return;
  begin_.run();
  in_txn_ = true;
}

void Writer::commit() {
  if (!in_txn_) return;
  flush_staged();
  commit_.run();
  in_txn_ = false;
  events_committed_ = events_written_;
}

void Writer::finish() {
  if (finished_) return;
  index_staged();
  if (out_of_key_range_ > 0)
    put_meta(meta_key::kEventsOutOfKeyRange, std::to_string(out_of_key_range_));
  commit();  // on failure finished_ stays false: salvage() can still close the file
  finished_ = true;
  if (!owns_file_) return;
  // Hands the staged blocks' pages back; a failure only leaves free pages in the file.
  sqlite3_exec(db_.get(), "PRAGMA incremental_vacuum", nullptr, nullptr, nullptr);
  // The last checkpoint syncs: the finished trace is durable.
  sqlite3_exec(db_.get(), "PRAGMA synchronous=NORMAL", nullptr, nullptr, nullptr);
  const std::string path = db_.path();
  close_file();
  if (overview_) store_overview(path);
}

void Writer::flush_staged() {
  if (staged_.empty()) return;
  begin();
  sqlite3_bind_blob(ins_block_.get(), 1, staged_.bytes().data(), static_cast<int>(staged_.size()),
                    SQLITE_STATIC);
  ins_block_.run();
  staged_.clear();
}

std::uint64_t Writer::index_staged() {
  earliest_indexed_start_ = INT64_MAX;
  flush_staged();
  std::vector<std::int64_t> blocks;
  {
    Stmt st(db_, "SELECT seq FROM event_block ORDER BY seq", kWrite);
    while (st.step()) blocks.push_back(st.col_int(0));
  }
  if (blocks.empty()) return 0;
  db_.exec(("PRAGMA cache_size=-" + std::to_string(cache_mib_ * 1024)).c_str(), kWrite);
  begin();
  Stmt read(db_, "SELECT data FROM event_block WHERE seq = ?", kWrite);
  DecodedBlock rows;
  std::uint64_t indexed = 0;
  const std::uint64_t written = events_written_;  // staged rows were counted when staged
  for (const std::int64_t seq : blocks) {
    read.bind(1, seq);
    rows.clear();
    if (read.step()) {
      const auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(read.get(), 0));
      const auto n = static_cast<std::size_t>(sqlite3_column_bytes(read.get(), 0));
      if (!decode_block({p, p == nullptr ? 0 : n}, rows))
        throw Error(db_.path() + " is corrupt: staged event block " + std::to_string(seq) +
                    " is malformed");
    }
    read.reset();
    for (const EventRow& e : rows.events)
      earliest_indexed_start_ = std::min(earliest_indexed_start_, e.start_ns);
    fix_key_origin(rows.events);
    insert_rows(rows.events);
    insert_counters(rows.counters);
    indexed += rows.events.size();
  }
  db_.exec("DELETE FROM event_block", kWrite);
  events_staged_ = 0;
  if (staged_mode_) events_written_ = written;
  return indexed;
}

bool Writer::salvage(std::span<const std::pair<std::string, std::string>> meta) noexcept {
  if (finished_) return false;
  finished_ = true;
  sqlite3* db = db_.get();
  const auto rollback = [&] {
    if (sqlite3_get_autocommit(db) == 0) sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    in_txn_ = false;
    events_written_ = events_committed_;
    batch_.clear();
    args_.clear();
    steps_.clear();
    staged_.clear();
  };
  rollback();
  // Copying the log into the file lets the log start over from its beginning: the few pages
  // below then need no room the file system refused a moment ago.
  sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
  bool stored = false;
  try {
    for (const auto& [key, value] : meta) put_meta(key, value);
    commit();
    stored = true;
  } catch (...) {
    rollback();
  }
  close_file();
  return stored;
}

// Leaves a single self-contained file. Both steps may fail harmlessly (a reader has the file
// open, the disk is full): the trace opens either way, with its -wal file next to it.
// An adopted database (Writer(Db&, Adopt)) is its owner's: only this writer's statements go.
void Writer::close_file() noexcept {
  if (owns_file_)
    sqlite3_exec(db_.get(), "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
  for (Stmt* s : {&begin_, &commit_, &ins_event_ignore1_, &find_event_, &ins_counter_, &ins_block_,
                  &put_string_, &put_label_, &put_track_, &put_process_, &put_meta_})
    *s = Stmt();
  for (MultiRowInsert* m : {&ins_event_, &ins_arg_, &ins_step_}) m->clear();
  if (!owns_file_) return;
  sqlite3_exec(db_.get(), "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr);
  db_.close();
}

void Writer::put_string(std::uint32_t id, std::string_view text) {
  begin();
  put_string_.bind(1, std::int64_t{id});
  put_string_.bind(2, text);
  put_string_.run();
}

void Writer::put_label(std::uint32_t id, std::uint32_t name, trace::Category category,
                       std::uint32_t file, std::int64_t line) {
  begin();
  put_label_.bind(1, std::int64_t{id});
  put_label_.bind(2, std::int64_t{name});
  put_label_.bind(3, static_cast<std::int64_t>(category));
  put_label_.bind_opt(4, file, 0);
  put_label_.bind_opt(5, line, kNull);
  put_label_.run();
  mark_step_label(id, category == trace::Category::step);
}

// Label ids are dense from 1 in every writer's caller; a hostile one far above goes in a set
// rather than sizing the table by it.
void Writer::mark_step_label(std::uint32_t id, bool is_step) {
  if (id < kDenseLabels) {
    if (step_labels_.size() <= id) step_labels_.resize(std::size_t{id} + 1, false);
    step_labels_[id] = is_step;
  } else if (is_step) {
    sparse_step_labels_.insert(id);
  } else {
    sparse_step_labels_.erase(id);
  }
}

// Prepared on first use: a writer adopting an older file (to index its staged blocks) never
// writes tracks or processes, and that file's track table lacks the process column.
void Writer::put_track(std::uint32_t id, std::string_view name, trace::TrackKind kind,
                       std::int64_t os_tid, std::int64_t process) {
  begin();
  if (!put_track_)
    put_track_ = Stmt(db_, "INSERT OR REPLACE INTO track VALUES (?,?,?,?,?)", kWrite);
  put_track_.bind(1, std::int64_t{id});
  put_track_.bind(2, name);
  put_track_.bind(3, static_cast<std::int64_t>(kind));
  put_track_.bind_opt(4, os_tid, kNull);
  put_track_.bind_opt(5, process, kNull);
  put_track_.run();
}

void Writer::put_process(std::uint32_t id, std::string_view name, std::int64_t rank,
                         std::int64_t pid, std::string_view host) {
  begin();
  if (!put_process_)
    put_process_ = Stmt(db_, "INSERT OR REPLACE INTO process VALUES (?,?,?,?,?)", kWrite);
  put_process_.bind(1, std::int64_t{id});
  put_process_.bind(2, name);
  put_process_.bind_opt(3, rank, kNull);
  put_process_.bind_opt(4, pid, kNull);
  if (host.empty()) {
    put_process_.bind_null(5);
  } else {
    put_process_.bind(5, host);
  }
  put_process_.run();
}

void Writer::put_meta(std::string_view key, std::string_view value) {
  // The key origin is the writer's own (fix_key_origin): the keys written depend on it.
  if (key == meta_key::kEventKeyOriginNs) return;
  put_meta_row(key, value);
}

void Writer::put_meta_row(std::string_view key, std::string_view value) {
  begin();
  put_meta_.bind(1, key);
  put_meta_.bind(2, value);
  put_meta_.run();
}

bool Writer::is_step_label(std::uint32_t label) const {
  if (label < step_labels_.size()) return step_labels_[label];
  return label >= kDenseLabels && sparse_step_labels_.contains(label);
}

std::int64_t& Writer::latest_start(std::uint32_t track) {
  if (track_max_start_.size() <= track)
    track_max_start_.resize(std::size_t{track} + 1, std::numeric_limits<std::int64_t>::min());
  return track_max_start_[track];
}

// Rows are taken in key order: by start, then track, longer first; rows with equal keys keep
// the order they were given in (the order they were recorded). A row starting after everything
// already written on its track, alone on its (start_ns, track), cannot collide: it goes in a
// multi-row INSERT. The others (an outer zone ending after its children were written, zones
// starting on the same clock tick) are placed one at a time by place_same_start.
void Writer::append(std::span<const EventRow> rows) {
  begin();
  fix_key_origin(rows);
  if (staged_mode_) {
    staged_.append(rows);
    events_written_ += rows.size();
    events_staged_ += rows.size();
    if (staged_.size() >= (std::size_t{4} << 20)) flush_staged();  // blocks stay a few MiB
    return;
  }
  insert_rows(rows);
}

// The first event given, staged or not, fixes the trace's key origin: a capture's first
// committed block carries it, so readers of the running capture key events as finish() will.
void Writer::fix_key_origin(std::span<const EventRow> rows) {
  if (!keyed_ || key_origin_ || rows.empty()) return;
  key_origin_ = rows.front().start_ns;
  put_meta_row(meta_key::kEventKeyOriginNs, std::to_string(*key_origin_));
}

bool Writer::keyless(const EventRow& r) const {
  return keyed_ && !has_key(r.start_ns, key_origin_.value_or(r.start_ns));
}

// Binds an event's key at parameter p; returns the next parameter.
int Writer::bind_key(Stmt& st, int p, std::int64_t start, std::uint32_t track) const {
  if (keyed_) {
    st.bind(p, event_key(start, track, key_origin_.value_or(start)));
    return p + 1;
  }
  st.bind(p, start);
  st.bind(p + 1, std::int64_t{track});
  return p + 2;
}

void Writer::bind_event(Stmt& st, int p, const EventRow& r) const {
  p = bind_key(st, p, r.start_ns, r.track);
  st.bind(p, r.dur_ns);
  st.bind(p + 1, std::int64_t{r.label});
  st.bind_opt(p + 2, r.step, kNull);
  st.bind_opt(p + 3, r.bytes, kNull);
}

// The last start an event moved in `direction` may take: the end of the keys' range.
std::optional<std::int64_t> Writer::last_start(int direction) const {
  if (!keyed_ || !key_origin_) return std::nullopt;
  return direction > 0 ? sat_add(*key_origin_, kKeyOffsetLimit - 1)
                       : sat_sub(*key_origin_, kKeyOffsetLimit);
}

void Writer::insert_rows(std::span<const EventRow> rows) {
  begin();
  const auto off_limits = [&](const EventRow& r) { return r.track >= kTrackLimit || keyless(r); };
  const bool damaged = std::any_of(rows.begin(), rows.end(), off_limits);
  if (damaged || !std::is_sorted(rows.begin(), rows.end(), key_less)) {
    sorted_.assign(rows.begin(), rows.end());
    out_of_key_range_ += std::erase_if(sorted_, [&](const EventRow& r) { return keyless(r); });
    std::erase_if(sorted_, off_limits);
    std::stable_sort(sorted_.begin(), sorted_.end(), key_less);
    rows = sorted_;
  }
  for (std::size_t i = 0; i < rows.size();) {
    const EventRow& row = rows[i];
    std::size_t j = i + 1;
    while (j < rows.size() && rows[j].start_ns == row.start_ns && rows[j].track == row.track) ++j;
    std::int64_t& latest = latest_start(row.track);
    if (j == i + 1 && row.start_ns > latest) {
      latest = row.start_ns;
      batch_.push_back(row);
    } else {
      flush_batch();
      place_same_start(rows.subspan(i, j - i));
    }
    i = j;
  }
  flush_batch();
  flush_extras();
}

void Writer::flush_batch() {
  ins_event_.insert(
      std::span<EventRow>(batch_),
      [&](Stmt& st, int p, const EventRow& r) { bind_event(st, p, r); },
      [&](std::span<EventRow> chunk, std::size_t inserted) {
        if (inserted != chunk.size()) {
          resolve_collisions(chunk);
          return;
        }
        events_written_ += chunk.size();
        insert_extras(chunk);
      });
  batch_.clear();
}

// Safety net, not expected to run: a batched row met a key written outside this writer's
// bookkeeping. Rows that made it in are recognised by content; the others are placed again.
void Writer::resolve_collisions(std::span<EventRow> rows) {
  std::vector<std::pair<std::int64_t, std::uint32_t>> claimed;
  for (EventRow& r : rows) {
    bind_key(find_event_, 1, r.start_ns, r.track);
    bool present = false;
    if (find_event_.step()) {
      const auto opt = [&](int c) {
        return find_event_.col_null(c) ? kNull : find_event_.col_int(c);
      };
      present = find_event_.col_int(0) == r.dur_ns &&
                find_event_.col_int(1) == std::int64_t{r.label} && opt(2) == r.step &&
                opt(3) == r.bytes;
    }
    find_event_.reset();
    const std::pair key{r.start_ns, r.track};
    if (present && std::find(claimed.begin(), claimed.end(), key) == claimed.end()) {
      claimed.push_back(key);
      written_one(r);
      continue;
    }
    place_same_start(std::span<const EventRow>(&r, 1));
    claimed.emplace_back(r.start_ns, r.track);
  }
}

// Places rows sharing one (start_ns, track), given longer first and equal durations in the
// order recorded. Clocks tick coarsely (10 ns on some CPUs), so a zone and the first zone nested
// in it often start on the same tick, and often end on the same tick too: the rows are taken
// to nest, outermost first. The outermost keeps the start and each nested row moves a
// nanosecond later than the one enclosing it; when a nested row is too short for that (it would
// end later than it did), the innermost keeps the start and the enclosing rows move earlier
// instead. When an event written earlier already holds the start (a nested zone written before
// the zone enclosing it ended), the rows enclosing it move earlier, the innermost nearest, and
// those it encloses move later. Moved rows keep their ends.
void Writer::place_same_start(std::span<const EventRow> group) {
  group_.assign(group.begin(), group.end());
  for (auto it = group_.begin(); it != group_.end();) {  // equal durations: the later encloses
    const std::int64_t dur = it->dur_ns;
    const auto run =
        std::find_if(it, group_.end(), [&](const EventRow& r) { return r.dur_ns != dur; });
    std::reverse(it, run);
    it = run;
  }
  const std::size_t n = group_.size();
  bool nested_can_move_later = true;
  for (std::size_t k = 1; k < n; ++k)
    if (group_[k].dur_ns < static_cast<std::int64_t>(k)) nested_can_move_later = false;
  std::size_t keeper = nested_can_move_later ? 0 : n - 1;  // the row that keeps the start
  if (try_insert(group_[keeper])) {
    written_one(group_[keeper]);
  } else {
    const std::int64_t start = group_[0].start_ns;
    std::int64_t taken_end = start;
    bind_key(find_event_, 1, start, group_[0].track);
    if (find_event_.step()) taken_end = sat_add(taken_end, find_event_.col_int(0));
    find_event_.reset();
    keeper = 0;  // rows [0, keeper) enclose the event there, rows [keeper, n) lie inside it
    while (keeper < n && sat_add(start, group_[keeper].dur_ns) >= taken_end) ++keeper;
    if (keeper < n)
      insert_moving(group_[keeper], +1);
    else
      insert_moving(group_[--keeper], -1);
  }
  for (std::size_t k = keeper; k-- > 0;) insert_moving(group_[k], -1);
  for (std::size_t k = keeper + 1; k < n; ++k) insert_moving(group_[k], +1);
}

bool Writer::try_insert(const EventRow& r) {
  bind_event(ins_event_ignore1_, 1, r);
  ins_event_ignore1_.run();
  return sqlite3_changes(db_.get()) == 1;
}

// Inserts r at the first free start from r.start_ns on in `direction` (-1 or +1), keeping its
// end (a row moved later than its end keeps no duration). event_starts_ skips the starts found
// taken before, so the rows of one key cost one search in all. A row with no free start left
// before the end of the time range is dropped.
void Writer::insert_moving(EventRow r, int direction) {
  const EventRow wanted = r;
  const auto placed = event_starts_.place(
      r.track, wanted.start_ns, direction,
      [&](std::int64_t s) {
        r.start_ns = s;
        if (direction > 0)
          r.dur_ns = std::max<std::int64_t>(0, sat_sub(wanted.dur_ns, sat_sub(s, wanted.start_ns)));
        else
          r.dur_ns = sat_add(wanted.dur_ns, sat_sub(wanted.start_ns, s));
        return try_insert(r);
      },
      last_start(direction));
  if (!placed) return;
  if (*placed != wanted.start_ns) ++events_moved_;
  earliest_indexed_start_ = std::min(earliest_indexed_start_, r.start_ns);
  written_one(r);
}

void Writer::written_one(const EventRow& r) {
  ++events_written_;
  std::int64_t& latest = latest_start(r.track);
  latest = std::max(latest, r.start_ns);
  insert_extras(std::span<const EventRow>(&r, 1));
}

// Arguments and steps of inserted events wait for flush_extras(), to go in multi-row INSERTs.
void Writer::insert_extras(std::span<const EventRow> rows) {
  for (const EventRow& r : rows) {
    if (r.work_size != kNull || r.correlation != kNull) args_.push_back(r);
    if (r.step != kNull && is_step_label(r.label)) steps_.push_back(r);
  }
}

void Writer::flush_extras() {
  ins_arg_.insert(std::span<const EventRow>(args_), [&](Stmt& st, int p, const EventRow& r) {
    p = bind_key(st, p, r.start_ns, r.track);
    st.bind_opt(p, r.work_size, kNull);
    st.bind_opt(p + 1, r.correlation, kNull);
  });
  args_.clear();
  ins_step_.insert(std::span<const EventRow>(steps_), [](Stmt& st, int p, const EventRow& r) {
    st.bind(p, r.start_ns);
    st.bind(p + 1, std::int64_t{r.track});
    st.bind(p + 2, r.step);
    st.bind(p + 3, r.dur_ns);
  });
  steps_.clear();
}

void Writer::append(std::span<const CounterRow> rows) {
  begin();
  if (staged_mode_) {
    staged_.append(rows);
    return;
  }
  insert_counters(rows);
}

// Samples of one track at the same nanosecond move later, to the first free time. A NaN value
// is never stored (SQLite makes it NULL, which the table refuses): the sample is skipped
// rather than offered every later time.
void Writer::insert_counters(std::span<const CounterRow> rows) {
  for (const CounterRow& c : rows) {
    if (std::isnan(c.value)) continue;
    counter_times_.place(c.track, c.ts_ns, +1, [&](std::int64_t ts) {
      ins_counter_.bind(1, std::int64_t{c.track});
      ins_counter_.bind(2, ts);
      ins_counter_.bind(3, c.value);
      ins_counter_.run();
      return sqlite3_changes(db_.get()) == 1;
    });
  }
}

}  // namespace ts::store
