#include "profiler/store/writer.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <utility>

#include "profiler/store/schema.hpp"

#ifndef TRAINSCOPE_VERSION
#define TRAINSCOPE_VERSION "unknown"
#endif

namespace ts::store {

namespace {

constexpr int kChunkRows[3] = {64, 8, 1};
constexpr const char* kCreate = "cannot create trace";
constexpr const char* kWrite = "cannot write trace";

std::string values_list(int columns, int rows) {
  std::string row = "(?";
  for (int c = 1; c < columns; ++c) row += ",?";
  row += ")";
  std::string out;
  for (int r = 0; r < rows; ++r) out += (r == 0 ? "" : ",") + row;
  return out;
}

// True when the file starts with an SQLite header carrying our application_id.
bool is_trace_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::array<unsigned char, 72> h{};
  if (!f.read(reinterpret_cast<char*>(h.data()), h.size())) return false;
  if (std::memcmp(h.data(), "SQLite format 3", 16) != 0) return false;
  const std::uint32_t app = (std::uint32_t{h[68]} << 24) | (std::uint32_t{h[69]} << 16) |
                            (std::uint32_t{h[70]} << 8) | std::uint32_t{h[71]};
  return app == static_cast<std::uint32_t>(kApplicationId);
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
  if (!S_ISREG(st.st_mode))
    throw Error(std::string(kCreate) + " " + path + ": it exists and is not a regular file");
  if (st.st_size != 0 && !is_trace_file(path))
    throw Error(path + " exists and is not a trainscope trace; refusing to replace it");
  remove_if_present(path);
  remove_if_present(path + "-wal");
  remove_if_present(path + "-shm");
}

}  // namespace

Writer::Writer(const std::string& path, const WriterOptions& options) {
  clear_path(path);
  db_.open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, kCreate);
  const int page = options.page_size;
  db_.exec(("PRAGMA page_size=" + std::to_string(page)).c_str(), kCreate);
  {
    Stmt wal(db_, "PRAGMA journal_mode=WAL", kCreate);  // creates the file
    if (!wal.step() || wal.col_text(0) != "wal")
      throw Error(std::string(kCreate) + " " + path + ": the file system does not support WAL");
  }
  const int checkpoint_pages = std::max(64, (16 << 20) / std::max(page, 512));
  db_.exec(("PRAGMA synchronous=NORMAL; PRAGMA temp_store=MEMORY; PRAGMA cache_size=-" +
            std::to_string(options.cache_mib * 1024) +
            "; PRAGMA wal_autocheckpoint=" + std::to_string(checkpoint_pages))
               .c_str(),
           kCreate);
  db_.exec("BEGIN", kCreate);
  db_.exec(std::string(schema_sql()).c_str(), kCreate);
  db_.exec("COMMIT", kCreate);

  begin_ = Stmt(db_, "BEGIN", kWrite);
  commit_ = Stmt(db_, "COMMIT", kWrite);
  for (int i = 0; i < 3; ++i)
    ins_event_[i] =
        Stmt(db_, "INSERT OR IGNORE INTO event VALUES " + values_list(6, kChunkRows[i]), kWrite);
  ins_event_ignore1_ = Stmt(db_, "INSERT OR IGNORE INTO event VALUES (?,?,?,?,?,?)", kWrite);
  find_event_ = Stmt(
      db_, "SELECT dur_ns, label, step, bytes FROM event WHERE start_ns = ? AND track = ?", kWrite);
  ins_arg_ = Stmt(db_, "INSERT OR REPLACE INTO event_arg VALUES (?,?,?,?)", kWrite);
  ins_step_ = Stmt(db_, "INSERT OR REPLACE INTO step_span VALUES (?,?,?,?)", kWrite);
  ins_counter_ = Stmt(db_, "INSERT OR IGNORE INTO counter_sample VALUES (?,?,?)", kWrite);
  put_string_ = Stmt(db_, "INSERT OR REPLACE INTO string VALUES (?,?)", kWrite);
  put_label_ = Stmt(db_, "INSERT OR REPLACE INTO label VALUES (?,?,?,?,?)", kWrite);
  put_track_ = Stmt(db_, "INSERT OR REPLACE INTO track VALUES (?,?,?,?)", kWrite);
  put_meta_ = Stmt(db_, "INSERT OR REPLACE INTO meta VALUES (?,?)", kWrite);

  put_meta("schema_version", std::to_string(kSchemaVersion));
  put_meta("trainscope_version", TRAINSCOPE_VERSION);
  commit();
}

Writer::~Writer() {
  try {
    finish();
  } catch (...) {
    // Destructors do not throw; an explicit finish() reports the error.
  }
}

void Writer::begin() {
  if (in_txn_) return;
  begin_.run();
  in_txn_ = true;
}

void Writer::commit() {
  if (!in_txn_) return;
  commit_.run();
  in_txn_ = false;
}

void Writer::finish() {
  if (finished_) return;
  finished_ = true;
  commit();
  // Leave a single self-contained file. Both steps may fail harmlessly while a reader has the
  // file open; the trace is complete either way.
  sqlite3_exec(db_.get(), "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
  for (Stmt* s : {&begin_, &commit_, &ins_event_[0], &ins_event_[1], &ins_event_[2],
                  &ins_event_ignore1_, &find_event_, &ins_arg_, &ins_step_, &ins_counter_,
                  &put_string_, &put_label_, &put_track_, &put_meta_})
    *s = Stmt();
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
  if (step_labels_.size() <= id) step_labels_.resize(id + 1, false);
  step_labels_[id] = category == trace::Category::step;
}

void Writer::put_track(std::uint32_t id, std::string_view name, trace::TrackKind kind,
                       std::int64_t os_tid) {
  begin();
  put_track_.bind(1, std::int64_t{id});
  put_track_.bind(2, name);
  put_track_.bind(3, static_cast<std::int64_t>(kind));
  put_track_.bind_opt(4, os_tid, kNull);
  put_track_.run();
}

void Writer::put_meta(std::string_view key, std::string_view value) {
  begin();
  put_meta_.bind(1, key);
  put_meta_.bind(2, value);
  put_meta_.run();
}

bool Writer::is_step_label(std::uint32_t label) const {
  return label < step_labels_.size() && step_labels_[label];
}

// Rows starting after everything already written on their track cannot collide: they go in
// multi-row INSERTs. The others (an outer zone ending after its children were written, two
// zones starting on the same clock tick) are inserted one at a time by insert_one.
void Writer::append(std::span<const EventRow> rows) {
  begin();
  for (const EventRow& row : rows) {
    if (track_max_start_.size() <= row.track)
      track_max_start_.resize(row.track + 1, std::numeric_limits<std::int64_t>::min());
    std::int64_t& latest = track_max_start_[row.track];
    if (row.start_ns > latest) {
      latest = row.start_ns;
      batch_.push_back(row);
      continue;
    }
    flush_batch();
    EventRow r = row;
    insert_one(r);
    latest = std::max(latest, r.start_ns);
  }
  flush_batch();
}

void Writer::flush_batch() {
  std::span<EventRow> rows(batch_);
  std::size_t i = 0;
  for (int k = 0; k < 3; ++k) {
    const auto n = static_cast<std::size_t>(kChunkRows[k]);
    for (; rows.size() - i >= n; i += n) insert_chunk(ins_event_[k], rows.subspan(i, n));
  }
  batch_.clear();
}

void Writer::insert_chunk(Stmt& st, std::span<EventRow> rows) {
  int p = 1;
  for (const EventRow& r : rows) {
    st.bind(p++, r.start_ns);
    st.bind(p++, std::int64_t{r.track});
    st.bind(p++, r.dur_ns);
    st.bind(p++, std::int64_t{r.label});
    st.bind_opt(p++, r.step, kNull);
    st.bind_opt(p++, r.bytes, kNull);
  }
  st.run();
  if (static_cast<std::size_t>(sqlite3_changes(db_.get())) != rows.size()) resolve_collisions(rows);
  events_written_ += rows.size();
  insert_extras(rows);
}

// Safety net, not expected to run: a batched row met a key written outside this writer's
// bookkeeping. Rows that made it in are recognised by content.
void Writer::resolve_collisions(std::span<EventRow> rows) {
  std::vector<std::pair<std::int64_t, std::uint32_t>> claimed;
  for (EventRow& r : rows) {
    find_event_.bind(1, r.start_ns);
    find_event_.bind(2, std::int64_t{r.track});
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
      continue;
    }
    insert_one(r);
    --events_written_;  // insert_one counted it; insert_chunk counts the whole chunk
    claimed.emplace_back(r.start_ns, r.track);
  }
}

// Inserts one row, moving it off a (start_ns, track) already taken. Clocks tick coarsely (10 ns
// on some CPUs), so a zone and the first zone nested in it can start on the same tick: the
// longer of the two moves earlier, the shorter later, so nesting survives whichever arrives
// first. The end of the moved event is kept.
void Writer::insert_one(EventRow& r) {
  int direction = 0;
  for (;;) {
    ins_event_ignore1_.bind(1, r.start_ns);
    ins_event_ignore1_.bind(2, std::int64_t{r.track});
    ins_event_ignore1_.bind(3, r.dur_ns);
    ins_event_ignore1_.bind(4, std::int64_t{r.label});
    ins_event_ignore1_.bind_opt(5, r.step, kNull);
    ins_event_ignore1_.bind_opt(6, r.bytes, kNull);
    ins_event_ignore1_.run();
    if (sqlite3_changes(db_.get()) == 1) break;
    if (direction == 0) {
      std::int64_t taken_dur = 0;
      find_event_.bind(1, r.start_ns);
      find_event_.bind(2, std::int64_t{r.track});
      if (find_event_.step()) taken_dur = find_event_.col_int(0);
      find_event_.reset();
      direction = r.dur_ns > taken_dur ? -1 : 1;
      ++events_moved_;
    }
    r.start_ns += direction;
    r.dur_ns = std::max<std::int64_t>(0, r.dur_ns - direction);
  }
  ++events_written_;
  insert_extras(std::span<const EventRow>(&r, 1));
}

void Writer::insert_extras(std::span<const EventRow> rows) {
  for (const EventRow& r : rows) {
    if (r.work_size != kNull || r.correlation != kNull) {
      ins_arg_.bind(1, r.start_ns);
      ins_arg_.bind(2, std::int64_t{r.track});
      ins_arg_.bind_opt(3, r.work_size, kNull);
      ins_arg_.bind_opt(4, r.correlation, kNull);
      ins_arg_.run();
    }
    if (r.step != kNull && is_step_label(r.label)) {
      ins_step_.bind(1, r.start_ns);
      ins_step_.bind(2, std::int64_t{r.track});
      ins_step_.bind(3, r.step);
      ins_step_.bind(4, r.dur_ns);
      ins_step_.run();
    }
  }
}

void Writer::append(std::span<const CounterRow> rows) {
  begin();
  for (const CounterRow& c : rows) {
    std::int64_t ts = c.ts_ns;
    for (int tries = 0; tries < 1000; ++tries, ++ts) {  // same-nanosecond samples: move later
      ins_counter_.bind(1, std::int64_t{c.track});
      ins_counter_.bind(2, ts);
      ins_counter_.bind(3, c.value);
      ins_counter_.run();
      if (sqlite3_changes(db_.get()) == 1) break;
    }
  }
}

}  // namespace ts::store
