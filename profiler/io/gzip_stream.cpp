#include "profiler/io/gzip_stream.hpp"

#include <isa-l/igzip_lib.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <streambuf>
#include <string>
#include <thread>
#include <vector>

#include "profiler/json/writer.hpp"

namespace ts::io {

namespace {
constexpr std::size_t kBlockBytes = 1 << 20;
}  // namespace

// Two blocks: the writer fills one while the compressor thread deflates the other.
class GzipOstream::Buffer : public std::streambuf {
 public:
  Buffer(std::ostream& sink, int level) : sink_(sink), filling_(kBlockBytes) {
    if (level < 0 || level > kMaxLevel)
      throw json::WriteError("cannot start gzip compression at level " + std::to_string(level) +
                             " (0 to " + std::to_string(kMaxLevel) + ")");
    isal_deflate_init(&z_);
    level_buf_.resize(level_buffer_bytes(level));
    z_.level = static_cast<std::uint32_t>(level);
    z_.level_buf = level_buf_.data();
    z_.level_buf_size = static_cast<std::uint32_t>(level_buf_.size());
    z_.gzip_flag = IGZIP_GZIP;
    z_.flush = NO_FLUSH;
    setp(filling_.data(), filling_.data() + filling_.size());
    worker_ = std::thread([this] { compress_loop(); });
  }
  ~Buffer() override {
    try {
      finish();
    } catch (...) {
    }
  }

  void finish() {
    if (finished_) return;
    finished_ = true;
    hand_over(true);
    worker_.join();
    if (!error_.empty()) throw json::WriteError(error_);
    sink_.flush();
    if (!sink_) throw json::WriteError("cannot write the compressed output");
  }

 protected:
  int_type overflow(int_type ch) override {
    if (!hand_over(false)) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return 0; }  // compressed in blocks; finish() flushes

 private:
  // Gives the filled part of the current block to the worker, waiting while it still deflates
  // the previous one; `last` tells it to finish the stream after this block.
  bool hand_over(bool last) {
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [&] { return !pending_; });
    // After a failure only the last hand-over goes on, empty, so that the worker ends.
    if (!error_.empty() && !last) return false;
    filling_.resize(error_.empty() ? static_cast<std::size_t>(pptr() - pbase()) : 0);
    std::swap(filling_, compressing_);
    pending_ = true;
    last_ = last;
    lock.unlock();
    ready_.notify_one();
    filling_.resize(kBlockBytes);
    setp(filling_.data(), filling_.data() + filling_.size());
    return true;
  }

  void compress_loop() {
    std::vector<char> out(kBlockBytes);
    for (;;) {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [&] { return pending_; });
      const bool last = last_;
      lock.unlock();
      std::string error = deflate_block(out, last);
      lock.lock();
      pending_ = false;
      if (!error.empty() && error_.empty()) error_ = std::move(error);
      lock.unlock();
      idle_.notify_one();
      if (last) return;
    }
  }

  // The level buffer ISA-L asks for at `level`: the sizes it names "default".
  static std::size_t level_buffer_bytes(int level) {
    switch (level) {
      case 0:
        return ISAL_DEF_LVL0_DEFAULT;
      case 1:
        return ISAL_DEF_LVL1_DEFAULT;
      case 2:
        return ISAL_DEF_LVL2_DEFAULT;
      case 3:
        return ISAL_DEF_LVL3_DEFAULT;
      default:
        return 0;
    }
  }

  std::string deflate_block(std::vector<char>& out, bool last) {
    if (!error_.empty()) return "";
    z_.next_in = reinterpret_cast<std::uint8_t*>(compressing_.data());
    z_.avail_in = static_cast<std::uint32_t>(compressing_.size());
    z_.end_of_stream = last ? 1 : 0;
    do {
      z_.next_out = reinterpret_cast<std::uint8_t*>(out.data());
      z_.avail_out = static_cast<std::uint32_t>(out.size());
      if (isal_deflate(&z_) != COMP_OK) return "gzip compression failed";
      const std::size_t n = out.size() - z_.avail_out;
      if (n > 0 && !sink_.write(out.data(), static_cast<std::streamsize>(n)))
        return "cannot write the compressed output";
    } while (z_.avail_in > 0 || z_.avail_out == 0 ||
             (last && z_.internal_state.state != ZSTATE_END));
    return "";
  }

  static constexpr int kMaxLevel = ISAL_DEF_MAX_LEVEL;

  std::ostream& sink_;
  isal_zstream z_{};
  std::vector<std::uint8_t> level_buf_;
  std::vector<char> filling_, compressing_;
  std::mutex mutex_;
  std::condition_variable ready_, idle_;
  bool pending_ = false, last_ = false, finished_ = false;
  std::string error_;  // the worker's first failure, guarded by mutex_
  std::thread worker_;
};

GzipOstream::GzipOstream(std::ostream& sink, int level)
    : std::ostream(nullptr), buffer_(std::make_unique<Buffer>(sink, level)) {
  rdbuf(buffer_.get());
}

GzipOstream::~GzipOstream() = default;

void GzipOstream::finish() {
  buffer_->finish();
}

bool gzip_output_name(const std::string& path) {
  return path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
}

}  // namespace ts::io
