#include "profiler/analysis/step_table.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "profiler/analysis/step_breakdown.hpp"
#include "profiler/store/varint.hpp"

namespace ts::analysis {

namespace {

namespace varint = store::varint;

using varint::wrapping_add;
using varint::wrapping_sub;

// fn(figure, predicted) for each figure of a step but its number, start and time, in the order
// of their mask bits: a figure is coded only when it is not what the figures before it predict
// (the parts sum to the step's time, the input time is its wait and copies, idle time is the
// step's time less busy, ...), and then as its difference from that.
template <class S, class Fn>
void each_figure(S& s, std::int64_t rank_base, std::int64_t epoch_base, Fn&& fn) {
  std::int64_t parts = 0;
  for (int p = 0; p + 1 < kPartCount; ++p) {
    fn(s.parts.ns[p], 0);
    parts = wrapping_add(parts, s.parts.ns[p]);
  }
  fn(s.parts.ns[kPartCount - 1], wrapping_sub(s.dur_ns, parts));
  fn(s.input_ns, wrapping_add(s.parts[Part::input_wait], s.parts[Part::h2d]));
  fn(s.device_busy_ns, wrapping_add(s.parts[Part::device_compute], s.parts[Part::collective]));
  std::int64_t idle = 0;
  for (int c = 0; c + 1 < kIdleCauseCount; ++c) {
    fn(s.idle_by_cause_ns[c], 0);
    idle = wrapping_add(idle, s.idle_by_cause_ns[c]);
  }
  fn(s.idle_by_cause_ns[kIdleCauseCount - 1],
     wrapping_sub(wrapping_sub(s.dur_ns, s.device_busy_ns), idle));
  fn(s.h2d_all_ns, s.parts[Part::h2d]);
  fn(s.input_wait_all_ns, s.parts[Part::input_wait]);
  fn(s.input_work_in_wait_ns, 0);
  fn(s.rank_index, rank_base);
  fn(s.epoch, epoch_base);
}
constexpr int kFigures = kPartCount + 2 + kIdleCauseCount + 5;
static_assert(kFigures <= 64);

enum Flag : unsigned char {
  kInputBound = 1,
  kVerdictShift = 1,  // two bits: Verdict
  kWarmup = 8,
  kDeviceSampled = 16,
  kOwnInputPct = 32,  // input_pct is not percent(input_ns, dur_ns): its 8 bytes follow
};

[[noreturn]] void undecodable() {
  throw std::logic_error("packed steps do not decode");
}

// Most figures take one byte: that case first, inline (a step is read on every pass over them).
inline std::uint64_t get_unsigned(const unsigned char*& p, const unsigned char* end) {
  if (p != end && *p < 0x80) return *p++;
  std::uint64_t v = 0;
  if (!varint::get(p, end, v)) undecodable();
  return v;
}

inline std::int64_t get_signed(const unsigned char*& p, const unsigned char* end) {
  return varint::unzigzag(get_unsigned(p, end));
}

}  // namespace

StepTable::StepTable(std::span<const StepSummary> steps) {
  reserve(steps.size());
  for (const StepSummary& s : steps) push_back(s);
  shrink_to_fit();
}

void StepTable::encode(const StepSummary& s, const Chunk& c, std::string& out) const {
  std::uint64_t mask = 0;
  std::uint64_t deltas[kFigures];
  int bit = 0, coded = 0;
  each_figure(s, c.rank_index, c.epoch, [&](const auto& v, std::int64_t predicted) {
    if (v != predicted) {
      mask |= std::uint64_t{1} << bit;
      deltas[coded++] = varint::zigzag(wrapping_sub(v, predicted));
    }
    ++bit;
  });
  varint::append(out, mask);
  varint::append(out, varint::zigzag(wrapping_sub(s.step, c.step)));
  varint::append(out, varint::zigzag(wrapping_sub(s.start_ns, c.start_ns)));
  varint::append(out, varint::zigzag(s.dur_ns));
  for (int k = 0; k < coded; ++k) varint::append(out, deltas[k]);
  const double derived = percent(s.input_ns, s.dur_ns);
  const bool own_pct = std::memcmp(&derived, &s.input_pct, sizeof derived) != 0;
  unsigned char flags = static_cast<unsigned char>(
      (s.input_bound ? kInputBound : 0) |
      (static_cast<unsigned>(s.input_verdict) << kVerdictShift) | (s.warmup ? kWarmup : 0) |
      (s.device_sampled ? kDeviceSampled : 0) | (own_pct ? kOwnInputPct : 0));
  out.push_back(static_cast<char>(flags));
  if (own_pct) out.append(reinterpret_cast<const char*>(&s.input_pct), sizeof s.input_pct);
}

StepSummary StepTable::operator[](std::size_t i) const {
  const Chunk& c = chunks_[i / kChunk];
  const std::string& page = pages_[c.page];
  const auto* data = reinterpret_cast<const unsigned char*>(page.data());
  const unsigned char* p = data + c.begin + offsets_[i];
  const unsigned char* end = data + page.size();
  StepSummary s;
  const std::uint64_t mask = get_unsigned(p, end);
  s.step = wrapping_add(c.step, get_signed(p, end));
  s.start_ns = wrapping_add(c.start_ns, get_signed(p, end));
  s.dur_ns = get_signed(p, end);
  int bit = 0;
  each_figure(s, c.rank_index, c.epoch, [&](auto& v, std::int64_t predicted) {
    const std::int64_t value =
        mask >> bit++ & 1 ? wrapping_add(predicted, get_signed(p, end)) : predicted;
    v = static_cast<std::remove_reference_t<decltype(v)>>(value);
  });
  if (p == end) undecodable();
  const unsigned char flags = *p++;
  s.input_bound = (flags & kInputBound) != 0;
  s.input_verdict = static_cast<Verdict>(flags >> kVerdictShift & 3);
  s.warmup = (flags & kWarmup) != 0;
  s.device_sampled = (flags & kDeviceSampled) != 0;
  if (flags & kOwnInputPct) {
    if (end - p < static_cast<std::ptrdiff_t>(sizeof s.input_pct)) undecodable();
    std::memcpy(&s.input_pct, p, sizeof s.input_pct);
  } else {
    s.input_pct = percent(s.input_ns, s.dur_ns);
  }
  return s;
}

StepSummary StepTable::at(std::size_t i) const {
  if (i >= size()) throw std::out_of_range("StepTable::at: no step " + std::to_string(i));
  return (*this)[i];
}

void StepTable::push_back(const StepSummary& s) {
  if (size() % kChunk == 0) {
    if (pages_.empty()) new_page();
    chunks_.push_back({static_cast<std::uint32_t>(pages_.size() - 1),
                       static_cast<std::uint32_t>(pages_.back().size()), s.step, s.start_ns,
                       s.rank_index, s.epoch});
  }
  Chunk& c = chunks_.back();
  // No room for the longest step: the chunk moves to a page of its own (pages never grow).
  if (pages_[c.page].capacity() - pages_[c.page].size() < kMostStepBytes) {
    const std::string moved = pages_[c.page].substr(c.begin);
    pages_[c.page].resize(c.begin);
    new_page();
    pages_.back() += moved;
    c.page = static_cast<std::uint32_t>(pages_.size() - 1);
    c.begin = 0;
  }
  std::string& page = pages_[c.page];
  offsets_.push_back(static_cast<std::uint16_t>(page.size() - c.begin));
  encode(s, c, page);
}

void StepTable::new_page() {
  pages_.emplace_back().reserve(kPageBytes);
}

void StepTable::append(const StepTable& later) {
  if (&later == this) {
    const StepTable copy = later;
    append(copy);
    return;
  }
  reserve(size() + later.size());
  for (std::size_t i = 0; i < later.size(); ++i) push_back(later[i]);
}

void StepTable::set(std::size_t i, const StepSummary& s) {
  std::size_t k = 0;
  update([&](StepSummary& step) {
    if (k++ == i) step = s;
  });
}

void StepTable::reserve(std::size_t steps) {
  offsets_.reserve(steps);
  chunks_.reserve((steps + kChunk - 1) / kChunk);
}

void StepTable::clear() {
  pages_.clear();
  offsets_.clear();
  chunks_.clear();
}

void StepTable::shrink_to_fit() {
  if (!pages_.empty()) pages_.back().shrink_to_fit();
  pages_.shrink_to_fit();
  offsets_.shrink_to_fit();
  chunks_.shrink_to_fit();
}

std::vector<StepSummary> StepTable::to_vector() const {
  return {begin(), end()};
}

std::size_t StepTable::memory_bytes() const {
  std::size_t n = pages_.capacity() * sizeof(std::string) +
                  offsets_.capacity() * sizeof(std::uint16_t) + chunks_.capacity() * sizeof(Chunk);
  for (const std::string& page : pages_) n += page.capacity();
  return n;
}

bool operator==(const StepTable& a, const StepTable& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const StepSummary x = a[i], y = b[i];
    std::string cx, cy;
    const StepTable::Chunk base{};
    a.encode(x, base, cx);
    b.encode(y, base, cy);
    if (cx != cy) return false;
  }
  return true;
}

}  // namespace ts::analysis
