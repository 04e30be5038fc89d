// Writing a large file from start to end without filling the page cache with it: every window
// of bytes written is handed to the disk at once (sync_file_range), and the window two behind is
// waited for and dropped from the cache (posix_fadvise DONTNEED). The cache then holds a few
// windows of the file, whose pages the next writes take again, instead of the whole file.
//
// For a file nobody reads back soon (an export of gigabytes of JSON, which is synced at its end
// anyway): the user's cached files are not pushed out for it, and the kernel does not have to
// find fresh memory for every page. On a virtual machine whose host backs memory the guest
// freed only when it is touched again, that was most of the time: 2 GB written in 3.8 s, and
// in 0.55 s this way. The writer is held to the disk's speed, which the final sync waited for
// anyway.
//
// A failure to start or wait for the writeback (a file system or a file that cannot, such as a
// pipe) stops the dropping and nothing else: the writes themselves and the final sync report
// every error as before.
#pragma once

#include <cstdint>

namespace ts::store {

class DropBehind {
 public:
  static constexpr std::uint64_t kWindowBytes = std::uint64_t{8} << 20;

  // `fd`: the file being written from offset `from` on, in order.
  explicit DropBehind(int fd, std::uint64_t from = 0) noexcept
      : fd_(fd), started_(from), dropped_(from) {}

  // The bytes before `end` are written.
  void written(std::uint64_t end) noexcept;

 private:
  int fd_;
  std::uint64_t started_;  // the writeback started for the bytes before this
  std::uint64_t dropped_;  // and these were written back and dropped
  bool off_ = false;       // the file system or the file could not
};

}  // namespace ts::store
