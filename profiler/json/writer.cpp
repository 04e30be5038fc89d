#include "profiler/json/writer.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace ts::json {

namespace {
constexpr std::size_t kStreamBuffer = std::size_t{1} << 16;
}

Sink::Sink(std::ostream& out) : out_(&out), buf_(kStreamBuffer, '\0') {
  cur_ = buf_.data();
  end_ = cur_ + buf_.size();
}

void Sink::make_room(std::size_t n) {
  auto used = cur_ == nullptr ? std::size_t{0} : static_cast<std::size_t>(cur_ - buf_.data());
  if (out_ == nullptr) {
    buf_.resize(std::max({2 * buf_.size(), used + n, std::size_t{4096}}));
  } else {
    out_->write(buf_.data(), static_cast<std::streamsize>(used));
    if (!*out_) throw WriteError("the output could not be written");
    used = 0;
    if (buf_.size() < n) buf_.resize(n);
  }
  cur_ = buf_.data() + used;
  end_ = buf_.data() + buf_.size();
}

namespace {

// Whether any of the 8 bytes in w needs a look of its own: not ASCII, a control character, '"'
// or '\\' (haszero and hasless of "Bit Twiddling Hacks").
bool special_byte(std::uint64_t w) {
  constexpr std::uint64_t kOnes = 0x0101010101010101u, kHigh = 0x8080808080808080u;
  const auto has_zero = [](std::uint64_t v) { return (v - kOnes) & ~v & kHigh; };
  return ((w & kHigh) | has_zero(w ^ (kOnes * '"')) | has_zero(w ^ (kOnes * '\\')) |
          ((w - kOnes * 0x20) & ~w & kHigh)) != 0;
}

}  // namespace

std::string quote(std::string_view s) {
  Sink sink;
  sink.put_string(s);
  return sink.finish();
}

void Sink::put_string(std::string_view s) {
  reserve(2 + 6 * s.size());  // "\u00XX" is the longest a byte becomes
  char* out = cur_;
  *out++ = '"';
  const char* p = s.data();
  const char* const end = p + s.size();
  while (p != end) {
    if (end - p >= 8) {  // 8 plain bytes at once
      std::uint64_t w;
      std::memcpy(&w, p, sizeof w);
      if (!special_byte(w)) {
        std::memcpy(out, p, sizeof w);
        out += sizeof w;
        p += sizeof w;
        continue;
      }
    }
    const auto c = static_cast<unsigned char>(*p);
    if (c >= 0x80) {
      const std::size_t n =
          utf8_sequence_length(std::string_view(p, static_cast<std::size_t>(end - p)), 0);
      if (n == 0) {
        std::memcpy(out, "\xEF\xBF\xBD", 3);  // U+FFFD REPLACEMENT CHARACTER
        out += 3;
        ++p;
      } else {
        std::memcpy(out, p, n);
        out += n;
        p += n;
      }
      continue;
    }
    ++p;
    if (c >= 0x20 && c != '"' && c != '\\') {
      *out++ = static_cast<char>(c);
      continue;
    }
    *out++ = '\\';
    switch (c) {
      case '"':
      case '\\':
        *out++ = static_cast<char>(c);
        break;
      case '\n':
        *out++ = 'n';
        break;
      case '\t':
        *out++ = 't';
        break;
      case '\r':
        *out++ = 'r';
        break;
      case '\b':
        *out++ = 'b';
        break;
      case '\f':
        *out++ = 'f';
        break;
      default: {
        constexpr char kHex[] = "0123456789abcdef";
        const char esc[] = {'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        std::memcpy(out, esc, sizeof esc);
        out += sizeof esc;
      }
    }
  }
  *out++ = '"';
  cur_ = out;
}

std::string Sink::finish() {
  if (out_ == nullptr) {
    buf_.resize(cur_ == nullptr ? 0 : static_cast<std::size_t>(cur_ - buf_.data()));
    cur_ = end_ = nullptr;
    return std::move(buf_);
  }
  make_room(0);
  out_->flush();
  if (!*out_) throw WriteError("the output could not be written");
  return {};
}

std::size_t format_fixed(double v, int decimals, char (&buf)[64]) {
  if (std::fabs(v) >= 1e15) {  // fixed notation would not fit; exponent form is valid JSON
    const int n = std::snprintf(buf, sizeof buf, "%.17g", v);
    return static_cast<std::size_t>(n);
  }
  int n = std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  if (std::memchr(buf, '.', static_cast<std::size_t>(n)) != nullptr) {
    while (buf[n - 1] == '0') --n;
    if (buf[n - 1] == '.') --n;
  }
  if (n == 2 && buf[0] == '-' && buf[1] == '0') {
    buf[0] = '0';
    n = 1;
  }
  return static_cast<std::size_t>(n);
}

}  // namespace ts::json
