// libFuzzer harness for the staged event blocks (profiler/store/event_block.hpp): the input is one
// block as an event_block row holds it, decoded with decode_block into rows already holding one
// event and one counter. A refused block must leave them as they were; a decoded one must encode
// again (BlockEncoder, events then counters) into a block that decodes to the same rows. Built by
// fuzz/CMakeLists.txt (clang, -fsanitize=fuzzer) and, as a regression test over the corpus, by
// tests/profiler/CMakeLists.txt (any compiler).
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "profiler/store/event_block.hpp"

namespace {

using ts::store::CounterRow;
using ts::store::DecodedBlock;
using ts::store::EventRow;

bool same(const EventRow& a, const EventRow& b) {
  return a.start_ns == b.start_ns && a.dur_ns == b.dur_ns && a.track == b.track &&
         a.label == b.label && a.step == b.step && a.bytes == b.bytes &&
         a.work_size == b.work_size && a.correlation == b.correlation;
}

// Values compared bit for bit: a NaN must come back as the same NaN.
bool same(const CounterRow& a, const CounterRow& b) {
  return a.track == b.track && a.ts_ns == b.ts_ns &&
         std::bit_cast<std::uint64_t>(a.value) == std::bit_cast<std::uint64_t>(b.value);
}

template <class Row>
bool same(std::span<const Row> a, std::span<const Row> b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same(a[i], b[i])) return false;
  return true;
}

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fuzz_event_block: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const EventRow first_event{7, 3, 1, 2, 5, ts::store::kNull, 64, 9};
  const CounterRow first_counter{3, 11, 0.5};
  DecodedBlock out;
  out.events.push_back(first_event);
  out.counters.push_back(first_counter);
  const std::span<const unsigned char> block(data, size);
  if (!ts::store::decode_block(block, out)) {
    if (out.events.size() != 1 || out.counters.size() != 1 || !same(out.events[0], first_event) ||
        !same(out.counters[0], first_counter))
      fail("a refused block changed the rows");
    return 0;
  }
  if (out.events.empty() || out.counters.empty() || !same(out.events[0], first_event) ||
      !same(out.counters[0], first_counter))
    fail("decoding changed the rows it appends to");
  const std::span<const EventRow> events(out.events.begin() + 1, out.events.end());
  const std::span<const CounterRow> counters(out.counters.begin() + 1, out.counters.end());

  ts::store::BlockEncoder encoder;
  encoder.append(events);
  encoder.append(counters);
  if (encoder.empty() != (events.empty() && counters.empty())) fail("empty() is wrong");
  DecodedBlock again;
  if (!ts::store::decode_block(encoder.bytes(), again)) fail("an encoded block was refused");
  if (!same(std::span<const EventRow>(again.events), events) ||
      !same(std::span<const CounterRow>(again.counters), counters))
    fail("the rows changed on encoding and decoding again");
  return 0;
}
