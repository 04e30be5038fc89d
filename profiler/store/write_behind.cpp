#include "profiler/store/write_behind.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ts::store {

WriteBehind::WriteBehind(sqlite3_file* file, std::size_t piece_bytes)
    : file_(file),
      piece_bytes_(std::max<std::size_t>(piece_bytes, 1)),
      thread_([this] { run(); }) {}

WriteBehind::~WriteBehind() {
  {
    std::unique_lock lock(m_);
    cv_.wait(lock, [this] { return !busy_; });
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

std::string WriteBehind::write(std::vector<std::uint8_t>& buffer, std::size_t bytes,
                               std::uint64_t offset) {
  std::unique_lock lock(m_);
  cv_.wait(lock, [this] { return !busy_; });
  if (!error_.empty()) return error_;
  job_.swap(buffer);
  buffer.resize(job_.size());
  job_bytes_ = std::min(bytes, job_.size());
  job_offset_ = offset;
  busy_ = true;
  lock.unlock();
  cv_.notify_all();
  return {};
}

std::string WriteBehind::wait() noexcept {
  std::unique_lock lock(m_);
  cv_.wait(lock, [this] { return !busy_; });
  return error_;
}

void WriteBehind::run() {
  std::unique_lock lock(m_);
  for (;;) {
    cv_.wait(lock, [this] { return busy_ || stop_; });
    if (!busy_) return;  // stopped
    lock.unlock();
    std::string failed;
    for (std::size_t done = 0; done < job_bytes_ && failed.empty();) {
      const std::size_t n = std::min(piece_bytes_, job_bytes_ - done);
      errno = 0;
      const int rc = file_->pMethods->xWrite(file_, job_.data() + done, static_cast<int>(n),
                                             static_cast<sqlite3_int64>(job_offset_ + done));
      if (rc != SQLITE_OK) {
        const int e = errno;
        failed =
            "cannot write to it: " + std::string(e != 0 ? std::strerror(e) : sqlite3_errstr(rc));
      }
      done += n;
    }
    lock.lock();
    if (error_.empty()) error_ = std::move(failed);
    busy_ = false;
    cv_.notify_all();
  }
}

}  // namespace ts::store
