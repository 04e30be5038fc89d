// What the import harnesses share: writing the fuzzer's input to a file, and reading back every
// row of the trace an import made (events with their names and args, steps, counters, meta,
// processes), as every trainscope command would, so that a bad row the importer wrote shows up.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "profiler/store/reader.hpp"

namespace ts::fuzz {

inline void write_input(const std::string& path, const std::uint8_t* data, std::size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();
  if (size > 0) std::fwrite(data, 1, size, f);
  std::fclose(f);
}

inline void read_imported_trace(const std::string& db) {
  const store::Reader r(db);
  const store::TimeRange range = r.time_range();
  std::uint64_t sum = 0;
  r.scan(range.start_ns, range.end_ns + 1, 0, [&](const store::Event& e) {
    if (e.dur_ns < 0) std::abort();  // an importer never writes a negative duration
    sum += static_cast<std::uint64_t>(e.dur_ns) + r.name(e).size();
    sum += static_cast<std::uint64_t>(r.args(e).correlation);
  });
  for (const store::Step& s : r.steps()) sum += static_cast<std::uint64_t>(s.step);
  for (const store::Track& t : r.tracks())
    if (t.kind == trace::TrackKind::counter)
      sum += r.counter(t.id, range.start_ns, range.end_ns + 1).size();
  sum += r.meta().size() + r.processes().size();
  if (sum == 42) std::fputc(' ', stderr);  // keeps the reads from being optimised away
}

}  // namespace ts::fuzz
