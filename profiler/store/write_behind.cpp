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
    cv_.wait(lock, [this] { return jobs_.empty(); });
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

std::string WriteBehind::write(std::vector<std::uint8_t>& buffer, std::size_t bytes,
                               std::uint64_t offset) {
  std::unique_lock lock(m_);
  cv_.wait(lock, [this] { return jobs_.size() < kInFlight; });
  if (!error_.empty()) return error_;
  const std::size_t size = buffer.size();
  jobs_.push_back({std::move(buffer), std::min(bytes, size), offset});
  if (!spare_.empty()) {
    buffer = std::move(spare_.back());
    spare_.pop_back();
  } else {
    buffer = {};
  }
  lock.unlock();
  cv_.notify_all();
  buffer.resize(size);  // a new buffer is allocated outside the lock
  return {};
}

std::string WriteBehind::wait() noexcept {
  std::unique_lock lock(m_);
  cv_.wait(lock, [this] { return jobs_.empty(); });
  return error_;
}

std::string WriteBehind::write_out(const Job& job) const {
  for (std::size_t done = 0; done < job.bytes;) {
    const std::size_t n = std::min(piece_bytes_, job.bytes - done);
    errno = 0;
    const int rc = file_->pMethods->xWrite(file_, job.buffer.data() + done, static_cast<int>(n),
                                           static_cast<sqlite3_int64>(job.offset + done));
    if (rc != SQLITE_OK) {
      const int e = errno;
      return "cannot write to it: " + std::string(e != 0 ? std::strerror(e) : sqlite3_errstr(rc));
    }
    done += n;
  }
  return {};
}

void WriteBehind::run() {
  std::unique_lock lock(m_);
  for (;;) {
    cv_.wait(lock, [this] { return !jobs_.empty() || stop_; });
    if (jobs_.empty()) return;          // stopped
    const Job& job = jobs_.front();     // stays at the front (wait() waits for it) until written
    const bool skip = !error_.empty();  // nothing is written after a failure
    lock.unlock();
    std::string failed = skip ? std::string() : write_out(job);
    lock.lock();
    if (error_.empty()) error_ = std::move(failed);
    if (spare_.size() < kInFlight) spare_.push_back(std::move(jobs_.front().buffer));
    jobs_.pop_front();
    cv_.notify_all();
  }
}

}  // namespace ts::store
