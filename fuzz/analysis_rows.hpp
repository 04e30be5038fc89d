// The input of fuzz_analysis_rows: any bytes read as a list of writer calls (rows of every table
// of a trace), and the encoder the seeds are written with (make_store_seeds). Every byte string
// decodes: the call that the end of the input cuts off is left out.
//
//   input   := flags:u8 option:varint call*
//   call    := op:u8 (op % 8 picks one)
//     0 string   id:varint text
//     1 label    id:varint name:varint category:u8 file:varint line:opt
//     2 track    id:varint name:text' kind:u8 os_tid:opt process:opt
//     3 process  id:varint name:text rank:opt pid:opt host:text
//     4 meta     key:u8 (an index into kMetaKeys; beyond it, a text follows) value:text
//     5 events   n:u8, n x (start:zigzag, a delta from the previous start; dur:zigzag;
//                track:varint label:varint step:opt bytes:opt work_size:opt correlation:opt)
//     6 counters n:u8, n x (track:varint ts:zigzag, a delta from the previous sample;
//                value: u8 0 then zigzag as a whole number, else 8 raw bytes of a double)
//     7 commit
//   text    := len:varint bytes (len > 0)
//              | 0 repeat:varint len:varint bytes, the bytes repeated `repeat` times (at most
//                1 MiB in all): a few bytes make a name longer than the reader's cap
//   text'   := u8 s: s < kTrackNames.size() picks a name analysis looks for, else a text
//   opt     := varint v: 0 is kNull (SQL NULL), v > 0 is zigzag(v - 1)
//   flags   := bit 0 staged writer; bit 1 read while the writer is still open (a killed
//              capture: committed, not finished); bits 2-3 the analysis options: 0 defaults,
//              1 skip `option` warm-up steps, 2 steps [option / 256 % 65536, option % 256],
//              3 `option % 8` threads
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "profiler/store/rows.hpp"
#include "trainscope/meta_keys.hpp"
#include "trainscope/taxonomy.hpp"

namespace ts::fuzz {

inline constexpr std::array<const char*, 14> kMetaKeys = {
    meta_key::kClockOriginNs,     meta_key::kFitEpochFirstSteps,
    meta_key::kFitSteps,          meta_key::kHostCores,
    meta_key::kPipelineCache,     meta_key::kPipelineOptions,
    meta_key::kPipelineParallel,  meta_key::kPipelinePrefetch,
    meta_key::kEngineBatch,       meta_key::kAnalysisTrainerTracks,
    meta_key::kCaptureEventsLost, meta_key::kCaptureWriteError,
    meta_key::kDroppedEvents,     meta_key::kStepsSource};

// Track names the analysis gives a meaning to.
inline constexpr std::array<const char*, 4> kTrackNames = {
    "prefetch buffer fill", "host CPU (cores busy)", "trainer", "gpu stream 7"};

struct StringCall {
  std::uint32_t id = 0;
  std::string text;
};
struct LabelCall {
  std::uint32_t id = 0, name = 0;
  std::uint8_t category = 0;
  std::uint32_t file = 0;
  std::int64_t line = store::kNull;
};
struct TrackCall {
  std::uint32_t id = 0;
  std::string name;
  std::uint8_t kind = 0;
  std::int64_t os_tid = store::kNull, process = store::kNull;
};
struct ProcessCall {
  std::uint32_t id = 0;
  std::string name;
  std::int64_t rank = store::kNull, pid = store::kNull;
  std::string host;
};
struct MetaCall {
  std::string key, value;
};
struct CommitCall {};
using Call = std::variant<StringCall, LabelCall, TrackCall, ProcessCall, MetaCall,
                          std::vector<store::EventRow>, std::vector<store::CounterRow>, CommitCall>;

struct RowsInput {
  std::uint8_t flags = 0;
  std::uint64_t option = 0;
  std::vector<Call> calls;
};

class RowsDecoder {
 public:
  RowsDecoder(const std::uint8_t* data, std::size_t size) : p_(data), end_(data + size) {}

  RowsInput decode() {
    RowsInput in;
    in.flags = u8();
    in.option = varint();
    while (p_ < end_) {
      const std::uint8_t op = u8() % 8;
      Call call = one(op);
      if (short_) break;  // a call cut off by the end of the input is left out
      in.calls.push_back(std::move(call));
    }
    return in;
  }

 private:
  static constexpr std::size_t kMaxText = std::size_t{1} << 20;

  Call one(std::uint8_t op) {
    switch (op) {
      case 0: {
        StringCall c;
        c.id = id();
        c.text = text();
        return c;
      }
      case 1: {
        LabelCall c;
        c.id = id();
        c.name = id();
        c.category = u8();
        c.file = id();
        c.line = opt();
        return c;
      }
      case 2: {
        TrackCall c;
        c.id = id();
        const std::uint8_t s = u8();
        c.name = s < kTrackNames.size() ? std::string(kTrackNames[s]) : text();
        c.kind = u8();
        c.os_tid = opt();
        c.process = opt();
        return c;
      }
      case 3: {
        ProcessCall c;
        c.id = id();
        c.name = text();
        c.rank = opt();
        c.pid = opt();
        c.host = text();
        return c;
      }
      case 4: {
        MetaCall c;
        const std::uint8_t k = u8();
        c.key = k < kMetaKeys.size() ? std::string(kMetaKeys[k]) : text();
        c.value = text();
        return c;
      }
      case 5: {
        std::vector<store::EventRow> rows(u8());
        for (store::EventRow& r : rows) {
          start_ = store::sat_add(start_, zigzag());
          r.start_ns = start_;
          r.dur_ns = zigzag();
          r.track = id();
          r.label = id();
          r.step = opt();
          r.bytes = opt();
          r.work_size = opt();
          r.correlation = opt();
        }
        return rows;
      }
      case 6: {
        std::vector<store::CounterRow> rows(u8());
        for (store::CounterRow& r : rows) {
          r.track = id();
          ts_ = store::sat_add(ts_, zigzag());
          r.ts_ns = ts_;
          if (u8() == 0) {
            r.value = static_cast<double>(zigzag());
          } else {
            const std::uint64_t bits = fixed64();
            std::memcpy(&r.value, &bits, sizeof bits);
          }
        }
        return rows;
      }
      default:
        return CommitCall{};
    }
  }

  std::uint8_t u8() {
    if (p_ == end_) {
      short_ = true;
      return 0;
    }
    return *p_++;
  }
  std::uint64_t varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const std::uint8_t b = u8();
      v |= std::uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) break;
    }
    return v;
  }
  std::uint64_t fixed64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t{u8()} << (8 * i);
    return v;
  }
  std::uint32_t id() { return static_cast<std::uint32_t>(varint()); }
  static std::int64_t unzigzag(std::uint64_t v) {
    return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
  }
  std::int64_t zigzag() { return unzigzag(varint()); }
  std::int64_t opt() {
    const std::uint64_t v = varint();
    return v == 0 ? store::kNull : unzigzag(v - 1);
  }
  std::string text() {
    const std::uint64_t n = varint();
    if (n == 0) {
      const std::uint64_t repeat = varint();
      const std::string unit = literal(varint());
      std::string out;
      if (unit.empty()) return out;
      const std::uint64_t times = std::min<std::uint64_t>(repeat, kMaxText / unit.size());
      out.reserve(static_cast<std::size_t>(times) * unit.size());
      for (std::uint64_t i = 0; i < times; ++i) out += unit;
      return out;
    }
    return literal(n);
  }
  std::string literal(std::uint64_t n) {
    const auto left = static_cast<std::uint64_t>(end_ - p_);
    if (n > left) short_ = true;
    const auto take = static_cast<std::size_t>(std::min(n, left));
    std::string s(reinterpret_cast<const char*>(p_), take);
    p_ += take;
    return s;
  }

  const std::uint8_t* p_;
  const std::uint8_t* end_;
  bool short_ = false;
  std::int64_t start_ = 1'000'000'000;  // events and counters start at t = 1 s
  std::int64_t ts_ = 1'000'000'000;
};

// Writes what RowsDecoder reads (for seeds), taking the calls of store::Writer.
class RowsEncoder {
 public:
  RowsEncoder(std::uint8_t flags, std::uint64_t option) {
    bytes_.push_back(static_cast<char>(flags));
    varint(option);
  }
  const std::string& bytes() const { return bytes_; }

  void put_string(std::uint32_t id, std::string_view text) {
    op(0);
    varint(id);
    literal(text);
  }
  void put_label(std::uint32_t id, std::uint32_t name, trace::Category category,
                 std::uint32_t file = 0, std::int64_t line = store::kNull) {
    op(1);
    varint(id);
    varint(name);
    byte(static_cast<std::uint8_t>(category));
    varint(file);
    opt(line);
  }
  void put_track(std::uint32_t id, std::string_view name, trace::TrackKind kind,
                 std::int64_t os_tid = store::kNull, std::int64_t process = store::kNull) {
    op(2);
    varint(id);
    known_or_literal(kTrackNames, name);
    byte(static_cast<std::uint8_t>(kind));
    opt(os_tid);
    opt(process);
  }
  void put_process(std::uint32_t id, std::string_view name, std::int64_t rank = store::kNull,
                   std::int64_t pid = store::kNull, std::string_view host = {}) {
    op(3);
    varint(id);
    literal(name);
    opt(rank);
    opt(pid);
    literal(host);
  }
  void put_meta(std::string_view key, std::string_view value) {
    op(4);
    known_or_literal(kMetaKeys, key);
    literal(value);
  }
  // At most 255 rows a call; starts are kept as deltas from the previous event's.
  void append(std::span<const store::EventRow> rows) {
    for (std::size_t i = 0; i < rows.size(); i += 255) {
      const std::size_t n = std::min<std::size_t>(255, rows.size() - i);
      op(5);
      byte(static_cast<std::uint8_t>(n));
      for (const store::EventRow& r : rows.subspan(i, n)) {
        zigzag(r.start_ns - start_);
        start_ = r.start_ns;
        zigzag(r.dur_ns);
        varint(r.track);
        varint(r.label);
        opt(r.step);
        opt(r.bytes);
        opt(r.work_size);
        opt(r.correlation);
      }
    }
  }
  void append(std::span<const store::CounterRow> rows) {
    for (std::size_t i = 0; i < rows.size(); i += 255) {
      const std::size_t n = std::min<std::size_t>(255, rows.size() - i);
      op(6);
      byte(static_cast<std::uint8_t>(n));
      for (const store::CounterRow& r : rows.subspan(i, n)) {
        varint(r.track);
        zigzag(r.ts_ns - ts_);
        ts_ = r.ts_ns;
        byte(1);  // the value's 8 bytes
        std::uint64_t bits = 0;
        std::memcpy(&bits, &r.value, sizeof bits);
        for (int b = 0; b < 8; ++b) byte(static_cast<std::uint8_t>(bits >> (8 * b)));
      }
    }
  }
  void commit() { op(7); }

 private:
  void op(std::uint8_t code) { byte(code); }
  void byte(std::uint8_t b) { bytes_.push_back(static_cast<char>(b)); }
  void varint(std::uint64_t v) {
    while (v >= 0x80) {
      byte(static_cast<std::uint8_t>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    byte(static_cast<std::uint8_t>(v));
  }
  static std::uint64_t zigzag_of(std::int64_t v) {
    return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
  }
  void zigzag(std::int64_t v) { varint(zigzag_of(v)); }
  void opt(std::int64_t v) { varint(v == store::kNull ? 0 : zigzag_of(v) + 1); }
  // Texts are written as literals (a length of 0 is a repetition: an empty text is nothing
  // repeated zero times).
  void literal(std::string_view s) {
    varint(s.size());
    if (s.empty()) {
      varint(0);
      varint(0);
    }
    bytes_.append(s);
  }
  template <std::size_t N>
  void known_or_literal(const std::array<const char*, N>& known, std::string_view s) {
    const auto it = std::find(known.begin(), known.end(), s);
    if (it != known.end()) {
      byte(static_cast<std::uint8_t>(it - known.begin()));
      return;
    }
    byte(0xff);
    literal(s);
  }

  std::string bytes_;
  std::int64_t start_ = 1'000'000'000;
  std::int64_t ts_ = 1'000'000'000;
};

}  // namespace ts::fuzz
