#include "profiler/store/read_only_open.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "profiler/store/file_header.hpp"

namespace ts::store {

namespace {

// Bytes 18 and 19 of the database header: the file format's write and read versions, 2 in
// write-ahead-log mode (https://www.sqlite.org/fileformat.html#file_format_version_numbers).
bool header_says_write_ahead_log(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return false;
  unsigned char versions[2] = {};
  const ssize_t got = ::pread(fd, versions, sizeof versions, 18);
  ::close(fd);
  return got == static_cast<ssize_t>(sizeof versions) && (versions[0] == 2 || versions[1] == 2);
}

bool folder_can_take_a_file(const std::string& path) {
  return ::access(folder_of(path).c_str(), W_OK | X_OK) == 0;
}

}  // namespace

ReadOpen choose_read_open(const TraceSurroundings& s) {
  if (!s.write_ahead_log_mode) return ReadOpen::as_is;
  if (s.log_has_content)
    return s.index_present || s.folder_writable ? ReadOpen::as_is : ReadOpen::refuse;
  // Nothing in the log: the file is the whole trace. An index beside it in a folder that can
  // take one may be a running capture's, whose next commits a plain open will see.
  return s.index_present && s.folder_writable ? ReadOpen::as_is : ReadOpen::immutable;
}

TraceSurroundings trace_surroundings(const std::string& path) {
  TraceSurroundings s;
  s.write_ahead_log_mode = header_says_write_ahead_log(path);
  s.log_has_content = has_write_ahead_log(path);
  s.index_present = file_kind(path + "-shm") != FileKind::missing;
  s.folder_writable = folder_can_take_a_file(path);
  return s;
}

std::string folder_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string unreadable_log_message(const std::string& path) {
  const std::string folder = folder_of(path);
  const std::string reason = ::access(folder.c_str(), W_OK | X_OK) != 0
                                 ? std::strerror(errno)
                                 : "it refused " + path + "-shm";
  return "cannot read trace " + path + ": its last writes are in " + path +
         "-wal (a capture killed or still running) and its folder " + folder + " is read-only (" +
         reason + "), so SQLite cannot create the index " + path +
         "-shm it needs to read them; copy " + path + " and " + path +
         "-wal to a folder you can write and open the copy there";
}

void open_read_only(Db& db, const std::string& path, std::string_view what) {
  constexpr int kFlags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX;
  switch (choose_read_open(trace_surroundings(path))) {
    case ReadOpen::as_is:
      db.open(path, kFlags, what);
      return;
    case ReadOpen::immutable:
      db.open(path, kFlags, what, "immutable=1");
      return;
    case ReadOpen::refuse:
      throw Error(unreadable_log_message(path));
  }
}

}  // namespace ts::store
