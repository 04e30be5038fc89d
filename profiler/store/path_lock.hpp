// The lock a writer holds on the trace file it writes, for as long as it writes it: another
// writer (a second `train --trace` into the same path) is refused with one sentence instead of
// replacing a file a running capture is still writing.
//
// An flock(2) lock on a descriptor of its own: independent of SQLite's POSIX locks, released by
// the kernel when the process ends however it ends (a killed capture leaves no stale lock). A
// descriptor of a file SQLite holds open is closed only after SQLite has closed it, since closing
// any descriptor of a file drops the process's POSIX locks on it.
#pragma once

#include <string>

namespace ts::store {

class PathLock {
 public:
  PathLock() = default;
  ~PathLock() { release(); }
  PathLock(const PathLock&) = delete;
  PathLock& operator=(const PathLock&) = delete;

  // Throws Error("<path> is being written by another capture ...") when a writer of another
  // PathLock holds the file at `path`; does nothing when there is no file there.
  static void check_unheld(const std::string& path);
  // Takes the lock on the file now at `path` (just created). Throws Error as check_unheld does.
  void hold(const std::string& path);
  void release() noexcept;

 private:
  int fd_ = -1;
};

}  // namespace ts::store
