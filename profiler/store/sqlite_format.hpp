// The integers of SQLite's file format (https://www.sqlite.org/fileformat2.html), for the code
// that reads or writes a database file without SQLite: big-endian 2- and 4-byte fields, and
// SQLite's varint (big-endian groups of 7 bits, the high bit set on all but the last; a 9th byte
// carries 8 bits, so any 64-bit value takes at most 9 bytes). Read by the header reader
// (file_header.cpp) and the page checksum (events_checksum.cpp), written by the page appender
// (btree_append.cpp).
#pragma once

#include <cstdint>

namespace ts::store::sqlite_format {

inline std::uint32_t get2(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 8) | p[1];
}
inline std::uint32_t get4(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         p[3];
}
inline void put2(std::uint8_t* p, std::uint32_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 8);
  p[1] = static_cast<std::uint8_t>(v);
}
inline void put4(std::uint8_t* p, std::uint32_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 24);
  p[1] = static_cast<std::uint8_t>(v >> 16);
  p[2] = static_cast<std::uint8_t>(v >> 8);
  p[3] = static_cast<std::uint8_t>(v);
}

// The bytes put_varint() writes for v.
inline int varint_len(std::uint64_t v) {
  if (v <= 0x7F) return 1;
  if ((v >> 56) != 0) return 9;
  int n = 1;
  while ((v >>= 7) != 0) ++n;
  return n;
}

// Writes v at p (room for 9 bytes); returns the bytes written.
inline int put_varint(std::uint8_t* p, std::uint64_t v) {
  if (v <= 0x7F) {
    p[0] = static_cast<std::uint8_t>(v);
    return 1;
  }
  if ((v >> 56) != 0) {
    p[8] = static_cast<std::uint8_t>(v);
    v >>= 8;
    for (int i = 7; i >= 0; --i, v >>= 7) p[i] = static_cast<std::uint8_t>((v & 0x7F) | 0x80);
    return 9;
  }
  const int n = varint_len(v);
  for (int i = n - 1; i >= 0; --i, v >>= 7) p[i] = static_cast<std::uint8_t>((v & 0x7F) | 0x80);
  p[n - 1] &= 0x7F;
  return n;
}

// Reads the varint at p (advanced), not past end; false when it runs past end.
inline bool get_varint(const std::uint8_t*& p, const std::uint8_t* end, std::uint64_t& v) {
  v = 0;
  for (int i = 0; i < 9; ++i) {
    if (p >= end) return false;
    const std::uint8_t b = *p++;
    if (i == 8) {
      v = (v << 8) | b;
      return true;
    }
    v = (v << 7) | (b & 0x7F);
    if ((b & 0x80) == 0) return true;
  }
  return true;
}

}  // namespace ts::store::sqlite_format
