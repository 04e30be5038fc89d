#include "profiler/import/common/byte_source.hpp"

#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "profiler/import/import.hpp"

namespace ts::import {

namespace {

constexpr std::size_t kReadBlock = std::size_t{1} << 20;
constexpr std::size_t kCompressedBlock = std::size_t{256} << 10;

// An ISA-L inflater of gzip (the header parsed, each trailer's CRC and size checked); its state
// holds its window and tables (tens of KiB), so it lives on the heap.
std::unique_ptr<inflate_state> gzip_inflater() {
  auto z = std::make_unique<inflate_state>();
  isal_inflate_init(z.get());
  z->crc_flag = ISAL_GZIP;
  return z;
}

}  // namespace

FileHandle::FileHandle(const std::string& path) : path_(path) {
  // O_NONBLOCK: opening a FIFO would wait for a writer; only regular files are read.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd_ < 0) throw ImportError("cannot read " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int e = errno;
    ::close(fd_);
    fd_ = -1;
    throw ImportError("cannot read " + path + ": " + std::strerror(e));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw ImportError("cannot read " + path + ": it is a directory");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw ImportError(path + " is not a regular file (a FIFO, device or socket is never read)");
  }
  size_ = static_cast<std::uint64_t>(st.st_size);
  identity_ = {st.st_dev, st.st_ino, size_};
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
}

FileHandle::~FileHandle() {
  if (fd_ >= 0) ::close(fd_);
}

std::size_t FileHandle::read_at(std::uint64_t offset, char* out, std::size_t n) const {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd_, out + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0) {
      if (errno == EINTR) continue;
      throw ImportError("cannot read " + path_ + ": " + std::strerror(errno));
    }
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  return got;
}

bool is_gzip_magic(std::span<const char> b) {
  return b.size() >= 2 && static_cast<unsigned char>(b[0]) == 0x1f &&
         static_cast<unsigned char>(b[1]) == 0x8b;
}

FileRange::FileRange(const FileHandle& file, std::uint64_t begin, std::uint64_t end,
                     FileBlocks* blocks)
    : file_(file),
      pos_(begin),
      end_(end),
      buf_(static_cast<std::size_t>(
          std::min<std::uint64_t>(kReadBlock, end > begin ? end - begin : 1))),
      hashing_(blocks, begin) {}

std::span<const char> FileRange::next() {
  if (pos_ >= end_) return {};
  const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(buf_.size(), end_ - pos_));
  const std::size_t got = file_.read_at(pos_, buf_.data(), want);
  if (got == 0) {  // the file shrank under us: its end is here
    end_ = pos_;
    return {};
  }
  pos_ += got;
  hashing_.add(buf_.data(), got);
  return {buf_.data(), got};
}

namespace {

// "640 KiB", "65 MiB".
std::string size_text(std::uint64_t bytes) {
  if (bytes < (std::uint64_t{1} << 20)) return std::to_string((bytes + 512) >> 10) + " KiB";
  return std::to_string((bytes + (std::uint64_t{1} << 19)) >> 20) + " MiB";
}

// Why inflating `path` stops here ("" while within the limits).
std::string beyond_inflate_limits(const std::string& path, std::uint64_t inflated,
                                  std::uint64_t compressed) {
  if (inflated > kMaxInflatedBytes)
    return path + " inflates to more than " + std::to_string(kMaxInflatedBytes >> 30) +
           " GiB, the most a gzip trace may hold: refused (decompress it yourself to import it)";
  if (inflated > kInflateRatioGraceBytes && inflated / kMaxInflateRatio > compressed)
    return path + " inflates more than " + std::to_string(kMaxInflateRatio) +
           " times its compressed size (" + size_text(compressed) + " to " + size_text(inflated) +
           " so far), as no trace does: refused as a decompression bomb";
  return "";
}

}  // namespace

GzipSource::GzipSource(const FileHandle& file, FileBlocks* blocks) : file_(file), blocks_(blocks) {
  for (auto& b : bufs_) b.resize(kBufferBytes);
  thread_ = std::thread([this] { inflate_all(); });
}

GzipSource::~GzipSource() {
  {
    std::lock_guard lock(m_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

bool GzipSource::corrupt() const {
  std::lock_guard lock(m_);
  return corrupt_;
}

std::span<const char> GzipSource::next() {
  std::unique_lock lock(m_);
  cv_.wait(lock, [&] { return produced_ > taken_ || done_; });
  if (produced_ == taken_) {
    if (!read_error_.empty()) throw ImportError(read_error_);
    return {};
  }
  const int i = static_cast<int>(taken_ % kBuffers);
  ++taken_;  // also gives back the buffer handed out last time: the inflater may refill it
  const std::span<const char> out{bufs_[i].data(), lens_[i]};
  lock.unlock();
  cv_.notify_all();
  return out;
}

void GzipSource::inflate_all() {
  try {
    inflate_loop();
  } catch (const std::exception& e) {
    std::lock_guard lock(m_);
    read_error_ = e.what();
  }
  {
    std::lock_guard lock(m_);
    done_ = true;
  }
  cv_.notify_all();
}

void GzipSource::inflate_loop() {
  const auto z = gzip_inflater();
  std::vector<char> in(kCompressedBlock);
  std::uint64_t in_pos = 0;
  bool in_eof = false;
  BlockHashing hashing(blocks_, 0);
  // Reads the next compressed bytes behind the `keep` not yet taken at next_in.
  const auto read_in = [&](std::size_t keep) {
    if (keep > 0) std::memmove(in.data(), z->next_in, keep);
    const std::size_t got = file_.read_at(in_pos, in.data() + keep, in.size() - keep);
    hashing.add(in.data() + keep, got);
    in_pos += got;
    in_eof = got == 0;
    z->next_in = reinterpret_cast<std::uint8_t*>(in.data());
    z->avail_in = static_cast<std::uint32_t>(keep + got);
  };
  bool finished = false;  // the last member ended and nothing follows
  std::uint64_t inflated = 0;
  while (!finished) {
    // Wait for a free buffer: the parser holds at most one, the others may be full.
    std::size_t slot = 0;
    {
      std::unique_lock lock(m_);
      cv_.wait(lock, [&] { return stop_ || produced_ - taken_ + 1 < kBuffers; });
      if (stop_) break;
      slot = static_cast<std::size_t>(produced_ % kBuffers);
    }
    char* out = bufs_[slot].data();
    z->next_out = reinterpret_cast<std::uint8_t*>(out);
    z->avail_out = static_cast<std::uint32_t>(kBufferBytes);
    bool corrupt = false;
    while (z->avail_out > 0) {
      if (z->block_state == ISAL_BLOCK_FINISH) {
        // Another gzip member may follow; anything else after the last member is ignored.
        if (z->avail_in < 2 && !in_eof) read_in(z->avail_in);
        if (z->avail_in >= 2 && z->next_in[0] == 0x1f && z->next_in[1] == 0x8b) {
          std::uint8_t* const next = z->next_in;
          const std::uint32_t avail = z->avail_in;
          isal_inflate_reset(z.get());
          z->crc_flag = ISAL_GZIP;
          z->next_in = next;
          z->avail_in = avail;
          continue;
        }
        finished = true;
        break;
      }
      if (z->avail_in == 0 && !in_eof) read_in(0);
      if (z->avail_in == 0 && in_eof) {
        // A member cut short just ends: the parser sees a truncated file. Nothing inflated at
        // all: not gzip data worth the name.
        corrupt = inflated == 0 && z->avail_out == kBufferBytes;
        finished = true;
        break;
      }
      const std::uint32_t in_before = z->avail_in, room_before = z->avail_out;
      // Damage, or no progress with input and room (never seen; a hang would be worse).
      if (isal_inflate(z.get()) != ISAL_DECOMP_OK ||
          (z->avail_in == in_before && z->avail_out == room_before &&
           z->block_state != ISAL_BLOCK_FINISH)) {
        corrupt = true;
        finished = true;
        break;
      }
    }
    const std::size_t len = kBufferBytes - z->avail_out;
    inflated += len;
    if (const std::string why = beyond_inflate_limits(file_.path(), inflated, in_pos - z->avail_in);
        !why.empty()) {
      std::lock_guard lock(m_);
      read_error_ = why;
      break;
    }
    {
      std::lock_guard lock(m_);
      if (corrupt) corrupt_ = true;
      if (len > 0) {
        lens_[slot] = len;
        ++produced_;
      }
    }
    cv_.notify_all();
  }
}

std::string peek_text(const std::string& path, std::size_t n) {
  std::string out;
  try {
    FileHandle file(path);
    std::vector<char> head(std::max<std::size_t>(n, 64 << 10));
    const std::size_t got = file.read_at(0, head.data(), head.size());
    if (!is_gzip_magic({head.data(), got})) return std::string(head.data(), std::min(got, n));
    const auto z = gzip_inflater();
    out.resize(n);
    z->next_in = reinterpret_cast<std::uint8_t*>(head.data());
    z->avail_in = static_cast<std::uint32_t>(got);
    z->next_out = reinterpret_cast<std::uint8_t*>(out.data());
    z->avail_out = static_cast<std::uint32_t>(n);
    // The first member's bytes as far as the head and `n` reach; damage ends them.
    while (z->avail_out > 0 && z->avail_in > 0 && z->block_state != ISAL_BLOCK_FINISH) {
      const std::uint32_t in = z->avail_in, room = z->avail_out;
      if (isal_inflate(z.get()) != ISAL_DECOMP_OK || (z->avail_in == in && z->avail_out == room))
        break;
    }
    out.resize(n - z->avail_out);
  } catch (const ImportError&) {
    out.clear();
  }
  return out;
}

}  // namespace ts::import
