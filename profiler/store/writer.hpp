// Writes one trace file: creates it with schema.sql, then takes batches of rows. WAL mode and
// synchronous=NORMAL: a commit survives the process being killed. Batches go through prepared
// multi-row INSERTs inside the open transaction; commit() makes them durable. Not thread-safe:
// one writer thread owns it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "profiler/store/event_block.hpp"
#include "profiler/store/event_indexer.hpp"
#include "profiler/store/overview_feed.hpp"
#include "profiler/store/page_event_table.hpp"
#include "profiler/store/path_lock.hpp"
#include "profiler/store/rows.hpp"
#include "profiler/store/sqlite.hpp"
#include "trainscope/taxonomy.hpp"

namespace ts::store {

struct WriterOptions {
  int page_size = 65536;
  int cache_mib = 32;
  // Stage events as binary blocks (event_block) until finish() indexes them: what capture uses,
  // since it keeps the traced machine's cost per event to a copy. Off: every append() indexes.
  bool staged = false;
  // For a file written under a temporary name and renamed once finished (an import): no journal
  // and no fsync, so one big transaction writes each page once. A crash leaves a damaged file
  // under the temporary name only. finish() leaves the usual rollback-journal file.
  bool bulk = false;
  // Whether finish() syncs the finished trace (its overview's commit does). An import's trace is
  // not synced: it is made again from its sources (sqlite.hpp: Durability). A merged trace is:
  // it may be the only copy of the captures merged into it (`merge --remove-parts`).
  Durability durability = Durability::synced;
  // finish() stores the trace's overview (overview_codec.hpp) once the file is closed, so a
  // viewer shows all of it at once; it costs one scan of the finished trace.
  bool overview = true;
};

class Writer {
 public:
  // Creates `path`, replacing an earlier trace there, and holds it (path_lock.hpp) until the file
  // is closed. Throws Error (naming the path) when the file cannot be created, exists and is not a
  // trainscope trace, or is being written by another writer still running.
  explicit Writer(const std::string& path, const WriterOptions& options = {});
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  const std::string& path() const { return db_.path(); }

  void put_string(std::uint32_t id, std::string_view text);
  void put_label(std::uint32_t id, std::uint32_t name, trace::Category category,
                 std::uint32_t file = 0, std::int64_t line = kNull);
  // process: a process row's id (put_process), kNull for a trace of one process.
  void put_track(std::uint32_t id, std::string_view name, trace::TrackKind kind,
                 std::int64_t os_tid = kNull, std::int64_t process = kNull);
  // rank, pid: kNull when unknown; host: empty when unknown.
  void put_process(std::uint32_t id, std::string_view name, std::int64_t rank = kNull,
                   std::int64_t pid = kNull, std::string_view host = {});
  // Every key but event.key_origin_ns, which the writer sets itself.
  void put_meta(std::string_view key, std::string_view value);

  // Appends events. Events whose label is a `step` label also go to step_span. Fastest in
  // start order, longer events first among equal starts (any order is accepted); events that
  // share a start are placed as EventIndexer (event_indexer.hpp) says.
  // With WriterOptions::staged the rows are staged (a copy into the open block) and indexed by
  // finish(); commit() makes them durable either way.
  void append(std::span<const EventRow> rows);
  void append(std::span<const CounterRow> rows);
  // Indexes every staged block, in the order staged, and empties event_block; inside the open
  // transaction. Returns the number of events indexed. Throws Error for a malformed block.
  std::uint64_t index_staged();

  // Until end_page_append(), appends the events given to append() straight into the file's pages
  // (page_event_table.hpp) instead of through SQLite: for rows given in key order, keyed from
  // `key_origin`, into a bulk writer's trace with no events yet (an import). Commits what is
  // open first. Returns false, changing nothing else, when the trace cannot take them so (it
  // holds events, is keyed from another origin, stages them); append() then inserts as usual.
  // Until end_page_append(), only events may be appended: every other call throws Error.
  // extent: the time range the trace's events will span, when the caller knows it: the overview
  // finish() stores is then built from the events as they go into the pages, not from the file.
  bool begin_page_append(std::int64_t key_origin, std::optional<TimeRange> extent = {});
  // Writes the appended events' last pages, then indexes through SQLite what could not be
  // appended and the steps' rows, inside a new transaction. finish() calls it when needed.
  void end_page_append();

  void commit();
  // Indexes the staged blocks, commits, checkpoints the WAL into the file, switches it back to a
  // rollback journal (one self-contained file to copy around) and closes. Idempotent. When the
  // commit fails (it throws), salvage() can still close the file.
  void finish();
  // After a write error: drops the open transaction, keeping what earlier commits stored, then
  // tries to store `meta` (what was lost and why) and closes the file as finish() does. Returns
  // whether `meta` was stored. Never throws; the writer takes nothing more afterwards.
  bool salvage(std::span<const std::pair<std::string, std::string>> meta) noexcept;

  std::uint64_t events_written() const { return events_written_; }  // committed or not
  // After finish(): whether the overview stored was built as the events went into the pages.
  bool overview_built_while_writing() const { return overview_fed_; }
  std::uint64_t events_committed() const { return events_committed_; }
  std::uint64_t events_moved() const { return indexer_->moved(); }
  std::uint64_t events_staged() const { return events_staged_; }
  // Events dropped because their start has no key (event_key.hpp): more than about 39 hours
  // from the trace's first event. Recorded in meta event.out_of_key_range by finish().
  std::uint64_t events_out_of_key_range() const { return indexer_->out_of_key_range(); }

 private:
  void prepare();
  void begin();
  void flush_staged();
  void abandon_page_append() noexcept;
  void close_file() noexcept;
  void put_meta_row(std::string_view key, std::string_view value);
  // Inserts rows through the indexer, counting them written.
  void insert_rows(std::span<const EventRow> rows);

  PathLock lock_;  // before db_: released after the file is closed
  Db db_;
  bool staged_mode_ = false;
  bool bulk_ = false;
  Durability durability_ = Durability::synced;
  bool overview_fed_ = false;
  bool overview_ = false;
  int cache_mib_ = WriterOptions{}.cache_mib;
  BlockEncoder staged_;  // records not yet in an event_block row
  bool in_txn_ = false;
  bool finished_ = false;
  Stmt begin_, commit_, ins_block_;
  Stmt put_string_, put_label_, put_track_, put_process_, put_meta_;
  std::optional<EventIndexer> indexer_;       // made once the file has its schema
  std::optional<OverviewFeed> fed_overview_;  // the events' overview, while it is all of them
  std::optional<PageEventTable> pages_;       // between begin_ and end_page_append()
  std::vector<Track> tracks_;                 // as put_track() gave them
  std::uint64_t events_written_ = 0;
  std::uint64_t events_committed_ = 0;
  std::uint64_t events_staged_ = 0;  // staged and not yet indexed
};

}  // namespace ts::store
