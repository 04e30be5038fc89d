// Byte streams over files that may or may not be gzip-compressed (zlib's gzFile).
#pragma once

#include <cstddef>
#include <string>

namespace ts {

// Reads a file, inflating it if it starts with the gzip magic 1f 8b and passing it through
// unchanged otherwise: the magic decides, never the file name. Errors are DatasetErrors that name
// the file.
class GzReader {
 public:
  explicit GzReader(std::string path);
  ~GzReader();
  GzReader(const GzReader&) = delete;
  GzReader& operator=(const GzReader&) = delete;

  // Reads up to `bytes` bytes into dst; returns how many were read (fewer only at end of data).
  std::size_t read(void* dst, std::size_t bytes);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  void* file_;  // gzFile
};

// Writes a file, gzip-compressed or raw. close() reports write errors; the destructor closes
// quietly if close() was not called.
class GzWriter {
 public:
  GzWriter(std::string path, bool gzip);
  ~GzWriter();
  GzWriter(const GzWriter&) = delete;
  GzWriter& operator=(const GzWriter&) = delete;

  void write(const void* src, std::size_t bytes);
  void close();

 private:
  std::string path_;
  void* file_;  // gzFile
};

}  // namespace ts
