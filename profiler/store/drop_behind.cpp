#include "profiler/store/drop_behind.hpp"

#include <fcntl.h>

namespace ts::store {

void DropBehind::written(std::uint64_t end) noexcept {
  if (off_ || end < started_ + kWindowBytes) return;
#ifdef SYNC_FILE_RANGE_WRITE
  if (::sync_file_range(fd_, static_cast<off_t>(started_), static_cast<off_t>(end - started_),
                        SYNC_FILE_RANGE_WRITE) != 0) {
    off_ = true;
    return;
  }
  started_ = end;
  // Two windows stay on their way to the disk while the next is filled.
  if (started_ < dropped_ + 3 * kWindowBytes) return;
  const std::uint64_t to = started_ - 2 * kWindowBytes;
  const auto from = static_cast<off_t>(dropped_), bytes = static_cast<off_t>(to - dropped_);
  if (::sync_file_range(
          fd_, from, bytes,
          SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) != 0 ||
      ::posix_fadvise(fd_, from, bytes, POSIX_FADV_DONTNEED) != 0) {
    off_ = true;
    return;
  }
  dropped_ = to;
#else
  off_ = true;
#endif
}

}  // namespace ts::store
