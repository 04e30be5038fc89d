#include "profiler/io/gzip_stream.hpp"

#include <zlib.h>

#include <condition_variable>
#include <mutex>
#include <streambuf>
#include <string>
#include <thread>
#include <vector>

#include "profiler/json/writer.hpp"

namespace ts::io {

namespace {
constexpr std::size_t kBlockBytes = 1 << 20;
constexpr int kGzipWindowBits = 15 + 16;  // zlib's way of asking for a gzip header and trailer
}  // namespace

// Two blocks: the writer fills one while the compressor thread deflates the other.
class GzipOstream::Buffer : public std::streambuf {
 public:
  Buffer(std::ostream& sink, int level) : sink_(sink), filling_(kBlockBytes) {
    if (deflateInit2(&z_, level, Z_DEFLATED, kGzipWindowBits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      throw json::WriteError("cannot start gzip compression");
    setp(filling_.data(), filling_.data() + filling_.size());
    worker_ = std::thread([this] { compress_loop(); });
  }
  ~Buffer() override {
    try {
      finish();
    } catch (...) {
    }
    deflateEnd(&z_);
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

  std::string deflate_block(std::vector<char>& out, bool last) {
    if (!error_.empty()) return "";
    z_.next_in = reinterpret_cast<Bytef*>(compressing_.data());
    z_.avail_in = static_cast<uInt>(compressing_.size());
    const int flush = last ? Z_FINISH : Z_NO_FLUSH;
    int rc = Z_OK;
    do {
      z_.next_out = reinterpret_cast<Bytef*>(out.data());
      z_.avail_out = static_cast<uInt>(out.size());
      rc = deflate(&z_, flush);
      if (rc == Z_STREAM_ERROR) return "gzip compression failed";
      const std::size_t n = out.size() - z_.avail_out;
      if (n > 0 && !sink_.write(out.data(), static_cast<std::streamsize>(n)))
        return "cannot write the compressed output";
    } while (z_.avail_out == 0 || (last && rc != Z_STREAM_END));
    return "";
  }

  std::ostream& sink_;
  z_stream z_{};
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
