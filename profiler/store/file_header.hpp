// What the first 100 bytes of a file say about it, read without SQLite: the database header
// (https://www.sqlite.org/fileformat.html#the_database_header). The writer checks it before
// replacing a file; the reader before opening one, to name a foreign or truncated file clearly.
// Only regular files are read: a FIFO, a character device or a socket could block or never end.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "profiler/store/error.hpp"

namespace ts::store {

enum class FileKind { missing, regular, directory, special };

// What `path` is (following symbolic links); special: a FIFO, a device or a socket.
FileKind file_kind(const std::string& path);

struct FileHeader {
  bool regular = true;  // false: not a regular file, and nothing below was read
  std::uint64_t file_size = 0;
  std::size_t header_bytes = 0;  // bytes of the header present: 100 unless the file is shorter
  bool sqlite = false;           // the bytes present match "SQLite format 3\0"
  std::uint32_t page_size = 0;
  // Pages the file should hold, when the header says so reliably (else 0). A file shorter than
  // page_count * page_size was truncated, unless a write-ahead log next to it holds the rest.
  std::uint32_t page_count = 0;
  std::int32_t application_id = 0;
};

// Reads the header of `path`; nullopt (errno set) when the file cannot be opened. Never blocks:
// a path that is not a regular file gives a header with regular == false.
std::optional<FileHeader> read_file_header(const std::string& path);

// True when `path`-wal exists and is not empty: the file alone is not the whole database.
bool has_write_ahead_log(const std::string& path);

// The bytes of `path` and of its write-ahead log: what a reader may have to go through.
std::uint64_t size_with_write_ahead_log(const std::string& path);

// The file at `path` (device and inode; {0, 0} when absent): a file written anew at the same
// path is another file.
std::pair<std::uint64_t, std::uint64_t> file_identity(const std::string& path);

// Throws Error ("X is not a regular file", "X is a directory, not a trace file") unless `path`
// and the files SQLite opens beside it (-wal, -shm, -journal) are regular files or absent.
void check_regular_files(const std::string& path);

// The files SQLite keeps beside a database: the write-ahead log, its index, a rollback journal.
// A stale one beside a new file would be read as the new file's (a journal is even rolled back).
inline constexpr const char* kCompanionSuffixes[] = {"-wal", "-shm", "-journal"};

// Removes `path` and its companions, those present. One that exists and cannot be removed throws
// Error("<context> <file>: <reason>").
void remove_trace_files(const std::string& path, std::string_view context = "cannot remove");
// The same for the companions only: the database itself stays.
void remove_trace_companions(const std::string& path, std::string_view context = "cannot remove");
// Clean-up after a failure: removes what it can of `path` and its companions, never throws.
void discard_trace_files(const std::string& path) noexcept;

}  // namespace ts::store
