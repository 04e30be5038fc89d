// Staged event blocks: during capture the writer stores events in event_block rows (one BLOB per
// commit, or per few MiB) instead of inserting them one by one into the indexed event table,
// which costs the traced machine several times more CPU. The rows are indexed into event,
// event_arg and step_span when capture stops; a reader indexes the blocks a killed capture left
// behind. A block is compact, about 12 bytes per event, because every byte staged is copied
// into SQLite's page cache, its write-ahead log and the file while training runs:
//
//   block   := 0x01 (event | counter)*
//   event   := flags zigzag(start_ns - previous start) varint(dur_ns) varint(track)
//              varint(label) [zigzag(step)] [zigzag(bytes)] [zigzag(work_size)]
//              [zigzag(correlation)]
//   counter := 0x10 zigzag(ts_ns - previous start) varint(track) value (8 bytes, IEEE double)
//
// Varints are LEB128 (7 bits per byte, low first); "previous start" is the previous record's
// start or counter time in the block (0 for the first). Flags bit k (k < 4) set means optional
// field k (step, bytes, work_size, correlation) is present, else it is NULL (kNull); the byte
// 0x10 starts a counter sample instead. All multi-byte values are little-endian.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "profiler/store/rows.hpp"

namespace ts::store {

inline constexpr unsigned char kBlockFormat = 1;

// Builds one block from rows appended over time.
class BlockEncoder {
 public:
  void append(std::span<const EventRow> rows);
  void append(std::span<const CounterRow> rows);
  bool empty() const { return bytes_.size() <= 1; }
  std::size_t size() const { return bytes_.size(); }
  const std::vector<unsigned char>& bytes() const { return bytes_; }
  void clear();

 private:
  std::vector<unsigned char> bytes_{kBlockFormat};
  std::int64_t previous_start_ = 0;
};

struct DecodedBlock {
  std::vector<EventRow> events;
  std::vector<CounterRow> counters;
  void clear() {
    events.clear();
    counters.clear();
  }
};

// Decodes a whole block into `out` (appended). Returns false, leaving `out` as it was, when the
// block is malformed (unknown format, a record cut short, a varint overflowing 64 bits, a
// duration or id out of range, unknown flags).
bool decode_block(std::span<const unsigned char> block, DecodedBlock& out);

}  // namespace ts::store
