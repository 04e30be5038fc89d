#include "profiler/store/file_header.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include "profiler/store/sqlite_format.hpp"

namespace ts::store {

namespace {

constexpr char kMagic[] = "SQLite format 3";  // 16 bytes with its NUL

// Reads up to n bytes at the start of fd, retrying short reads; -1 on an error.
ssize_t read_head(int fd, unsigned char* out, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, out + got, n - got, static_cast<off_t>(got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  return static_cast<ssize_t>(got);
}

}  // namespace

FileKind file_kind(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return FileKind::missing;
  if (S_ISREG(st.st_mode)) return FileKind::regular;
  return S_ISDIR(st.st_mode) ? FileKind::directory : FileKind::special;
}

std::optional<FileHeader> read_file_header(const std::string& path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. Nothing is read
  // from anything but a regular file (a FIFO, a device or a socket may never end).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    errno = e;
    return std::nullopt;
  }
  FileHeader h;
  h.regular = S_ISREG(st.st_mode);
  if (!h.regular) {
    ::close(fd);
    return h;
  }
  h.file_size = st.st_size > 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  std::array<unsigned char, 100> b{};
  const ssize_t got = read_head(fd, b.data(), b.size());
  const int e = errno;
  ::close(fd);
  if (got < 0) {
    errno = e;
    return std::nullopt;
  }
  h.header_bytes = static_cast<std::size_t>(got);
  h.sqlite = std::memcmp(b.data(), kMagic, std::min(h.header_bytes, sizeof kMagic)) == 0;
  if (!h.sqlite || h.header_bytes < b.size()) return h;
  const std::uint32_t raw_page = sqlite_format::get2(&b[16]);
  h.page_size = raw_page == 1 ? 65536 : raw_page;
  // The page count is valid when "version-valid-for" matches the change counter.
  if (sqlite_format::get4(&b[92]) == sqlite_format::get4(&b[24]))
    h.page_count = sqlite_format::get4(&b[28]);
  h.application_id = static_cast<std::int32_t>(sqlite_format::get4(&b[68]));
  return h;
}

bool has_write_ahead_log(const std::string& path) {
  struct stat st {};
  return ::stat((path + "-wal").c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

std::uint64_t size_with_write_ahead_log(const std::string& path) {
  std::uint64_t total = 0;
  for (const char* suffix : {"", "-wal"}) {
    struct stat st {};
    if (::stat((path + suffix).c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
      total += static_cast<std::uint64_t>(st.st_size);
  }
  return total;
}

std::pair<std::uint64_t, std::uint64_t> file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {0, 0};
  return {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

namespace {
void remove_present(const std::string& file, std::string_view context) {
  if (::unlink(file.c_str()) != 0 && errno != ENOENT)
    throw Error(std::string(context) + " " + file + ": " + std::strerror(errno));
}
}  // namespace

void remove_trace_companions(const std::string& path, std::string_view context) {
  for (const char* suffix : kCompanionSuffixes) remove_present(path + suffix, context);
}

void remove_trace_files(const std::string& path, std::string_view context) {
  remove_present(path, context);
  remove_trace_companions(path, context);
}

void discard_trace_files(const std::string& path) noexcept {
  ::unlink(path.c_str());
  for (const char* suffix : kCompanionSuffixes) ::unlink((path + suffix).c_str());
}

void check_regular_files(const std::string& path) {
  const auto what = [&](const std::string& p, FileKind k) {
    return p + (k == FileKind::directory ? " is a directory, not a trace file"
                                         : " is not a regular file (a FIFO, device or socket is "
                                           "never read as a trace)");
  };
  if (const FileKind k = file_kind(path); k == FileKind::directory || k == FileKind::special)
    throw Error(what(path, k));
  // SQLite opens these next to the database itself: the write-ahead log, its index, a journal.
  for (const char* suffix : kCompanionSuffixes) {
    const std::string side = path + suffix;
    if (const FileKind k = file_kind(side); k == FileKind::directory || k == FileKind::special)
      throw Error(what(side, k));
  }
}

}  // namespace ts::store
