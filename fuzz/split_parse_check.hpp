// Shared by the Chrome/Kineto JSON harnesses: a parse of a file compared with its speculative
// parallel parse (parse_file.hpp), which must give exactly the same events.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "profiler/import/chrome/parse_file.hpp"
#include "profiler/import/import.hpp"

namespace ts::fuzz {

// A ParsedFile with its ids resolved to text, for comparing two parses.
inline std::string describe(const ts::import::ParsedFile& f) {
  using namespace ts::import;
  std::string out;
  const auto ident = [&](const Ident& i) {
    return i.str != 0 ? "s:" + std::string(f.strings.text(i.str)) : std::to_string(i.num);
  };
  for (const auto& chunk : f.events.chunks())
    for (const RawEvent& e : chunk) {
      out += e.ph;
      out += '|';
      out += f.strings.text(e.name);
      out += '|';
      out += f.strings.text(e.cat);
      out += '|' + ident(f.threads[e.thread].pid) + '|' + ident(f.threads[e.thread].tid) + '|' +
             std::to_string(e.ts) + '|' + std::to_string(e.dur) + '|' +
             std::to_string(e.correlation) + '|' + std::to_string(e.bytes) + '\n';
    }
  for (const RawCounter& c : f.counters) {
    out += f.strings.text(c.name);
    out += '|' + std::to_string(c.ts) + '|' + std::to_string(c.value) + '\n';
  }
  out += std::to_string(static_cast<int>(f.end)) + '|' + std::to_string(f.error_offset) + '|' +
         std::to_string(f.events_read) + '|' + std::to_string(f.bytes) + '|' +
         std::to_string(f.base_time_ns.value_or(-1)) + '|' + std::to_string(f.rank.value_or(-1));
  for (const std::uint64_t n : f.skipped.n) out += '|' + std::to_string(n);
  return out;
}

inline void compare_split_parse(const std::string& path) {
  std::string sequential, parallel;
  try {
    sequential = describe(ts::import::parse_file(path, 1));
  } catch (const ts::import::ImportError& e) {
    sequential = std::string("error: ") + e.what();
  }
  try {
    parallel = describe(ts::import::parse_file(path, 4, 64));
  } catch (const ts::import::ImportError& e) {
    parallel = std::string("error: ") + e.what();
  }
  if (sequential != parallel) {
    std::fprintf(stderr, "parallel parse differs:\n--- sequential\n%s\n--- parallel\n%s\n",
                 sequential.c_str(), parallel.c_str());
    std::abort();
  }
}

}  // namespace ts::fuzz
