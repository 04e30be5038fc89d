// What the tokenizer makes of a file: flat event records with interned strings, counter samples,
// the file's metadata, and how the parse ended. Compact on purpose (a 350 MB trace holds about
// a million events): 48 bytes per event, stored in chunks so that growing never copies.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "profiler/import/chrome/interner.hpp"
#include "profiler/import/common/device_properties.hpp"
#include "profiler/import/common/none.hpp"
#include "profiler/import/common/skip_reasons.hpp"

namespace ts::import {

// A pid or tid: a number, or an interned string ("Spans", "GPU 0 Counters", "CPU functions").
struct Ident {
  std::int64_t num = 0;
  std::uint32_t str = 0;  // interned text; 0: numeric
  bool operator==(const Ident&) const = default;
};

struct ThreadKey {
  Ident pid, tid;
  bool operator==(const ThreadKey&) const = default;
};

// args.kind of a copy ("HtoD", ...), for copies whose name does not say it (ROCm).
enum class CopyKind : std::uint8_t { none, h2d, d2h, other };

struct RawEvent {
  std::int64_t ts = kNone;           // ns, relative to baseTimeNanoseconds until the mapper adds it
  std::int64_t dur = kNone;          // ns; kNone: no "dur"
  std::int64_t correlation = kNone;  // args.correlation
  std::int64_t bytes = kNone;        // args.bytes, or NCCL "In msg nelems" x dtype size
  std::uint32_t name = 0;            // interned
  std::uint32_t cat = 0;             // interned; 0: none
  std::uint32_t thread = 0;          // index into ParsedFile::threads
  char ph = 0;                       // 'X', 'B', 'E'; 0 once the mapper dropped it
  CopyKind copy_kind = CopyKind::none;
  std::uint8_t device_args = 0;  // 1 when args has numeric "device" and "stream"
};
static_assert(sizeof(RawEvent) == 48);

// Storage in chunks of kChunk elements: appending moves at most the first chunk (while it grows),
// and chunks can be handed between the parts of a parse and freed one by one while they are
// converted.
template <class T>
class Chunked {
 public:
  static constexpr std::size_t kChunk = 65536;
  void push_back(const T& v) {
    if (chunks_.empty() || chunks_.back().size() == kChunk) {
      chunks_.emplace_back();
      // The first chunk grows as it fills (small files stay small); the others hold kChunk.
      if (chunks_.size() > 1) chunks_.back().reserve(kChunk);
    }
    chunks_.back().push_back(v);
    ++size_;
  }
  std::size_t size() const { return size_; }
  std::vector<std::vector<T>>& chunks() { return chunks_; }
  const std::vector<std::vector<T>>& chunks() const { return chunks_; }
  void append(Chunked&& other) {
    for (auto& c : other.chunks_) chunks_.push_back(std::move(c));
    size_ += other.size_;
    other.chunks_.clear();
    other.size_ = 0;
  }
  template <class Fn>
  void for_each(Fn&& fn) {
    for (auto& c : chunks_)
      for (T& v : c) fn(v);
  }

 private:
  std::vector<std::vector<T>> chunks_;
  std::size_t size_ = 0;
};

struct RawCounter {
  std::int64_t ts = 0;     // ns, relative like RawEvent::ts
  std::uint32_t name = 0;  // interned counter track name, e.g. "GPU 0 memory allocated"
  double value = 0;
};

// The older Kineto `[memory]` form, with `Bytes` only: one allocation (> 0) or free (< 0). The
// mapper sums them per track in time order into RawCounter samples of the memory allocated.
struct RawMemoryDelta {
  std::int64_t ts = 0;     // ns, relative like RawEvent::ts
  std::uint32_t name = 0;  // interned counter track name, as RawCounter::name
  double bytes = 0;
};

// How the parse of a file (or of one part of it) ended.
enum class ParseEnd : std::uint8_t {
  complete,
  truncated,     // the input ended inside the JSON
  syntax_error,  // invalid JSON before the end
  too_deep,      // nesting beyond the limit
  gzip_error,    // corrupt compressed data
  limit,         // a speculative part reached its end exactly between two events
};

struct ParsedFile {
  Interner strings;
  std::vector<ThreadKey> threads;
  Chunked<RawEvent> events;  // in file order
  std::vector<RawCounter> counters;
  std::vector<RawMemoryDelta> memory_deltas;  // in file order

  // Top-level keys.
  bool object_format = false;  // {"traceEvents": [...]} rather than a bare array
  bool kineto_keys = false;    // schemaVersion, deviceProperties, distributedInfo or baseTime
  std::optional<std::int64_t> base_time_ns, rank, world_size;
  std::string backend, host_name, display_time_unit, trace_name;
  std::vector<std::string> device_names;
  std::vector<DeviceProperties> devices;  // deviceProperties, in file order
  // Complete events carrying args "est. achieved occupancy %" (Kineto's kernels): the sum of
  // occupancy x duration, and of their durations (ns), for the time-weighted mean.
  double occupancy_weighted_ns = 0, occupancy_ns = 0;

  // "M" metadata.
  std::vector<std::pair<Ident, std::string>> process_names, process_labels;  // by pid
  std::vector<std::pair<std::uint32_t, std::string>> thread_names;           // by thread index

  SkipCounts skipped;
  std::uint64_t events_read = 0;
  std::uint64_t bytes = 0;  // JSON bytes read
  ParseEnd end = ParseEnd::complete;
  std::uint64_t error_offset = 0;  // where a syntax error was found
  std::string error;               // RapidJSON's message for it
};

}  // namespace ts::import
