// Sorted runs of events spilled to a temporary file and read back merged in key order: how the
// files of a job (one rank each, its rows sorted) reach the store as one stream in (start, track)
// order, which SQLite appends at the end of its b-tree, instead of file after file, each file's
// rows inserted all over it (the ranks overlap in time). A run is written whole before the next
// starts; its rows are coded as the capture stages them (event_block.hpp, about a dozen bytes an
// event) in blocks of a fixed size, and merging holds one block of each run: memory grows with the
// number of runs times the block size, never with the number of events; above merge_width runs
// (a job of thousands of ranks), groups of them are first merged into longer runs, so a merge
// never holds more than merge_width blocks.
//
// The file is created in a given folder (the import's output folder: it has room for the trace,
// of which the runs are about half) and unlinked at once, so nothing is left behind whatever
// happens to the process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "profiler/store/event_block.hpp"
#include "profiler/store/rows.hpp"

namespace ts::import {

class EventRuns {
 public:
  // Runs merged at once, at most.
  static constexpr std::size_t kMergeWidth = 4096;

  // Creates the spill file in `folder`. block_bytes: the coded size a block is cut at (a block
  // of each run is held while merging); merge_width: the most runs merged at once. Throws
  // store::Error when the file cannot be made.
  EventRuns(const std::string& folder, std::size_t block_bytes,
            std::size_t merge_width = kMergeWidth);
  ~EventRuns();
  EventRuns(const EventRuns&) = delete;
  EventRuns& operator=(const EventRuns&) = delete;

  // Adds rows to the run being written. A run's rows come in (start, track) order over all its
  // add() calls (rows of equal start and track in the order they are to be stored). Throws
  // store::Error when the file cannot be written (a full disk).
  void add(std::span<const store::EventRow> rows);
  // Ends the run being written; an empty one is dropped.
  void end_run();

  std::size_t runs() const { return runs_.size(); }
  std::uint64_t rows() const { return rows_; }
  std::uint64_t file_bytes() const { return file_end_; }

  // Hands every row of the ended runs whose start lies in [first, last] to `out` in batches, in
  // (start, track) order; rows of one run that tie keep their run's order, and ties between
  // runs go to the earlier run. May be called several times (the first may merge groups of runs
  // into longer ones, which leaves the rows and their order as they were). Throws store::Error
  // when the file cannot be read back, written or does not decode, and what `out` throws.
  void merge(std::int64_t first, std::int64_t last,
             const std::function<void(std::span<const store::EventRow>)>& out);

  // Rows handed to merge()'s `out` at a time.
  static constexpr std::size_t kBatchRows = 16384;

 private:
  struct Run {
    std::uint64_t begin = 0, end = 0;  // its blocks' bytes in the file
  };
  class Cursor;

  // Merges `runs`' rows with a start in [first, last] into `out`.
  void merge_runs(std::span<const Run> runs, std::int64_t first, std::int64_t last,
                  const std::function<void(std::span<const store::EventRow>)>& out) const;
  // Merges groups of merge_width_ runs into one run each until at most merge_width_ are left.
  void narrow();
  void cut_block();
  void write_out(bool all);
  void read_at(std::uint64_t offset, void* into, std::size_t bytes) const;

  int fd_ = -1;
  std::string path_;  // for messages; the file itself is already unlinked
  std::size_t block_bytes_;
  std::size_t merge_width_;
  store::BlockEncoder block_;       // the open block of the run being written
  std::vector<unsigned char> out_;  // coded blocks not yet written to the file
  std::uint64_t file_end_ = 0;      // bytes written to the file
  std::uint64_t run_begin_ = 0;     // where the run being written starts
  std::uint64_t run_rows_ = 0;
  std::uint64_t rows_ = 0;
  std::vector<Run> runs_;
};

}  // namespace ts::import
