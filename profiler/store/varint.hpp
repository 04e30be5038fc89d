// LEB128 varints (7 bits per byte, low first) and zigzag signed values: the compact integer
// coding of the staged event blocks (event_block.hpp) and of the stored overview
// (overview_codec.hpp). Decoding never reads past `end` and refuses a varint over 64 bits.
#pragma once

#include <cstdint>
#include <string>

namespace ts::store::varint {

inline constexpr std::size_t kMaxBytes = 10;

inline std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}

inline std::int64_t unzigzag(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

// Wrapping difference and sum: any pair of 64-bit times round-trips through a delta.
inline std::int64_t wrapping_sub(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
inline std::int64_t wrapping_add(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

// Writes v at p (room for kMaxBytes); returns the byte after it.
inline unsigned char* put(unsigned char* p, std::uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<unsigned char>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<unsigned char>(v);
  return p;
}

inline void append(std::string& out, std::uint64_t v) {
  unsigned char buf[kMaxBytes];
  const unsigned char* end = put(buf, v);
  out.append(reinterpret_cast<const char*>(buf), static_cast<std::size_t>(end - buf));
}

// Reads one varint at p (advanced); false when the input ends or it overflows 64 bits.
inline bool get(const unsigned char*& p, const unsigned char* end, std::uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p == end) return false;
    const unsigned char b = *p++;
    if (shift == 63 && b > 1) return false;
    v |= static_cast<std::uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

}  // namespace ts::store::varint
