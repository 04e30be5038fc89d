// The EventTable of a trace with no events yet whose events come in key order (an import's merged
// rows): events, their arguments and the long-event index are appended straight into the file's
// b-tree pages (btree_append.hpp), about an eighth of what SQLite's INSERT of each row costs.
//
// Events of a step label also go to step_span (a WITHOUT ROWID table: an index b-tree in the same
// key order); its index by step number is rebuilt by SQLite afterwards (REINDEX).
//
// Events the indexer moves (zones sharing a start, event_indexer.hpp) land a little before or
// after where the stream is, so rows wait in a window of kWindowNs of starts before their pages
// are written; the table answers whether a key is taken from that window. A row whose key falls
// at or before a row already written (only a trace of pathological collisions moves a row that
// far) cannot be appended: it is kept in late_rows(), for SQLite to index once the pages are in.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "profiler/store/btree_append.hpp"
#include "profiler/store/event_table.hpp"
#include "profiler/store/overview_feed.hpp"
#include "profiler/store/sqlite.hpp"

namespace ts::store {

class PageEventTable final : public EventTable {
 public:
  static constexpr std::int64_t kWindowNs = 1'000'000;
  static constexpr std::size_t kMaxWaiting = std::size_t{1} << 18;  // rows, whatever their starts

  // Appends to the empty event, event_arg, event_long and step_span b-trees of `db` (and leaves
  // step_span_step empty), a trace keyed from key_origin (schema version 5) with no transaction
  // open and no journal. Throws Error when the file cannot take pages so (SqlEventTable can).
  // is_step: whether events of a label go to step_span. feed: given every row as it is written,
  // in key order (null: none).
  PageEventTable(Db& db, std::int64_t key_origin, std::function<bool(std::uint32_t)> is_step,
                 OverviewFeed* feed = nullptr);

  void insert_new(std::span<EventRow> rows, const ChunkDone& done) override;
  bool try_insert(const EventRow& row) override;
  std::optional<StoredEvent> find(std::int64_t start, std::uint32_t track) override;
  bool stores_extras_with_events() const override { return true; }
  void insert_args(std::span<const EventRow>) override {}
  void insert_steps(std::span<const EventRow>) override {}

  // Writes the waiting rows, the b-trees' last pages and the file's header: the connection's next
  // transaction sees the events (step_span's index by step is then to be rebuilt). Nothing may
  // be inserted afterwards.
  void finish();
  std::vector<EventRow>& late_rows() { return late_; }

 private:
  struct Roots {
    std::uint32_t event, event_arg, event_long, step_span;
  };
  static Roots empty_roots(Db& db);
  struct Waiting {
    std::int64_t key;
    EventRow row;
  };
  std::int64_t key_of(const EventRow& r) const;
  const EventRow* waiting(std::int64_t key) const;
  void write_before(std::int64_t start);
  void write(const Waiting& w);

  std::int64_t origin_;
  std::function<bool(std::uint32_t)> is_step_;
  OverviewFeed* feed_;
  Roots roots_;  // read before pages_ takes the file: the connection is not used after
  PageAppender pages_;
  TableBtreeAppender events_, args_;
  IndexBtreeAppender long_events_, steps_;
  RecordBuilder record_;
  std::deque<Waiting> in_order_;            // ascending keys: most rows
  std::map<std::int64_t, EventRow> moved_;  // keys below in_order_'s last when they came
  std::int64_t last_written_ = INT64_MIN;   // the key of the last row written
  bool written_any_ = false;
  std::int64_t latest_start_ = INT64_MIN;  // the latest start given
  std::vector<EventRow> late_;
};

}  // namespace ts::store
