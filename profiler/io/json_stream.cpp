#include "profiler/io/json_stream.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "profiler/io/utf8.hpp"

namespace ts::io {

JsonStream& JsonStream::raw(std::string_view text) {
  while (!text.empty()) {
    if (used_ == kSize) drain();
    const std::size_t n = std::min(text.size(), kSize - used_);
    std::memcpy(buf_ + used_, text.data(), n);
    used_ += n;
    text.remove_prefix(n);
  }
  return *this;
}

void JsonStream::utf8_tail(std::string_view text, std::size_t& i) {
  const std::size_t n = utf8_sequence_length(text, i);
  if (n == 0) {
    raw("\\ufffd");
    ++i;
  } else {
    raw(text.substr(i, n));
    i += n;
  }
}

JsonStream& JsonStream::string(std::string_view text) {
  raw('"');
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      utf8_tail(text, i);
      continue;
    }
    ++i;
    switch (c) {
      case '"':
        raw("\\\"");
        break;
      case '\\':
        raw("\\\\");
        break;
      case '\n':
        raw("\\n");
        break;
      case '\r':
        raw("\\r");
        break;
      case '\t':
        raw("\\t");
        break;
      default:
        if (c < 0x20) {
          constexpr char kHex[] = "0123456789abcdef";
          const char esc[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
          raw(std::string_view(esc, sizeof esc));
        } else {
          raw(static_cast<char>(c));
        }
    }
  }
  return raw('"');
}

JsonStream& JsonStream::integer(std::int64_t v) {
  char tmp[24];
  const auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
  return raw(std::string_view(tmp, static_cast<std::size_t>(r.ptr - tmp)));
}

JsonStream& JsonStream::real(double v) {
  if (!std::isfinite(v)) return raw('0');
  char tmp[32];
  const auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
  return raw(std::string_view(tmp, static_cast<std::size_t>(r.ptr - tmp)));
}

JsonStream& JsonStream::micros(std::int64_t ns) {
  // |ns| as unsigned, so that INT64_MIN does not overflow.
  const bool negative = ns < 0;
  const std::uint64_t mag =
      negative ? std::uint64_t{0} - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  char tmp[32];
  char* p = tmp;
  if (negative) *p++ = '-';
  p = std::to_chars(p, tmp + sizeof tmp, mag / 1000).ptr;
  const auto frac = static_cast<unsigned>(mag % 1000);
  if (frac != 0) {
    *p++ = '.';
    *p++ = static_cast<char>('0' + frac / 100);
    *p++ = static_cast<char>('0' + frac / 10 % 10);
    *p++ = static_cast<char>('0' + frac % 10);
  }
  return raw(std::string_view(tmp, static_cast<std::size_t>(p - tmp)));
}

void JsonStream::drain() {
  out_.write(buf_, static_cast<std::streamsize>(used_));
  used_ = 0;
  if (!out_) throw WriteError("the output could not be written");
}

void JsonStream::flush() {
  drain();
  out_.flush();
  if (!out_) throw WriteError("the output could not be written");
}

}  // namespace ts::io
