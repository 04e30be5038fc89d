#include "profiler/store/path_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

#include "profiler/store/error.hpp"

namespace ts::store {

namespace {

// An exclusive flock on `fd`, without waiting: false when another description holds one.
bool try_lock(int fd) {
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    return false;  // EWOULDBLOCK: held; anything else (ENOLCK): cannot tell, do not claim it
  }
  return true;
}

Error held(const std::string& path) {
  return Error(path +
               " is being written by another capture that is still running; trace into another "
               "file (or wait for it to finish)");
}

}  // namespace

void PathLock::check_unheld(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return;  // nothing there (or unreadable: creating it will say why)
  const bool free = try_lock(fd) || errno != EWOULDBLOCK;
  ::close(fd);  // this process holds no SQLite connection to a file it is about to replace
  if (!free) throw held(path);
}

void PathLock::hold(const std::string& path) {
  release();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return;  // the file system refused a second descriptor: write unlocked
  if (!try_lock(fd)) {
    const bool other = errno == EWOULDBLOCK;
    ::close(fd);
    if (other) throw held(path);
    return;
  }
  fd_ = fd;
}

void PathLock::release() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace ts::store
