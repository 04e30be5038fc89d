#include "engine/data/gz_file.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "engine/data/dataset.hpp"

namespace ts {
namespace {

gzFile as_gz(void* f) {
  return static_cast<gzFile>(f);
}

std::string gz_message(gzFile f) {
  int code = Z_OK;
  const char* msg = gzerror(f, &code);
  if (code == Z_ERRNO) return std::strerror(errno);
  return msg && *msg ? msg : "unknown zlib error";
}

constexpr std::size_t kChunk = 1u << 20;  // gzread/gzwrite take unsigned lengths

}  // namespace

GzReader::GzReader(std::string path) : path_(std::move(path)), file_(nullptr) {
  std::error_code ec;
  const auto status = std::filesystem::status(path_, ec);
  if (!std::filesystem::exists(status))
    throw DatasetError("cannot open '" + path_ + "': no such file");
  if (std::filesystem::is_directory(status))
    throw DatasetError("cannot read '" + path_ + "': it is a directory, not a file");
  errno = 0;
  file_ = gzopen(path_.c_str(), "rb");
  if (!file_) {
    throw DatasetError("cannot open '" + path_ +
                       "': " + (errno ? std::strerror(errno) : "out of memory"));
  }
  gzbuffer(as_gz(file_), 1u << 17);
}

GzReader::~GzReader() {
  if (file_) gzclose_r(as_gz(file_));
}

std::size_t GzReader::read(void* dst, std::size_t bytes) {
  auto* out = static_cast<unsigned char*>(dst);
  std::size_t done = 0;
  while (done < bytes) {
    const auto want = static_cast<unsigned>(std::min(bytes - done, kChunk));
    const int got = gzread(as_gz(file_), out + done, want);
    if (got < 0) throw DatasetError("cannot read '" + path_ + "': " + gz_message(as_gz(file_)));
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  if (done < bytes) {  // end of data: a gzip stream cut short reports Z_BUF_ERROR here
    int code = Z_OK;
    gzerror(as_gz(file_), &code);
    if (code != Z_OK && code != Z_BUF_ERROR)
      throw DatasetError("cannot read '" + path_ + "': " + gz_message(as_gz(file_)));
  }
  return done;
}

GzWriter::GzWriter(std::string path, bool gzip) : path_(std::move(path)), file_(nullptr) {
  errno = 0;
  // "T" asks zlib for a transparent (uncompressed) write.
  file_ = gzopen(path_.c_str(), gzip ? "wb6" : "wbT");
  if (!file_) {
    throw DatasetError("cannot create '" + path_ +
                       "': " + (errno ? std::strerror(errno) : "out of memory"));
  }
}

GzWriter::~GzWriter() {
  if (file_) gzclose_w(as_gz(file_));
}

void GzWriter::write(const void* src, std::size_t bytes) {
  const auto* in = static_cast<const unsigned char*>(src);
  while (bytes > 0) {
    const auto n = static_cast<unsigned>(std::min(bytes, kChunk));
    if (gzwrite(as_gz(file_), in, n) != static_cast<int>(n))
      throw DatasetError("cannot write '" + path_ + "': " + gz_message(as_gz(file_)));
    in += n;
    bytes -= n;
  }
}

void GzWriter::close() {
  if (!file_) return;
  errno = 0;
  const int rc = gzclose_w(as_gz(file_));
  file_ = nullptr;
  if (rc != Z_OK) {
    throw DatasetError("cannot finish writing '" + path_ +
                       "': " + (errno ? std::strerror(errno) : "zlib error " + std::to_string(rc)));
  }
}

}  // namespace ts
