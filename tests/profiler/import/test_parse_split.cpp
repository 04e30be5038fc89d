// A plain file parsed in speculative parallel parts gives exactly what a sequential parse gives,
// whatever bytes the guessed cuts land on; and the import's reading of plain elements
// (EventScan) gives exactly what RapidJSON's reading of every element gives.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <random>

#include "profiler/import/chrome/parse_file.hpp"
#include "tests/gzip_member.hpp"
#include "tests/profiler/import/import_test_util.hpp"

namespace ts::import {
namespace {

using test::ImportDir;

// What a ParsedFile says, with ids resolved to text (ids differ between the two parses).
struct Flat {
  std::vector<std::string> events;
  std::vector<std::string> counters;
  std::string meta;
  bool operator==(const Flat&) const = default;
};

std::string ident(const ParsedFile& f, const Ident& i) {
  return i.str != 0 ? "s:" + std::string(f.strings.text(i.str)) : std::to_string(i.num);
}

Flat flatten(const ParsedFile& f) {
  Flat out;
  for (const auto& chunk : f.events.chunks())
    for (const RawEvent& e : chunk) {
      const ThreadKey& t = f.threads[e.thread];
      out.events.push_back(std::string(1, e.ph) + "|" + std::string(f.strings.text(e.name)) + "|" +
                           std::string(f.strings.text(e.cat)) + "|" + ident(f, t.pid) + "|" +
                           ident(f, t.tid) + "|" + std::to_string(e.ts) + "|" +
                           std::to_string(e.dur) + "|" + std::to_string(e.correlation) + "|" +
                           std::to_string(e.bytes));
    }
  for (const RawCounter& c : f.counters)
    out.counters.push_back(std::string(f.strings.text(c.name)) + "|" + std::to_string(c.ts) + "|" +
                           std::to_string(c.value));
  out.meta = std::to_string(static_cast<int>(f.end)) + "|" + std::to_string(f.error_offset) + "|" +
             std::to_string(f.events_read) + "|" + std::to_string(f.bytes) + "|" +
             std::to_string(f.base_time_ns.value_or(-1)) + "|" + f.trace_name + "|" +
             std::to_string(f.rank.value_or(-1)) + "|" + std::to_string(f.object_format) + "|" +
             std::to_string(f.kineto_keys);
  for (int i = 0; i < kSkipCount; ++i) {
    out.meta += '|';
    out.meta += std::to_string(f.skipped.n[i]);
  }
  for (const auto& [pid, name] : f.process_names) out.meta += "|pn " + ident(f, pid) + "=" + name;
  for (const auto& [t, name] : f.thread_names)
    out.meta += "|tn " + ident(f, f.threads[t].tid) + "=" + name;
  return out;
}

// A trace whose events hold the bytes a cut looks for ("}, {\"") inside strings and args.
std::string tricky_trace(int events, bool object, std::mt19937& rng) {
  std::string s = object ? "{\"schemaVersion\":1,\"traceEvents\":[\n" : "[";
  for (int i = 0; i < events; ++i) {
    if (i) s += (rng() % 2) ? ",\n" : ", ";
    const int kind = static_cast<int>(rng() % 6);
    const std::string ts = std::to_string(1000 + i) + "." + std::to_string(rng() % 1000);
    switch (kind) {
      case 0:
        s += "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op}, {\\\"x\\\": " +
             std::to_string(i % 17) + "\",\"pid\":1,\"tid\":" + std::to_string(i % 3) +
             ",\"ts\":" + ts + ",\"dur\":2}";
        break;
      case 1:
        s += "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k" + std::to_string(i % 5) +
             "\",\"pid\":0,\"tid\":7,\"ts\":" + ts +
             ",\"dur\":1,\"args\":{\"list\":[{\"name\":1}, {\"ph\":2}],"
             "\"correlation\":" +
             std::to_string(i) + "}}";
        break;
      case 2:
        s += "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":" + std::to_string(i % 3) +
             ",\"args\":{\"name\":\"t" + std::to_string(i) + "\"}}";
        break;
      case 3:
        s += "{\"ph\":\"C\",\"name\":\"c\",\"pid\":1,\"ts\":" + ts +
             ",\"args\":{\"v\":" + std::to_string(i) + "}}";
        break;
      case 4:
        s +=
            "{\"ph\":\"s\",\"id\":" + std::to_string(i) + ",\"pid\":1,\"tid\":1,\"ts\":" + ts + "}";
        break;
      default:
        s += "{ \"name\" : \"spaced}, {\\\"\" , \"ph\" : \"B\" , \"pid\" : \"p\" , \"tid\" : 2 , "
             "\"ts\" : " +
             ts + " }";
        break;
    }
  }
  s += object ? "\n],\"traceName\":\"t}, {\\\"x\",\"baseTimeNanoseconds\":1700000000000000000}"
              : "]";
  return s;
}

void expect_same(const std::string& path, const char* what) {
  const Flat one = flatten(parse_file(path, 1));
  const Flat rapidjson =
      flatten(parse_file(path, 1, kMinPartBytes, ElementReading::rapidjson_only));
  EXPECT_EQ(one.meta, rapidjson.meta) << what << ", RapidJSON alone";
  EXPECT_EQ(one.events, rapidjson.events) << what << ", RapidJSON alone";
  EXPECT_EQ(one.counters, rapidjson.counters) << what << ", RapidJSON alone";
  for (const std::uint64_t part : {64ull, 257ull, 1000ull, 4096ull}) {
    const Flat many = flatten(parse_file(path, 4, part));
    EXPECT_EQ(one.meta, many.meta) << what << ", parts of " << part;
    EXPECT_EQ(one.events, many.events) << what << ", parts of " << part;
    EXPECT_EQ(one.counters, many.counters) << what << ", parts of " << part;
  }
  // The same bytes gzipped, parsed in two parts (the second inflating past the first), whole,
  // and cut short at a few places (then as the same gzip file parsed in one part).
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string gz = test::gzip_member(text);
  const std::string gz_path = path + ".gz";
  for (const std::size_t cut : {gz.size(), gz.size() / 2, gz.size() - 5, gz.size() * 3 / 4}) {
    std::ofstream(gz_path, std::ios::binary | std::ios::trunc) << gz.substr(0, cut);
    const Flat gz_one = cut == gz.size() ? one : flatten(parse_file(gz_path, 1));
    for (const std::uint64_t part : {64ull, 257ull, 1000ull}) {
      const Flat two = flatten(parse_file(gz_path, 2, part));
      EXPECT_EQ(gz_one.meta, two.meta) << what << ", gzip cut at " << cut << ", parts of " << part;
      EXPECT_EQ(gz_one.events, two.events)
          << what << ", gzip cut at " << cut << ", parts of " << part;
      EXPECT_EQ(gz_one.counters, two.counters) << what << ", gzip, parts of " << part;
    }
  }
}

TEST(ImportParseSplit, ParallelPartsEqualASequentialParse) {
  std::mt19937 rng(7);
  ImportDir dir;
  for (const bool object : {true, false}) {
    for (int round = 0; round < 4; ++round) {
      const std::string text = tricky_trace(400, object, rng);
      const std::string path = dir.write("t.json", text);
      expect_same(path, object ? "object" : "array");
      // Cut short, and with a syntax error, at a few places.
      for (int k = 0; k < 4; ++k) {
        const std::size_t at = text.size() / 5 * (k + 1) + rng() % 100;
        dir.write("t.json", text.substr(0, at));
        expect_same(path, "cut");
        std::string broken = text;
        broken.insert(at, 1, '@');
        dir.write("t.json", broken);
        expect_same(path, "broken");
      }
    }
  }
}

TEST(ImportParseSplit, ScannedElementsReadAsRapidJsonReadsThemAcrossBlocks) {
  // Several MiB, so that elements straddle the 1 MiB blocks the file is read in (RapidJSON reads
  // those), with elements EventScan declines (escapes) among those it takes.
  std::mt19937 rng(11);
  ImportDir dir;
  const std::string text = tricky_trace(40000, true, rng);
  ASSERT_GT(text.size(), std::size_t{3} << 20);
  const std::string path = dir.write("big.json", text);
  const ParsedFile scanned = parse_file(path, 1);
  EXPECT_EQ(scanned.end, ParseEnd::complete);
  EXPECT_EQ(flatten(scanned),
            flatten(parse_file(path, 1, kMinPartBytes, ElementReading::rapidjson_only)));
  for (const std::size_t from : {text.size() / 3, text.size() / 2 + 17}) {
    std::string broken = text;
    broken.insert(text.find(",\n{", from) + 2, 1, '@');  // between two elements
    dir.write("big.json", broken);
    const ParsedFile a = parse_file(path, 1);
    EXPECT_EQ(a.end, ParseEnd::syntax_error);
    EXPECT_EQ(flatten(a),
              flatten(parse_file(path, 1, kMinPartBytes, ElementReading::rapidjson_only)));
  }
}

TEST(ImportParseSplit, FixtureParsedInPartsImportsTheSame) {
  ImportDir dir;
  // The decompressed two-rank GPU trace, split into many parts.
  const std::vector<std::string> src{"tests/data/pytorch/gpu/two_ranks/rank-0.json.gz"};
  import_traces(src, dir.file("gz.db"));
  gzFile g = gzopen(src[0].c_str(), "rb");
  std::string text;
  char buf[65536];
  for (int n; (n = gzread(g, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  gzclose(g);
  const std::string plain = dir.write("rank-0.json", text);
  expect_same(plain, "rank-0");
  const std::vector<std::string> src2{plain};
  import_traces(src2, dir.file("plain.db"));
  store::Reader a(dir.file("gz.db")), b(dir.file("plain.db"));
  const auto ea = test::all_events(a), eb = test::all_events(b);
  ASSERT_EQ(ea.size(), eb.size());
  for (std::size_t i = 0; i < ea.size(); ++i) {
    EXPECT_EQ(ea[i].e.start_ns, eb[i].e.start_ns);
    EXPECT_EQ(ea[i].name, eb[i].name);
    EXPECT_EQ(ea[i].e.step, eb[i].e.step);
  }
}

}  // namespace
}  // namespace ts::import
