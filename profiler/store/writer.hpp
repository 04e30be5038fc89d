// Writes one trace file: creates it with schema.sql, then takes batches of rows. WAL mode and
// synchronous=NORMAL: a commit survives the process being killed. Batches go through prepared
// multi-row INSERTs inside the open transaction; commit() makes them durable. Not thread-safe:
// one writer thread owns it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "profiler/store/rows.hpp"
#include "profiler/store/sqlite.hpp"
#include "trainscope/taxonomy.hpp"

namespace ts::store {

struct WriterOptions {
  int page_size = 65536;
  int cache_mib = 32;
};

class Writer {
 public:
  // Creates `path`, replacing an earlier trace there. Throws Error (naming the path) when the
  // file cannot be created, or exists and is not a trainscope trace.
  explicit Writer(const std::string& path, const WriterOptions& options = {});
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  const std::string& path() const { return db_.path(); }

  void put_string(std::uint32_t id, std::string_view text);
  void put_label(std::uint32_t id, std::uint32_t name, trace::Category category,
                 std::uint32_t file = 0, std::int64_t line = kNull);
  void put_track(std::uint32_t id, std::string_view name, trace::TrackKind kind,
                 std::int64_t os_tid = kNull);
  void put_meta(std::string_view key, std::string_view value);

  // Appends events. An event whose (start_ns, track) is already taken moves by a nanosecond
  // or a few, keeping its end (see insert_one). Events whose label is a `step` label also go to
  // step_span. Fastest in start order, longer events first among equal starts.
  void append(std::span<const EventRow> rows);
  void append(std::span<const CounterRow> rows);

  void commit();
  // Commits, checkpoints the WAL into the file, switches it back to a rollback journal (one
  // self-contained file to copy around) and closes. Idempotent.
  void finish();

  std::uint64_t events_written() const { return events_written_; }
  std::uint64_t events_moved() const { return events_moved_; }

 private:
  void begin();
  void flush_batch();
  void insert_chunk(Stmt& st, std::span<EventRow> rows);
  void resolve_collisions(std::span<EventRow> rows);
  void insert_one(EventRow& row);
  void insert_extras(std::span<const EventRow> rows);
  bool is_step_label(std::uint32_t label) const;

  Db db_;
  bool in_txn_ = false;
  bool finished_ = false;
  Stmt begin_, commit_;
  Stmt ins_event_[3];  // 64, 8 and 1 rows per statement
  Stmt ins_event_ignore1_, find_event_;
  Stmt ins_arg_, ins_step_, ins_counter_;
  Stmt put_string_, put_label_, put_track_, put_meta_;
  std::vector<bool> step_labels_;
  std::vector<std::int64_t> track_max_start_;  // per track: the latest start written
  std::vector<EventRow> batch_;                // rows that cannot collide, not yet inserted
  std::uint64_t events_written_ = 0;
  std::uint64_t events_moved_ = 0;
};

}  // namespace ts::store
