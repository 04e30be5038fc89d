// Reader::refresh: a reader following a capture that is still running takes in what was committed
// since it last looked, without reading the rest again.
//
// A running capture commits its events as staged blocks (schema.sql, event_block, numbered by
// seq in commit order) and its strings, labels, tracks, processes and meta as rows. A reader of
// such a file keeps the file's connection beside its in-memory copy and the writer that indexed
// the copy (its per-track state decides where a same-tick event goes, so the copy ends up as one
// indexing of every block in order would leave it). A refresh, in one read transaction of the
// file: the small tables are copied whole (they hold a few hundred rows), the blocks after the
// last one indexed are copied and indexed. Its cost is that of the new blocks.
#include <sqlite3.h>

#include "profiler/store/event_indexer.hpp"
#include "profiler/store/file_check.hpp"
#include "profiler/store/file_header.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/schema.hpp"

namespace ts::store {

namespace {

constexpr const char* kRefresh = "cannot refresh trace";

// Ends the file's read transaction on every way out, so the capture can checkpoint.
struct ReadTransaction {
  explicit ReadTransaction(Db& db) : db_(db) { db_.exec("BEGIN", kRefresh); }
  ~ReadTransaction() { sqlite3_exec(db_.get(), "COMMIT", nullptr, nullptr, nullptr); }
  Db& db_;
};

// The small tables a capture adds rows to while it runs (process: from version 3).
constexpr const char* kSmallTables[] = {"string", "label", "track", "process", "meta"};

}  // namespace

Snapshot::~Snapshot() {
  sqlite3_free(bytes_);
}

Reader::~Reader() = default;

// Copies each row as it is: the copy was made from this file, so the tables have the same shape.
void Reader::copy_small_tables(Db& from) {
  for (const std::string table : kSmallTables) {
    if (table == "process" && version_ < 3) continue;
    Stmt read(from, "SELECT * FROM " + table, kRefresh);
    const int columns = sqlite3_column_count(read.get());
    std::string insert = "INSERT OR REPLACE INTO " + table + " VALUES (?";
    for (int c = 1; c < columns; ++c) insert += ",?";
    Stmt write(db_, insert + ")", kRefresh);  // fails if the copy's table differs
    while (read.step()) {
      for (int c = 0; c < columns; ++c)
        sqlite3_bind_value(write.get(), c + 1, sqlite3_column_value(read.get(), c));
      write.run();
    }
  }
}

// Copies the file's blocks after `seq` into the in-memory copy's event_block, where the indexer
// takes them as it took the first ones; returns the last one's seq (`seq` if none).
std::int64_t Reader::copy_blocks_after(Db& from, std::int64_t seq) {
  Stmt read(from, "SELECT seq, data FROM event_block WHERE seq > ? ORDER BY seq", kRefresh);
  read.bind(1, seq);
  Stmt write(db_, "INSERT INTO event_block (seq, data) VALUES (?, ?)", kRefresh);
  while (read.step()) {
    seq = read.col_int(0);
    sqlite3_bind_value(write.get(), 1, sqlite3_column_value(read.get(), 0));
    sqlite3_bind_value(write.get(), 2, sqlite3_column_value(read.get(), 1));
    write.run();
    ++blocks_indexed_;
  }
  return seq;
}

Reader::Refresh Reader::refresh() {
  if (snapshot_) return Refresh::reopen;  // a snapshot never changes
  if (!staged_indexed_) {
    // Read from the file itself: new rows show in every query. A capture that had staged nothing
    // when this reader opened is read in memory once it has.
    if (has_staged_events()) return Refresh::reopen;
    const std::int64_t version = db_.pragma_int("data_version", kRefresh);
    changed_from_ns_ = INT64_MAX;
    if (version == data_version_) return Refresh::unchanged;
    data_version_ = version;
    changed_from_ns_ = INT64_MIN;  // the file's own rows: anything may have changed
    clear_tables();
    load_tables();
    return Refresh::appended;
  }
  if (!indexer_ || file_identity(path()) != file_id_) return Refresh::reopen;
  file_.set_work_budget(work_budget(size_with_write_ahead_log(path())));
  db_.set_work_budget(work_budget(size_with_write_ahead_log(path())));
  const std::int64_t version = file_.pragma_int("data_version", kRefresh);
  changed_from_ns_ = INT64_MAX;
  if (version == data_version_) return Refresh::unchanged;
  ReadTransaction snapshot(file_);
  // A capture that stopped (or a recover) indexed its blocks into the file's event table.
  if (file_.pragma_int("user_version", kRefresh) != version_) return Refresh::reopen;
  check_schema(file_, version_);  // what was checked on opening may have been replaced
  {
    Stmt indexed(file_, "SELECT 1 FROM event LIMIT 1", kRefresh);
    if (indexed.step()) return Refresh::reopen;
  }
  data_version_ = version;
  db_.exec("PRAGMA query_only=OFF", kRefresh);
  try {
    const std::uint64_t before = blocks_indexed_;
    db_.exec("BEGIN", kRefresh);
    copy_small_tables(file_);
    last_block_ = copy_blocks_after(file_, last_block_);
    indexer_->index_blocks(kIndexCacheMib);  // refuses a malformed block by name
    db_.exec("COMMIT", kRefresh);
    changed_from_ns_ = indexer_->earliest_indexed_start();
    db_.exec("PRAGMA query_only=ON", kRefresh);
    clear_tables();
    load_tables();
    return blocks_indexed_ > before ? Refresh::appended : Refresh::unchanged;
  } catch (...) {
    // What this refresh indexed is rolled back, but the indexer's state is not: later refreshes
    // ask for a new reader. What was read before stays readable.
    sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
    indexer_.reset();
    sqlite3_exec(db_.get(), "PRAGMA query_only=ON", nullptr, nullptr, nullptr);
    throw;
  }
}

}  // namespace ts::store
