// The in-memory copy a Reader reads of a trace whose capture left events staged (schema.sql,
// event_block): a capture still running, or one that was killed. Readers never write to the file:
// the copy is the file with its staged blocks indexed, and it follows the capture.
//
// A running capture commits its events as staged blocks (numbered by seq in commit order) and its
// strings, labels, tracks, processes and meta as rows. LiveCopy keeps the file's own connection
// beside the copy, and the indexer that indexed the copy (its per-track state decides where a
// same-tick event goes, so the copy ends up as one indexing of every block in order would leave
// it). An update, in one read transaction of the file, copies the small tables whole (a few hundred
// rows) and the blocks after the last one indexed, and indexes those: it costs what is new.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>

#include "profiler/store/sqlite.hpp"

namespace ts::store {

class EventIndexer;

class LiveCopy {
 public:
  // `db`: the file, open and checked (schema `version`, at least 2). Afterwards `db` is the
  // in-memory copy with every staged block indexed, read-only (query_only) for its reader, and
  // the file's connection is kept here. Throws Error (naming the file) when it cannot be copied
  // or a block is malformed.
  LiveCopy(Db& db, int version);
  ~LiveCopy();
  LiveCopy(const LiveCopy&) = delete;
  LiveCopy& operator=(const LiveCopy&) = delete;

  enum class Update {
    unchanged,  // nothing was committed to the file since the last look
    taken,      // the small tables and any new blocks were copied into `copy` and indexed
    reopen,     // what changed cannot be taken in place: open the file anew
  };
  // Takes into `copy` (the database the constructor made) what the capture committed since the
  // last look. After `taken`, every event it took in starts at or after `changed_from_ns`
  // (INT64_MAX: none). `reopen` when the capture stopped and indexed its blocks, the file was
  // recovered or replaced, or an earlier update failed. Throws Error when the file cannot be read
  // or a new block is malformed; the copy keeps what it held.
  Update update(Db& copy, std::int64_t& changed_from_ns);

  // Staged blocks indexed: on opening and by every update.
  std::uint64_t blocks_indexed() const { return blocks_indexed_; }

 private:
  void copy_small_tables(Db& copy);
  std::int64_t copy_blocks_after(Db& copy, std::int64_t seq);

  Db file_;  // the trace file's own connection
  int version_ = 0;
  std::unique_ptr<EventIndexer> indexer_;  // of the copy; null after a failed update
  std::int64_t last_block_ = 0;
  std::uint64_t blocks_indexed_ = 0;
  std::int64_t data_version_ = -1;                     // of file_, at the last update
  std::pair<std::uint64_t, std::uint64_t> file_id_{};  // the file's, when opened
};

}  // namespace ts::store
