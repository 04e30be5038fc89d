#include "profiler/store/recover.hpp"

#include "profiler/store/event_indexer.hpp"
#include "profiler/store/file_check.hpp"
#include "profiler/store/file_header.hpp"
#include "profiler/store/overview_codec.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/sqlite.hpp"

namespace ts::store {

RecoverResult recover(const std::string& path) {
  { Reader check(path); }  // names a missing, foreign, newer or damaged file before writing
  Db db;
  db.open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, "cannot recover trace");
  db.set_work_budget(work_budget(size_with_write_ahead_log(path)));
  sqlite3_db_config(db.get(), SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db.get(), SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
  db.exec("PRAGMA trusted_schema=OFF", "cannot recover trace");
  RecoverResult result;
  {
    EventIndexer indexer(db, EventIndexer::Existing{});
    db.exec("BEGIN", "cannot recover trace");
    result.events_indexed = indexer.index_blocks(kIndexCacheMib);
    indexer.note_out_of_key_range();
    db.exec("COMMIT", "cannot recover trace");
    indexer.release();
  }
  // One self-contained file again, as a capture that stopped normally leaves.
  db.exec("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE", "cannot recover trace");
  db.close();
  // The overview is derived from the events: built over the whole, recovered trace.
  if (result.events_indexed > 0) result.overview_stored = store_overview(path);
  return result;
}

}  // namespace ts::store
