#include "profiler/store/event_block.hpp"

#include <bit>
#include <cstring>
#include <limits>

namespace ts::store {

namespace {

constexpr unsigned char kCounterFlag = 0x10;
constexpr std::size_t kMaxVarint = 10;
constexpr std::size_t kMaxEventBytes = 8 * kMaxVarint + 1;
constexpr std::size_t kMaxCounterBytes = 2 * kMaxVarint + 1 + 8;

std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}

std::int64_t unzigzag(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

// Wrapping difference and sum: any pair of times round-trips.
std::int64_t wrapping_sub(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
std::int64_t wrapping_add(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

unsigned char* put_varint(unsigned char* p, std::uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<unsigned char>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<unsigned char>(v);
  return p;
}

// Reads one varint at p (advanced); false when the input ends or it overflows 64 bits.
bool get_varint(const unsigned char*& p, const unsigned char* end, std::uint64_t& v) {
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

std::uint64_t little_endian(std::uint64_t v) {
  return std::endian::native == std::endian::big ? __builtin_bswap64(v) : v;
}

}  // namespace

// Writes into room reserved for the worst case, then trims: one resize per call, not one
// push_back per byte.
void BlockEncoder::append(std::span<const EventRow> rows) {
  const std::size_t at = bytes_.size();
  bytes_.resize(at + rows.size() * kMaxEventBytes);
  unsigned char* p = bytes_.data() + at;
  for (const EventRow& r : rows) {
    const std::int64_t optional[4] = {r.step, r.bytes, r.work_size, r.correlation};
    unsigned char flags = 0;
    for (int k = 0; k < 4; ++k)
      if (optional[k] != kNull) flags |= static_cast<unsigned char>(1u << k);
    *p++ = flags;
    p = put_varint(p, zigzag(wrapping_sub(r.start_ns, previous_start_)));
    previous_start_ = r.start_ns;
    p = put_varint(p, static_cast<std::uint64_t>(r.dur_ns));
    p = put_varint(p, r.track);
    p = put_varint(p, r.label);
    for (int k = 0; k < 4; ++k)
      if (optional[k] != kNull) p = put_varint(p, zigzag(optional[k]));
  }
  bytes_.resize(static_cast<std::size_t>(p - bytes_.data()));
}

void BlockEncoder::append(std::span<const CounterRow> rows) {
  const std::size_t at = bytes_.size();
  bytes_.resize(at + rows.size() * kMaxCounterBytes);
  unsigned char* p = bytes_.data() + at;
  for (const CounterRow& c : rows) {
    *p++ = kCounterFlag;
    p = put_varint(p, zigzag(wrapping_sub(c.ts_ns, previous_start_)));
    previous_start_ = c.ts_ns;
    p = put_varint(p, c.track);
    const std::uint64_t bits = little_endian(std::bit_cast<std::uint64_t>(c.value));
    std::memcpy(p, &bits, 8);
    p += 8;
  }
  bytes_.resize(static_cast<std::size_t>(p - bytes_.data()));
}

void BlockEncoder::clear() {
  bytes_.assign(1, kBlockFormat);
  previous_start_ = 0;
}

bool decode_block(std::span<const unsigned char> block, DecodedBlock& out) {
  if (block.empty() || block[0] != kBlockFormat) return false;
  const std::size_t events_before = out.events.size();
  const std::size_t counters_before = out.counters.size();
  const auto fail = [&] {
    out.events.resize(events_before);
    out.counters.resize(counters_before);
    return false;
  };
  constexpr std::uint64_t kMaxId = std::numeric_limits<std::uint32_t>::max();
  const unsigned char* p = block.data() + 1;
  const unsigned char* end = block.data() + block.size();
  std::int64_t start = 0;
  while (p != end) {
    const unsigned char flags = *p++;
    std::uint64_t delta;
    if (!get_varint(p, end, delta)) return fail();
    start = wrapping_add(start, unzigzag(delta));
    if (flags == kCounterFlag) {
      std::uint64_t track;
      if (!get_varint(p, end, track) || track > kMaxId || end - p < 8) return fail();
      std::uint64_t bits;
      std::memcpy(&bits, p, 8);
      p += 8;
      out.counters.push_back(
          {static_cast<std::uint32_t>(track), start, std::bit_cast<double>(little_endian(bits))});
      continue;
    }
    if (flags > 0x0F) return fail();
    std::uint64_t dur, track, label;
    if (!get_varint(p, end, dur) || !get_varint(p, end, track) || !get_varint(p, end, label))
      return fail();
    if (dur > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
        track > kMaxId || label > kMaxId)
      return fail();
    EventRow r;
    r.start_ns = start;
    r.dur_ns = static_cast<std::int64_t>(dur);
    r.track = static_cast<std::uint32_t>(track);
    r.label = static_cast<std::uint32_t>(label);
    std::int64_t* optional[4] = {&r.step, &r.bytes, &r.work_size, &r.correlation};
    for (int k = 0; k < 4; ++k) {
      if ((flags & (1u << k)) == 0) continue;
      std::uint64_t v;
      if (!get_varint(p, end, v)) return fail();
      *optional[k] = unzigzag(v);
    }
    out.events.push_back(r);
  }
  return true;
}

}  // namespace ts::store
