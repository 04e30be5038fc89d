#include "profiler/store/content_hash.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

namespace ts::store {

namespace {

constexpr std::uint64_t kP1 = 0x9E3779B185EBCA87ULL;
constexpr std::uint64_t kP2 = 0xC2B2AE3D27D4EB4FULL;
constexpr std::uint64_t kP3 = 0x165667B19E3779F9ULL;
constexpr std::uint64_t kP4 = 0x85EBCA77C2B2AE63ULL;
constexpr std::uint64_t kP5 = 0x27D4EB2F165667C5ULL;

std::uint64_t read64(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}

std::uint32_t read32(const unsigned char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  return v;
}

std::uint64_t round(std::uint64_t acc, std::uint64_t input) {
  acc += input * kP2;
  acc = std::rotl(acc, 31);
  return acc * kP1;
}

std::uint64_t merge_round(std::uint64_t acc, std::uint64_t val) {
  acc ^= round(0, val);
  return acc * kP1 + kP4;
}

// The 32-byte stripes of `p` (n a multiple of 32) into the four accumulators.
void stripes(std::uint64_t acc[4], const unsigned char* p, std::size_t n) {
  std::uint64_t a = acc[0], b = acc[1], c = acc[2], d = acc[3];
  for (const unsigned char* end = p + n; p < end; p += 32) {
    a = round(a, read64(p));
    b = round(b, read64(p + 8));
    c = round(c, read64(p + 16));
    d = round(d, read64(p + 24));
  }
  acc[0] = a, acc[1] = b, acc[2] = c, acc[3] = d;
}

std::uint64_t finish(const std::uint64_t acc[4], std::uint64_t seed, std::uint64_t total,
                     const unsigned char* p, std::size_t n) {
  std::uint64_t h;
  if (total >= 32) {
    h = std::rotl(acc[0], 1) + std::rotl(acc[1], 7) + std::rotl(acc[2], 12) + std::rotl(acc[3], 18);
    for (int i = 0; i < 4; ++i) h = merge_round(h, acc[i]);
  } else {
    h = seed + kP5;
  }
  h += total;
  for (; n >= 8; p += 8, n -= 8) h = std::rotl(h ^ round(0, read64(p)), 27) * kP1 + kP4;
  if (n >= 4) {
    h = std::rotl(h ^ (read32(p) * kP1), 23) * kP2 + kP3;
    p += 4, n -= 4;
  }
  for (; n > 0; ++p, --n) h = std::rotl(h ^ (*p * kP5), 11) * kP1;
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  h ^= h >> 32;
  return h;
}

}  // namespace

ContentHash::ContentHash(std::uint64_t seed)
    : acc_{seed + kP1 + kP2, seed + kP2, seed, seed - kP1}, seed_(seed) {}

void ContentHash::update(const void* data, std::size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  total_ += size;
  if (buffered_ > 0) {
    const std::size_t take = std::min(size, sizeof buf_ - buffered_);
    std::memcpy(buf_ + buffered_, p, take);
    buffered_ += take, p += take, size -= take;
    if (buffered_ < sizeof buf_) return;
    stripes(acc_, buf_, sizeof buf_);
    buffered_ = 0;
  }
  const std::size_t whole = size & ~std::size_t{31};
  stripes(acc_, p, whole);
  std::memcpy(buf_, p + whole, size - whole);
  buffered_ = size - whole;
}

void ContentHash::update_u64(std::uint64_t v) {
  unsigned char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(v >> (8 * i));
  update(b, 8);
}

std::uint64_t ContentHash::digest() const {
  return finish(acc_, seed_, total_, buf_, buffered_);
}

std::uint64_t content_hash(const void* data, std::size_t size, std::uint64_t seed) {
  ContentHash h(seed);
  h.update(data, size);
  return h.digest();
}

}  // namespace ts::store
