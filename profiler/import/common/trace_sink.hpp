// The trace being written: the store Writer (bulk mode: the file is written under a temporary
// name and renamed when complete), the global string, label and track dictionaries shared by
// every imported file, and the sorted, de-duplicated event stream. The events of an import of
// several files (the ranks of a job, which overlap in time) are spilled as one sorted run per
// file (event_runs.hpp) and written merged in key order by finish(): SQLite then appends each
// row at the end of its b-tree instead of inserting every file's rows all over it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "profiler/import/common/event_runs.hpp"
#include "profiler/import/common/row.hpp"
#include "profiler/store/writer.hpp"

namespace ts::import {

struct WriteResult {
  std::uint64_t written = 0;
  std::uint64_t duplicates = 0;
  std::int64_t first_start = store::kNull;  // the earliest start written
};

class TraceSink {
 public:
  // Throws store::Error when the file cannot be created. input_bytes: the size of what will be
  // imported (small imports get small pages: a file of a few KiB, created quickly); files: how
  // many files write_events() will be called for (more than one: their events are spilled and
  // merged, in a temporary file beside `path`).
  TraceSink(const std::string& path, std::uint64_t input_bytes, std::size_t files = 1);

  // The id of a string as stored: made valid UTF-8 without control characters.
  std::uint32_t string_id(std::string_view raw);
  std::uint32_t label_id(std::uint32_t string, trace::Category category);
  // A new track; 0 when the trace holds the most tracks its event ids allow (65 535).
  std::uint32_t add_track(std::string_view name, trace::TrackKind kind, std::int64_t os_tid,
                          std::int64_t process);
  void add_process(std::uint32_t id, std::string_view name, std::int64_t rank, std::int64_t pid,
                   std::string_view host);
  void put_meta(std::string_view key, std::string_view value);

  // Writes the rows of `chunks` (one file's), each sorted by row_less, in row_less order: merged
  // on a helper thread while this one inserts (or spills them, for several files); the first
  // call writes first the row the most rows lie within key range of (rows starting before it
  // come last). Of rows with the same track, start, duration and label, the first is written and
  // the others are counted as duplicates. Empties `chunks`.
  WriteResult write_events(std::vector<std::vector<Row>>& chunks);
  // Counter samples, any order.
  std::uint64_t write_counters(std::vector<store::CounterRow>& rows);

  // Writes the spilled events (every file's, merged), commits and closes the file.
  void finish();
  // Called while finish() writes spilled events: events written so far, events to write (once
  // at 0, then after each batch).
  void on_writing(std::function<void(std::uint64_t written, std::uint64_t events)> progress) {
    writing_progress_ = std::move(progress);
  }
  // Events the store left out because their start lies too far from the trace's first event to
  // be keyed (known after finish()).
  std::uint64_t events_out_of_key_range() const { return writer_.events_out_of_key_range(); }

 private:
  void write_runs();
  void widen_extent(const std::vector<std::vector<Row>>& chunks);
  std::optional<store::TimeRange> extent() const;

  store::Writer writer_;
  std::optional<EventRuns> runs_;  // several files: their events until finish()
  std::int64_t origin_ = 0;        // with runs_: the start the trace is keyed from
  std::function<void(std::uint64_t, std::uint64_t)> writing_progress_;
  std::unordered_map<std::string, std::uint32_t> strings_;
  std::unordered_map<std::uint64_t, std::uint32_t> labels_;
  std::uint32_t next_track_ = 1;
  bool origin_fixed_ = false;  // rows were written: the store keys events from the first
  // The time range of the rows with a key given so far (with runs_: every file's).
  std::int64_t extent_start_ = INT64_MAX, extent_end_ = INT64_MIN;
};

}  // namespace ts::import
