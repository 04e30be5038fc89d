// Where EventIndexer stores the events it has placed: the trace's event, event_arg and step_span
// tables, written through SQLite (SqlEventTable) or, for rows given in key order to a trace with
// no events yet, appended straight into the file's pages (PageEventTable). The indexer decides
// where each event goes; a table only answers whether a key is taken and stores what it is given.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>

#include "profiler/store/rows.hpp"

namespace ts::store {

// What a stored event holds besides its key.
struct StoredEvent {
  std::int64_t dur_ns = 0;
  std::int64_t label = 0;
  std::int64_t step = kNull;
  std::int64_t bytes = kNull;
};

class EventTable {
 public:
  virtual ~EventTable() = default;

  // Inserts rows expected to be alone on their keys (start, track). After each chunk of them,
  // done(chunk, inserted) learns how many of the chunk went in (fewer: some key was taken, and
  // none of the chunk's rows is known to be stored then).
  using ChunkDone = std::function<void(std::span<EventRow> chunk, std::size_t inserted)>;
  virtual void insert_new(std::span<EventRow> rows, const ChunkDone& done) = 0;
  // Inserts one row unless its key is taken; whether it went in.
  virtual bool try_insert(const EventRow& row) = 0;
  // The event stored at (start, track), when one is (as far as the table can tell).
  virtual std::optional<StoredEvent> find(std::int64_t start, std::uint32_t track) = 0;
  // Whether the rows given to insert_new/try_insert carry their arguments into event_arg and,
  // for events of a step label, their step_span rows themselves; when not, the indexer gives the
  // stored rows that have arguments to insert_args and those of a step label to insert_steps.
  virtual bool stores_extras_with_events() const = 0;
  virtual void insert_args(std::span<const EventRow> rows) = 0;
  virtual void insert_steps(std::span<const EventRow> rows) = 0;
};

}  // namespace ts::store
