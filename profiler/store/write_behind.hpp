// Writes buffers into an SQLite file through its VFS handle on a thread of its own, while the
// caller fills the next ones. The kernel's copy of the bytes into the page cache is then no
// longer the filling thread's: it was half of the thread that appends a job's pages to its trace
// (btree_append.hpp). Up to kInFlight buffers wait or are being written, so a write that takes
// long (the kernel finding fresh pages for the file, the thread waiting for a core) holds the
// filling thread up only when that many are behind.
//
// The caller must not touch the file otherwise while writes are in flight: wait() first.
#pragma once

#include <sqlite3.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ts::store {

class WriteBehind {
 public:
  // Buffers handed over and not yet written, at most.
  static constexpr std::size_t kInFlight = 4;

  // piece_bytes: the most bytes one xWrite call is given (SQLite's unix VFS takes < 128 KiB).
  WriteBehind(sqlite3_file* file, std::size_t piece_bytes);
  // Waits for the writes in flight, then ends the thread.
  ~WriteBehind();
  WriteBehind(const WriteBehind&) = delete;
  WriteBehind& operator=(const WriteBehind&) = delete;

  // Hands the first `bytes` of `buffer` over, to be written at `offset`; `buffer` comes back as
  // another buffer of the same size, to fill next. Waits while kInFlight writes are in flight.
  // Returns why an earlier write failed (nothing is written after a failure), else "".
  std::string write(std::vector<std::uint8_t>& buffer, std::size_t bytes, std::uint64_t offset);
  // Waits until the writes handed over are done; why one failed, else "".
  std::string wait() noexcept;

 private:
  struct Job {
    std::vector<std::uint8_t> buffer;
    std::size_t bytes = 0;
    std::uint64_t offset = 0;
  };

  void run();
  // Writes one job; why it failed, else "".
  std::string write_out(const Job& job) const;

  sqlite3_file* file_;
  std::size_t piece_bytes_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;  // handed over, oldest first; the front one is being written
  std::vector<std::vector<std::uint8_t>> spare_;  // written buffers, to hand back
  bool stop_ = false;
  std::string error_;
  std::thread thread_;  // last: started once the rest is set up
};

}  // namespace ts::store
