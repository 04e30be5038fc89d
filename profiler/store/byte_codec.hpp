// The pieces of the compact binary forms stored in a trace (the overview, overview_codec.hpp;
// the kept analysis, profiler/analysis/report_codec.hpp): little-endian IEEE doubles, and a
// reader of varints (varint.hpp), doubles and byte strings that never reads past its input and
// refuses counts its input could not hold, so a hostile file cannot make a decoder allocate
// more than a small multiple of the file's own size.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include "profiler/store/varint.hpp"

namespace ts::store {

inline void put_f64(std::string& out, double v) {
  std::uint64_t bits = std::bit_cast<std::uint64_t>(v);
  if constexpr (std::endian::native == std::endian::big) bits = __builtin_bswap64(bits);
  char buf[8];
  std::memcpy(buf, &bits, 8);
  out.append(buf, 8);
}

class ByteInput {
 public:
  explicit ByteInput(std::string_view s)
      : p_(reinterpret_cast<const unsigned char*>(s.data())), end_(p_ + s.size()) {}

  bool u64(std::uint64_t& v) { return varint::get(p_, end_, v); }
  bool i64(std::int64_t& v) {
    std::uint64_t u = 0;
    if (!u64(u)) return false;
    v = varint::unzigzag(u);
    return true;
  }
  bool u32(std::uint32_t& v) {
    std::uint64_t u = 0;
    if (!u64(u) || u > std::numeric_limits<std::uint32_t>::max()) return false;
    v = static_cast<std::uint32_t>(u);
    return true;
  }
  bool f64(double& v) {
    if (end_ - p_ < 8) return false;
    std::uint64_t bits = 0;
    std::memcpy(&bits, p_, 8);
    if constexpr (std::endian::native == std::endian::big) bits = __builtin_bswap64(bits);
    v = std::bit_cast<double>(bits);
    p_ += 8;
    return true;
  }
  // A count of items of at least `min_bytes` each: no larger than what is left can hold.
  bool count(std::size_t& n, std::size_t min_bytes) {
    std::uint64_t u = 0;
    if (!u64(u) || u > left() / min_bytes) return false;
    n = static_cast<std::size_t>(u);
    return true;
  }
  bool bytes(std::size_t n, std::string& out) {
    if (n > left()) return false;
    out.assign(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return true;
  }
  bool skip(std::string_view s) {
    if (left() < s.size() || std::memcmp(p_, s.data(), s.size()) != 0) return false;
    p_ += s.size();
    return true;
  }
  std::size_t left() const { return static_cast<std::size_t>(end_ - p_); }

 private:
  const unsigned char* p_;
  const unsigned char* end_;
};

}  // namespace ts::store
