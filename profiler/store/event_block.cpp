#include "profiler/store/event_block.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "profiler/store/varint.hpp"

namespace ts::store {

namespace {

using varint::unzigzag;
using varint::wrapping_add;
using varint::wrapping_sub;
using varint::zigzag;

constexpr unsigned char kCounterFlag = 0x10;
constexpr std::size_t kMaxVarint = varint::kMaxBytes;
constexpr std::size_t kMaxEventBytes = 8 * kMaxVarint + 1;
constexpr std::size_t kMaxCounterBytes = 2 * kMaxVarint + 1 + 8;

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
    p = varint::put(p, zigzag(wrapping_sub(r.start_ns, previous_start_)));
    previous_start_ = r.start_ns;
    // A duration is never negative (a hostile importer's row ends at its start).
    p = varint::put(p, static_cast<std::uint64_t>(std::max<std::int64_t>(r.dur_ns, 0)));
    p = varint::put(p, r.track);
    p = varint::put(p, r.label);
    for (int k = 0; k < 4; ++k)
      if (optional[k] != kNull) p = varint::put(p, zigzag(optional[k]));
  }
  bytes_.resize(static_cast<std::size_t>(p - bytes_.data()));
}

void BlockEncoder::append(std::span<const CounterRow> rows) {
  const std::size_t at = bytes_.size();
  bytes_.resize(at + rows.size() * kMaxCounterBytes);
  unsigned char* p = bytes_.data() + at;
  for (const CounterRow& c : rows) {
    *p++ = kCounterFlag;
    p = varint::put(p, zigzag(wrapping_sub(c.ts_ns, previous_start_)));
    previous_start_ = c.ts_ns;
    p = varint::put(p, c.track);
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
    if (!varint::get(p, end, delta)) return fail();
    start = wrapping_add(start, unzigzag(delta));
    if (flags == kCounterFlag) {
      std::uint64_t track;
      if (!varint::get(p, end, track) || track > kMaxId || end - p < 8) return fail();
      std::uint64_t bits;
      std::memcpy(&bits, p, 8);
      p += 8;
      out.counters.push_back(
          {static_cast<std::uint32_t>(track), start, std::bit_cast<double>(little_endian(bits))});
      continue;
    }
    if (flags > 0x0F) return fail();
    std::uint64_t dur, track, label;
    if (!varint::get(p, end, dur) || !varint::get(p, end, track) || !varint::get(p, end, label))
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
      if (!varint::get(p, end, v)) return fail();
      *optional[k] = unzigzag(v);
    }
    out.events.push_back(r);
  }
  return true;
}

}  // namespace ts::store
