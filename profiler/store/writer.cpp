#include "profiler/store/writer.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_set>
#include <utility>

#include "profiler/store/event_block.hpp"
#include "profiler/store/event_key.hpp"
#include "profiler/store/file_header.hpp"
#include "profiler/store/overview_codec.hpp"
#include "profiler/store/path_lock.hpp"
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
  remove_trace_files(path, kCreate);
}

}  // namespace

Writer::Writer(const std::string& path, const WriterOptions& options)
    : staged_mode_(options.staged),
      bulk_(options.bulk),
      durability_(options.durability),
      overview_(options.overview),
      cache_mib_(options.cache_mib) {
  PathLock::check_unheld(path);  // never replace a file a running capture is writing
  clear_path(path);
  db_.open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, kCreate);
  lock_.hold(path);
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
  indexer_.emplace(db_, /*keyed=*/true);
  put_meta(meta_key::kSchemaVersion, std::to_string(kSchemaVersion));
  put_meta(meta_key::kTrainscopeVersion, TRAINSCOPE_VERSION);
  commit();
  sqlite3_busy_timeout(db_.get(), 0);
}

void Writer::prepare() {
  begin_ = Stmt(db_, "BEGIN", kWrite);
  commit_ = Stmt(db_, "COMMIT", kWrite);
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
  if (pages_) throw Error(db_.path() + ": only events may be written while pages are appended");
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

bool Writer::begin_page_append(std::int64_t key_origin, std::optional<TimeRange> extent) {
  if (pages_ || staged_mode_ || !bulk_ || finished_) return false;
  const auto& origin = indexer_->key_origin();
  if (origin && *origin != key_origin) return false;
  {
    Stmt any(db_, "SELECT 1 FROM event LIMIT 1", kWrite);
    if (any.step()) return false;
  }
  begin();
  EventRow first;
  first.start_ns = key_origin;
  indexer_->fix_key_origin(std::span<const EventRow>(&first, 1));
  commit();
  if (overview_ && extent) {
    std::vector<Track> tracks;  // each id as last put
    std::unordered_set<std::uint32_t> seen;
    for (auto t = tracks_.rbegin(); t != tracks_.rend(); ++t)
      if (seen.insert(t->id).second) tracks.push_back(*t);
    fed_overview_.emplace(*extent, tracks);
  }
  pages_.emplace(
      db_, key_origin, [this](std::uint32_t label) { return indexer_->is_step_label(label); },
      fed_overview_ ? &*fed_overview_ : nullptr);
  indexer_->use_table(&*pages_);
  return true;
}

void Writer::end_page_append() {
  if (!pages_) return;
  try {
    indexer_->use_table(nullptr);  // what the indexer holds back goes to the pages first
    pages_->finish();
  } catch (...) {
    abandon_page_append();
    throw;
  }
  std::vector<EventRow> late = std::move(pages_->late_rows());
  pages_.reset();
  if (!late.empty()) fed_overview_.reset();  // the overview has not seen them
  begin();
  db_.exec("REINDEX step_span_step", kWrite);  // step_span's rows went in behind it
  indexer_->insert(late);                      // counted written when given
}

// After a failed write of pages: what they held is dropped (the file's header never counted
// them), and the writer goes on through SQLite, which the failure left untouched.
void Writer::abandon_page_append() noexcept {
  indexer_->drop_pending();
  indexer_->use_table(nullptr);  // nothing pending: nothing goes to the pages
  pages_.reset();
  fed_overview_.reset();
}

void Writer::finish() {
  if (finished_) return;
  end_page_append();
  index_staged();
  begin();
  indexer_->note_out_of_key_range();
  commit();  // on failure finished_ stays false: salvage() can still close the file
  finished_ = true;
  // Hands the staged blocks' pages back; a failure only leaves free pages in the file.
  sqlite3_exec(db_.get(), "PRAGMA incremental_vacuum", nullptr, nullptr, nullptr);
  // The last checkpoint syncs: the finished trace is durable, unless it is not to be (an
  // import's: it is made again from its sources, and syncing its gigabytes held the import up
  // while the disk took them).
  if (durability_ == Durability::synced)
    sqlite3_exec(db_.get(), "PRAGMA synchronous=NORMAL", nullptr, nullptr, nullptr);
  const std::string path = db_.path();
  close_file();
  if (overview_ && fed_overview_) {
    overview_fed_ = store_overview(path, *fed_overview_, durability_) && fed_overview_->used();
  } else if (overview_) {
    store_overview(path, durability_);
  }
  fed_overview_.reset();
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
  flush_staged();
  begin();
  const std::uint64_t indexed = indexer_->index_blocks(cache_mib_);
  events_staged_ = 0;  // staged rows were counted written when staged
  return indexed;
}

bool Writer::salvage(std::span<const std::pair<std::string, std::string>> meta) noexcept {
  if (finished_) return false;
  finished_ = true;
  sqlite3* db = db_.get();
  if (pages_) abandon_page_append();
  const auto rollback = [&] {
    if (sqlite3_get_autocommit(db) == 0) sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    in_txn_ = false;
    events_written_ = events_committed_;
    if (indexer_) indexer_->drop_pending();
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
void Writer::close_file() noexcept {
  sqlite3_exec(db_.get(), "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
  for (Stmt* s : {&begin_, &commit_, &ins_block_, &put_string_, &put_label_, &put_track_,
                  &put_process_, &put_meta_})
    *s = Stmt();
  if (indexer_) indexer_->release();
  sqlite3_exec(db_.get(), "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr);
  db_.close();
  lock_.release();  // after SQLite let go of the file (path_lock.hpp)
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
  indexer_->mark_step_label(id, category == trace::Category::step);
}

void Writer::put_track(std::uint32_t id, std::string_view name, trace::TrackKind kind,
                       std::int64_t os_tid, std::int64_t process) {
  begin();
  if (!put_track_)
    put_track_ = Stmt(db_, "INSERT OR REPLACE INTO track VALUES (?,?,?,?,?)", kWrite);
  tracks_.push_back(Track{id, std::string(), kind, os_tid, process});  // a later one replaces
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

void Writer::append(std::span<const EventRow> rows) {
  if (pages_) {
    try {
      insert_rows(rows);
    } catch (...) {
      abandon_page_append();
      throw;
    }
    return;
  }
  begin();
  fed_overview_.reset();  // events it does not see
  indexer_->fix_key_origin(rows);
  if (staged_mode_) {
    staged_.append(rows);
    events_written_ += rows.size();
    events_staged_ += rows.size();
    if (staged_.size() >= (std::size_t{4} << 20)) flush_staged();  // blocks stay a few MiB
    return;
  }
  insert_rows(rows);
}

void Writer::insert_rows(std::span<const EventRow> rows) {
  const std::uint64_t before = indexer_->inserted();
  indexer_->insert(rows);
  events_written_ += indexer_->inserted() - before;
}

void Writer::append(std::span<const CounterRow> rows) {
  begin();
  if (staged_mode_) {
    staged_.append(rows);
    return;
  }
  indexer_->insert(rows);
}

}  // namespace ts::store
