// A database file's b-tree pages read straight from the file, for what goes round SQLite (the
// events checksum, the event table's page scan): SQLite's page types and cell layout
// (https://www.sqlite.org/fileformat.html#b_tree_pages), read with checks that keep a damaged or
// hostile file from sending a read outside a page.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

#include "profiler/store/sqlite_format.hpp"

namespace ts::store {

constexpr unsigned char kIndexInterior = 0x02, kTableInterior = 0x05, kIndexLeaf = 0x0A,
                        kTableLeaf = 0x0D;

inline bool is_table(unsigned char type) {
  return type == kTableInterior || type == kTableLeaf;
}
inline bool is_interior(unsigned char type) {
  return type == kTableInterior || type == kIndexInterior;
}

// A file descriptor closed on destruction.
struct OwnedFd {
  int fd = -1;
  OwnedFd() = default;
  explicit OwnedFd(int f) : fd(f) {}
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;
  ~OwnedFd() {
    if (fd >= 0) ::close(fd);
  }
};

// A database file's page size, usable bytes a page and whole pages, from its header and size.
struct PageGeometry {
  std::uint32_t page_size = 0, usable = 0, pages = 0;
};

// The geometry of the regular file open at `fd` when its header is a sound one in rollback-journal
// mode (bytes 18 and 19: 2 is write-ahead-log mode, where committed pages may be in the -wal
// file, which reading the file alone would miss); nullopt otherwise.
inline std::optional<PageGeometry> rollback_geometry(int fd) {
  struct stat st {};
  unsigned char header[100];
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      ::pread(fd, header, sizeof header, 0) != static_cast<ssize_t>(sizeof header) ||
      header[18] != 1 || header[19] != 1)
    return std::nullopt;
  const std::uint32_t raw_page = sqlite_format::get2(header + 16);
  PageGeometry g;
  g.page_size = raw_page == 1 ? 65536 : raw_page;
  if (g.page_size < 512 || (g.page_size & (g.page_size - 1)) != 0) return std::nullopt;
  g.usable = g.page_size - header[20];
  if (g.usable < 480) return std::nullopt;
  const auto pages = static_cast<std::uint64_t>(st.st_size) / g.page_size;
  if (pages == 0 || pages > 0xFFFFFFFFu) return std::nullopt;
  g.pages = static_cast<std::uint32_t>(pages);
  return g;
}

class PageFile {
 public:
  PageFile(int fd, const PageGeometry& g)
      : fd_(fd),
        page_size_(g.page_size),
        usable_(g.usable),
        pages_(g.pages),
        seen_((std::size_t{g.pages} + 64) / 64) {}

  std::uint32_t page_size() const { return page_size_; }
  std::uint32_t usable_size() const { return usable_; }
  std::uint32_t pages() const { return pages_; }

  // Reads page `n` into `buf`; false when it is not in the file, or, with `mark`, was already
  // reached (each page of a sound file belongs to one place: a second visit is damage, and this
  // bounds the work to the file's size).
  bool read(std::uint32_t n, unsigned char* buf, bool mark = true) {
    if (n == 0 || n > pages_) return false;
    const std::uint64_t bit = std::uint64_t{1} << (n % 64);
    if (mark && (seen_[n / 64].fetch_or(bit, std::memory_order_relaxed) & bit)) return false;
    const off_t at = static_cast<off_t>(n - 1) * page_size_;
    std::size_t got = 0;
    while (got < page_size_) {
      const ssize_t r = ::pread(fd_, buf + got, page_size_ - got, at + static_cast<off_t>(got));
      if (r <= 0) return false;
      got += static_cast<std::size_t>(r);
    }
    return true;
  }

  // The page's b-tree header: past the database header on page 1.
  static std::size_t header_at(std::uint32_t n) { return n == 1 ? 100 : 0; }

  // The cells' offsets of the b-tree page `n` in `buf`, checked to lie in the page; false when
  // the page is no b-tree page or its header is damaged.
  bool cells(std::uint32_t n, const unsigned char* buf, std::vector<std::uint32_t>& offsets) const {
    const unsigned char* h = buf + header_at(n);
    const unsigned char type = h[0];
    if (type != kIndexInterior && type != kTableInterior && type != kIndexLeaf &&
        type != kTableLeaf)
      return false;
    const bool interior = is_interior(type);
    const std::uint32_t count = sqlite_format::get2(h + 3);
    const std::size_t array = header_at(n) + (interior ? 12 : 8);
    if (array + 2 * std::size_t{count} > usable_) return false;
    offsets.resize(count);
    for (std::uint32_t i = 0; i < count; ++i) {
      offsets[i] = sqlite_format::get2(buf + array + 2 * i);
      if (offsets[i] < array + 2 * count || offsets[i] + 4 > usable_) return false;
    }
    return true;
  }

 private:
  int fd_;
  std::uint32_t page_size_, usable_, pages_;
  std::vector<std::atomic<std::uint64_t>> seen_;
};

// The children of the interior page `n` in `buf`, in key order.
inline bool children(const PageFile& file, std::uint32_t n, const unsigned char* buf,
                     std::vector<std::uint32_t>& offsets, std::vector<std::uint32_t>& out) {
  if (!file.cells(n, buf, offsets)) return false;
  out.clear();
  for (const std::uint32_t off : offsets) out.push_back(sqlite_format::get4(buf + off));
  out.push_back(sqlite_format::get4(buf + PageFile::header_at(n) + 8));  // the right-most child
  return true;
}

}  // namespace ts::store
