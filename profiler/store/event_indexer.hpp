// Indexes events and counter samples into an open trace's tables (event, event_arg, step_span,
// counter_sample), inside the transaction its owner opened. Both the Writer (what it appends, and
// its staged blocks at finish()) and a Reader of a capture still running (the blocks staged so
// far, into its in-memory copy) index through one: the rules that keep every event's key unique
// live here once.
//
// A (start_ns, track) pair is unique, but a zone and the first zone nested in it can start on the
// same clock tick. Such events are taken to nest, the longer one enclosing the shorter; of two
// with the same duration, the one given later encloses the other (a zone is recorded when it
// ends, after the zones nested in it), whether in the same or a later call. The enclosing ones
// move earlier or the nested ones later by a nanosecond or a few, keeping their ends, so that the
// enclosing event starts first and the nested one stays inside it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_set>
#include <vector>

#include "profiler/store/event_table.hpp"
#include "profiler/store/placement.hpp"
#include "profiler/store/rows.hpp"
#include "profiler/store/sql_event_table.hpp"
#include "profiler/store/sqlite.hpp"

namespace ts::store {

// The page cache a reader's indexing of staged blocks takes (a writer's is WriterOptions').
inline constexpr int kIndexCacheMib = 32;

class EventIndexer {
 public:
  // Indexes into `db`, whose events are keyed by one integer (schema version 5, `keyed`) or by
  // (start_ns, track). The key origin is set by the first event given (fix_key_origin).
  EventIndexer(Db& db, bool keyed);
  // Indexes into an open trace as it is: its version, key origin and step labels read from it.
  struct Existing {};
  EventIndexer(Db& db, Existing);
  EventIndexer(const EventIndexer&) = delete;
  EventIndexer& operator=(const EventIndexer&) = delete;

  // Whether events of `label` also go to step_span (a `step` label).
  void mark_step_label(std::uint32_t label, bool is_step);
  bool is_step_label(std::uint32_t label) const;
  // The first event given, staged or not, fixes the trace's key origin and stores it in meta
  // (event.key_origin_ns): a capture's first committed block carries it, so readers of the
  // running capture key events as the finished trace does.
  void fix_key_origin(std::span<const EventRow> rows);

  // Inserts events: fastest in start order, longer events first among equal starts (any order is
  // accepted). Events without a key (too far from the origin) are dropped and counted.
  void insert(std::span<const EventRow> rows);
  // Samples of one track at the same nanosecond move later, to the first free time; NaN values
  // are skipped.
  void insert(std::span<const CounterRow> rows);
  // Indexes every block staged in event_block, in the order staged, and empties the table.
  // Returns the number of events indexed. Throws Error for a malformed block. `cache_mib`: the
  // page cache the indexing may use.
  std::uint64_t index_blocks(int cache_mib);

  // Stores in meta how many events had no key (event.out_of_key_range), when any had none.
  void note_out_of_key_range();
  // Stores the events inserted from now on in `table` (which outlives its use), or in SQLite's
  // tables again when null; what was pending goes to the table used so far first.
  void use_table(EventTable* table);
  const std::optional<std::int64_t>& key_origin() const { return key_origin_; }

  // Forgets rows not yet inserted (after a rollback).
  void drop_pending();
  // Finalizes the prepared statements, so that the database can be closed.
  void release();

  std::uint64_t inserted() const { return inserted_; }  // events inserted, all calls
  std::uint64_t moved() const { return moved_; }        // of them, placed at another start
  std::uint64_t out_of_key_range() const { return out_of_key_range_; }
  // The earliest start among the events the last index_blocks() indexed, where they were placed
  // (INT64_MAX: none).
  std::int64_t earliest_indexed_start() const { return earliest_indexed_start_; }

 private:
  void prepare();
  bool keyless(const EventRow& r) const;
  std::optional<std::int64_t> last_start(int direction) const;
  void flush_batch();
  void resolve_collisions(std::span<EventRow> rows);
  void place_same_start(std::span<const EventRow> group);
  bool try_insert(const EventRow& row);
  void insert_moving(EventRow row, int direction);
  void written_one(const EventRow& row);
  std::int64_t& latest_start(std::uint32_t track);
  void insert_extras(std::span<const EventRow> rows);
  void flush_extras();

  Db& db_;
  bool keyed_ = true;
  std::optional<std::int64_t> key_origin_;
  std::optional<SqlEventTable> sql_;
  EventTable* table_ = nullptr;  // where events go: sql_ or one given to use_table()
  Stmt ins_counter_, put_meta_;
  std::vector<bool> step_labels_;                         // ids below kDenseLabels
  std::unordered_set<std::uint32_t> sparse_step_labels_;  // the others
  std::vector<std::int64_t> track_max_start_;             // per track: the latest start written
  std::vector<EventRow> batch_;         // rows that cannot collide, not yet inserted
  std::vector<EventRow> sorted_;        // insert()'s rows, when not given in key order
  std::vector<EventRow> group_;         // rows sharing one (start_ns, track)
  FreeStarts event_starts_;             // where moved events found their starts
  FreeStarts counter_times_;            // where moved counter samples found theirs
  std::vector<EventRow> args_, steps_;  // inserted rows with arguments / steps, pending
  std::uint64_t inserted_ = 0;
  std::uint64_t moved_ = 0;
  std::uint64_t out_of_key_range_ = 0;
  std::int64_t earliest_indexed_start_ = INT64_MAX;
};

}  // namespace ts::store
