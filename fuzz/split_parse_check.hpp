// Shared by the Chrome/Kineto JSON harnesses: a parse of a file compared with its speculative
// parallel parse and with its parse by RapidJSON alone (parse_file.hpp: EventScan reads the plain
// elements otherwise), which must all give exactly the same events; and the file gzipped, parsed
// in two parts (the second inflating past the first) against its parse in one.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>

#include "profiler/import/chrome/parse_file.hpp"
#include "profiler/import/import.hpp"
#include "tests/gzip_member.hpp"

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

// parse_file's result as text, or its error.
inline std::string parsed(const std::string& path, int threads, std::uint64_t min_part_bytes,
                          ts::import::ElementReading reading) {
  try {
    return describe(ts::import::parse_file(path, threads, min_part_bytes, reading));
  } catch (const ts::import::ImportError& e) {
    return std::string("error: ") + e.what();
  }
}

// The bytes of the file at `path` as one gzip member, written to `path`.gz; false when it is
// already gzip.
inline bool write_gzip_copy(const std::string& path, std::string& gz_path) {
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.size() >= 2 && text[0] == '\x1f' && text[1] == '\x8b') return false;
  const std::string out = ts::test::gzip_member(text, 6);
  gz_path = path + ".gz";
  std::ofstream(gz_path, std::ios::binary | std::ios::trunc) << out;
  return true;
}

inline void compare_split_parse(const std::string& path) {
  using ts::import::ElementReading;
  const std::string sequential =
      parsed(path, 1, ts::import::kMinPartBytes, ElementReading::scan_plain);
  const std::string parallel = parsed(path, 4, 64, ElementReading::scan_plain);
  const std::string rapidjson =
      parsed(path, 1, ts::import::kMinPartBytes, ElementReading::rapidjson_only);
  for (const auto& [what, other] : {std::pair{"parallel", &parallel}, {"RapidJSON's", &rapidjson}})
    if (sequential != *other) {
      std::fprintf(stderr, "%s parse differs:\n--- sequential\n%s\n--- %s\n%s\n", what,
                   sequential.c_str(), what, other->c_str());
      std::abort();
    }
  std::string gz_path;
  if (!write_gzip_copy(path, gz_path)) return;
  const std::string gz_one =
      parsed(gz_path, 1, ts::import::kMinPartBytes, ElementReading::scan_plain);
  const std::string gz_two = parsed(gz_path, 2, 64, ElementReading::scan_plain);
  if (gz_one != gz_two) {
    std::fprintf(stderr, "gzip parse in two parts differs:\n--- one\n%s\n--- two\n%s\n",
                 gz_one.c_str(), gz_two.c_str());
    std::abort();
  }
}

}  // namespace ts::fuzz
