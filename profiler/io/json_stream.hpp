// A buffered, streaming JSON writer for large outputs: tokens go into a fixed buffer that is
// flushed to an ostream, so a 10 M-event trace is never held in memory as one string. Strings
// are escaped and made valid UTF-8 (a byte that does not start a well-formed sequence becomes
// U+FFFD), because trace files may hold arbitrary bytes and JSON readers reject invalid text.
#pragma once

#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ts::io {

// The output stream failed (disk full, closed pipe); what() says what was being written.
class WriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class JsonStream {
 public:
  explicit JsonStream(std::ostream& out) : out_(out) {}
  ~JsonStream() = default;  // flush() explicitly: a destructor cannot report a failed write
  JsonStream(const JsonStream&) = delete;
  JsonStream& operator=(const JsonStream&) = delete;

  // Verbatim text (punctuation, keys known to need no escaping).
  JsonStream& raw(std::string_view text);
  JsonStream& raw(char c) {
    if (used_ == kSize) drain();
    buf_[used_++] = c;
    return *this;
  }
  // A quoted, escaped string.
  JsonStream& string(std::string_view text);
  JsonStream& integer(std::int64_t v);
  // A finite double in shortest round-trip form; non-finite values are written as 0.
  JsonStream& real(double v);
  // Nanoseconds as microseconds with three decimals, exactly (no rounding through a double).
  JsonStream& micros(std::int64_t ns);

  // Writes everything buffered; throws WriteError when the stream has failed.
  void flush();

 private:
  static constexpr std::size_t kSize = 1 << 16;
  void drain();
  void utf8_tail(std::string_view text, std::size_t& i);

  std::ostream& out_;
  char buf_[kSize];
  std::size_t used_ = 0;
};

}  // namespace ts::io
