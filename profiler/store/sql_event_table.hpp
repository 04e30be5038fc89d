// The EventTable of SQLite's INSERTs into an open trace's event, event_arg and step_span tables,
// inside the transaction the connection's owner opened: rows expected to be alone on their keys
// go in multi-row INSERTs (multi_insert.hpp), the others one at a time.
#pragma once

#include <cstdint>
#include <optional>

#include "profiler/store/event_table.hpp"
#include "profiler/store/multi_insert.hpp"
#include "profiler/store/sqlite.hpp"

namespace ts::store {

class SqlEventTable final : public EventTable {
 public:
  // keyed: events keyed by one integer (schema version 5) from *key_origin (which must be set
  // before the first row is stored), else by (start_ns, track). key_origin outlives the table.
  SqlEventTable(Db& db, bool keyed, const std::optional<std::int64_t>& key_origin);

  void insert_new(std::span<EventRow> rows, const ChunkDone& done) override;
  bool try_insert(const EventRow& row) override;
  std::optional<StoredEvent> find(std::int64_t start, std::uint32_t track) override;
  bool stores_extras_with_events() const override { return false; }
  void insert_args(std::span<const EventRow> rows) override;
  void insert_steps(std::span<const EventRow> rows) override;

  // Finalizes the prepared statements, so that the database can be closed.
  void release();

 private:
  int bind_key(Stmt& st, int p, std::int64_t start, std::uint32_t track) const;
  void bind_event(Stmt& st, int p, const EventRow& r) const;

  Db& db_;
  bool keyed_;
  const std::optional<std::int64_t>& key_origin_;
  MultiRowInsert ins_event_, ins_arg_, ins_step_;
  Stmt ins_event1_, find_event_;
};

}  // namespace ts::store
