#include "profiler/store/live_copy.hpp"

#include <sqlite3.h>

#include <string>

#include "profiler/store/event_indexer.hpp"
#include "profiler/store/file_check.hpp"
#include "profiler/store/file_header.hpp"

namespace ts::store {

namespace {

constexpr const char* kRead = "cannot read trace";
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

LiveCopy::LiveCopy(Db& db, int version) : version_(version) {
  const std::string path = db.path();
  Db mem;
  mem.open_memory(path, kRead);
  harden_for_reading(mem);
  mem.set_work_budget(work_budget(size_with_write_ahead_log(path)));
  sqlite3_backup* copy = sqlite3_backup_init(mem.get(), "main", db.get(), "main");
  if (copy == nullptr) mem.fail(sqlite3_errcode(mem.get()), kRead);
  const int rc = sqlite3_backup_step(copy, -1);
  sqlite3_backup_finish(copy);
  if (rc != SQLITE_DONE) db.fail(rc, kRead);
  db.swap(mem);
  file_.swap(mem);  // the file's connection, kept for update()
  file_id_ = file_identity(path);
  {
    Stmt last(db, "SELECT coalesce(max(seq), 0), count(*) FROM event_block", kRead);
    if (last.step()) {
      last_block_ = last.col_int(0);
      blocks_indexed_ = static_cast<std::uint64_t>(last.col_int(1));
    }
  }
  indexer_ = std::make_unique<EventIndexer>(db, EventIndexer::Existing{});
  db.exec("BEGIN", kRead);
  indexer_->index_blocks(kIndexCacheMib);
  db.exec("COMMIT", kRead);
  db.exec("PRAGMA query_only=ON", kRead);
}

LiveCopy::~LiveCopy() = default;

// Copies each row as it is: the copy was made from this file, so the tables have the same shape.
void LiveCopy::copy_small_tables(Db& copy) {
  for (const std::string table : kSmallTables) {
    if (table == "process" && version_ < 3) continue;
    Stmt read(file_, "SELECT * FROM " + table, kRefresh);
    const int columns = sqlite3_column_count(read.get());
    std::string insert = "INSERT OR REPLACE INTO " + table + " VALUES (?";
    for (int c = 1; c < columns; ++c) insert += ",?";
    Stmt write(copy, insert + ")", kRefresh);  // fails if the copy's table differs
    while (read.step()) {
      for (int c = 0; c < columns; ++c)
        sqlite3_bind_value(write.get(), c + 1, sqlite3_column_value(read.get(), c));
      write.run();
    }
  }
}

// Copies the file's blocks after `seq` into the copy's event_block, where the indexer takes them
// as it took the first ones; returns the last one's seq (`seq` if none).
std::int64_t LiveCopy::copy_blocks_after(Db& copy, std::int64_t seq) {
  Stmt read(file_, "SELECT seq, data FROM event_block WHERE seq > ? ORDER BY seq", kRefresh);
  read.bind(1, seq);
  Stmt write(copy, "INSERT INTO event_block (seq, data) VALUES (?, ?)", kRefresh);
  while (read.step()) {
    seq = read.col_int(0);
    sqlite3_bind_value(write.get(), 1, sqlite3_column_value(read.get(), 0));
    sqlite3_bind_value(write.get(), 2, sqlite3_column_value(read.get(), 1));
    write.run();
    ++blocks_indexed_;
  }
  return seq;
}

LiveCopy::Update LiveCopy::update(Db& copy, std::int64_t& changed_from_ns) {
  changed_from_ns = INT64_MAX;
  const std::string path = file_.path();
  if (!indexer_ || file_identity(path) != file_id_) return Update::reopen;
  file_.set_work_budget(work_budget(size_with_write_ahead_log(path)));
  copy.set_work_budget(work_budget(size_with_write_ahead_log(path)));
  const std::int64_t version = file_.pragma_int("data_version", kRefresh);
  if (version == data_version_) return Update::unchanged;
  ReadTransaction snapshot(file_);
  // A capture that stopped (or a recover) indexed its blocks into the file's event table.
  if (file_.pragma_int("user_version", kRefresh) != version_) return Update::reopen;
  check_schema(file_, version_);  // what was checked on opening may have been replaced
  {
    Stmt indexed(file_, "SELECT 1 FROM event LIMIT 1", kRefresh);
    if (indexed.step()) return Update::reopen;
  }
  data_version_ = version;
  copy.exec("PRAGMA query_only=OFF", kRefresh);
  try {
    copy.exec("BEGIN", kRefresh);
    copy_small_tables(copy);
    last_block_ = copy_blocks_after(copy, last_block_);
    indexer_->index_blocks(kIndexCacheMib);  // refuses a malformed block by name
    copy.exec("COMMIT", kRefresh);
    changed_from_ns = indexer_->earliest_indexed_start();
    copy.exec("PRAGMA query_only=ON", kRefresh);
    return Update::taken;
  } catch (...) {
    // What this update indexed is rolled back, but the indexer's state is not: later updates
    // ask for a new reader. What was read before stays readable.
    sqlite3_exec(copy.get(), "ROLLBACK", nullptr, nullptr, nullptr);
    indexer_.reset();
    sqlite3_exec(copy.get(), "PRAGMA query_only=ON", nullptr, nullptr, nullptr);
    throw;
  }
}

}  // namespace ts::store
