// Where the tokenizer's bytes come from: a byte range of a plain file, read in 1 MiB blocks, or a
// gzip file inflated on a second thread into a small ring of buffers, so that inflating and
// parsing overlap. Neither holds more than a few MiB, whatever the file's size.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "profiler/import/common/source_digests.hpp"

namespace ts::import {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // The next bytes; empty only at the end. Valid until the next call. Throws ImportError when
  // the file cannot be read.
  virtual std::span<const char> next() = 0;
};

// An open file descriptor, closed on destruction.
class FileHandle {
 public:
  FileHandle() = default;
  // Throws ImportError naming the file when it cannot be opened or is not a regular file (a
  // directory, a FIFO, a device, a socket); opening never blocks.
  explicit FileHandle(const std::string& path);
  ~FileHandle();
  FileHandle(const FileHandle&) = delete;
  FileHandle& operator=(const FileHandle&) = delete;
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  std::uint64_t size() const { return size_; }
  // Its device, inode and size when it was opened.
  const FileIdentity& identity() const { return identity_; }
  // Reads up to n bytes at offset (retrying short reads); returns the count read, 0 at the end.
  std::size_t read_at(std::uint64_t offset, char* out, std::size_t n) const;

 private:
  int fd_ = -1;
  std::string path_;
  std::uint64_t size_ = 0;
  FileIdentity identity_;
};

bool is_gzip_magic(std::span<const char> first_bytes);

// Bytes [begin, end) of a plain file. blocks: where the digests of the blocks it reads whole go
// (source_digests.hpp); null for none.
class FileRange final : public ByteSource {
 public:
  FileRange(const FileHandle& file, std::uint64_t begin, std::uint64_t end,
            FileBlocks* blocks = nullptr);
  std::span<const char> next() override;

 private:
  const FileHandle& file_;
  std::uint64_t pos_, end_;
  std::vector<char> buf_;
  BlockHashing hashing_;
};

// Limits on inflating a gzip file (a decompression bomb is refused early, in one sentence): past
// the first kInflateRatioGraceBytes, at most kMaxInflateRatio bytes out per compressed byte read
// (JSON traces inflate 5-20 times, TensorFlow profiles less), and kMaxInflatedBytes in all.
inline constexpr std::uint64_t kMaxInflateRatio = 100;
inline constexpr std::uint64_t kInflateRatioGraceBytes = std::uint64_t{64} << 20;
inline constexpr std::uint64_t kMaxInflatedBytes = std::uint64_t{16} << 30;

// The inflated bytes of a gzip file, inflated on a thread of its own by ISA-L's igzip (several
// times zlib's speed); concatenated gzip members are read one after the other. Corrupt data (a
// bad block, a wrong CRC or size in a member's trailer) ends the bytes early with corrupt() set;
// a file cut short just ends. Past
// the limits above, next() throws ImportError (once the bytes inflated before are handed out).
// blocks: where the digests of the compressed file's blocks go (source_digests.hpp); null for none.
class GzipSource final : public ByteSource {
 public:
  explicit GzipSource(const FileHandle& file, FileBlocks* blocks = nullptr);
  ~GzipSource() override;
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;
  std::span<const char> next() override;
  bool corrupt() const;

 private:
  void inflate_all();
  void inflate_loop();

  static constexpr int kBuffers = 4;
  static constexpr std::size_t kBufferBytes = std::size_t{1} << 20;
  const FileHandle& file_;
  FileBlocks* blocks_;
  std::vector<char> bufs_[kBuffers];
  std::size_t lens_[kBuffers] = {};
  mutable std::mutex m_;
  std::condition_variable cv_;
  std::uint64_t produced_ = 0, taken_ = 0;  // buffers filled / handed to the parser
  bool done_ = false, stop_ = false, corrupt_ = false;
  std::string read_error_;
  std::thread thread_;
};

// The first bytes of a file as a parser would see them (inflated when gzip); at most n bytes.
// Empty when the file cannot be read.
std::string peek_text(const std::string& path, std::size_t n);

}  // namespace ts::import
