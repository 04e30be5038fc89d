// Writes buffers into an SQLite file through its VFS handle on a thread of its own, one buffer at
// a time, while the caller fills the next. The kernel's copy of the bytes into the page cache is
// then no longer the filling thread's: it was half of the thread that appends a job's pages to
// its trace (btree_append.hpp).
//
// The caller must not touch the file otherwise while a write is in flight: wait() first.
#pragma once

#include <sqlite3.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ts::store {

class WriteBehind {
 public:
  // piece_bytes: the most bytes one xWrite call is given (SQLite's unix VFS takes < 128 KiB).
  WriteBehind(sqlite3_file* file, std::size_t piece_bytes);
  // Waits for the write in flight, then ends the thread.
  ~WriteBehind();
  WriteBehind(const WriteBehind&) = delete;
  WriteBehind& operator=(const WriteBehind&) = delete;

  // Hands the first `bytes` of `buffer` over, to be written at `offset`; `buffer` comes back as
  // another buffer of the same size, to fill next. Waits while the write before is in flight.
  // Returns why an earlier write failed (nothing is written after a failure), else "".
  std::string write(std::vector<std::uint8_t>& buffer, std::size_t bytes, std::uint64_t offset);
  // Waits until the writes handed over are done; why one failed, else "".
  std::string wait() noexcept;

 private:
  void run();

  sqlite3_file* file_;
  std::size_t piece_bytes_;
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<std::uint8_t> job_;  // the buffer in flight, or the spare one
  std::size_t job_bytes_ = 0;
  std::uint64_t job_offset_ = 0;
  bool busy_ = false;  // job_ is to be written or being written
  bool stop_ = false;
  std::string error_;
  std::thread thread_;  // last: started once the rest is set up
};

}  // namespace ts::store
