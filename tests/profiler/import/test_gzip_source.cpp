// GzipSource (ISA-L's inflate) against zlib on the same files: every byte of one member and of
// several concatenated, across the compressed reads and the inflated buffers; a file cut short
// anywhere gives a prefix of the bytes; trailing garbage is ignored; a wrong trailer or deflate
// data is corrupt. peek_text, which sniffs a file's format, reads the same bytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "profiler/import/common/byte_source.hpp"
#include "tests/gzip_member.hpp"
#include "tests/profiler/import/import_test_util.hpp"

namespace ts::import {
namespace {

using test::ImportDir;

// `text` as one gzip member, deflated by zlib at `level`.
std::string gzip(const std::string& text, int level = 6) {
  return test::gzip_member(text, level);
}

struct Inflated {
  std::string bytes;
  bool corrupt = false;
};

Inflated inflate_file(const std::string& path) {
  FileHandle file(path);
  GzipSource source(file);
  Inflated out;
  for (std::span<const char> s = source.next(); !s.empty(); s = source.next())
    out.bytes.append(s.data(), s.size());
  out.corrupt = source.corrupt();
  return out;
}

// JSON-like text of about `bytes` bytes, compressible as traces are, with random numbers that
// make it unlike any other part.
std::string trace_like(std::size_t bytes, std::uint32_t seed) {
  std::string text;
  std::uint32_t x = seed;
  while (text.size() < bytes) {
    x = x * 1103515245u + 12345u;
    text += "{\"ph\": \"X\", \"name\": \"op" + std::to_string(x % 97) +
            "\", \"ts\": " + std::to_string(x) + ", \"dur\": " + std::to_string(x >> 20) + "},\n";
  }
  return text;
}

TEST(GzipSource, InflatesWhatZlibDeflatedAcrossItsBuffers) {
  ImportDir dir;
  // 3.5 MiB: several compressed reads and inflated buffers; levels 1 and 9 make other blocks.
  const std::string text = trace_like(std::size_t{7} << 19, 1);
  for (const int level : {1, 6, 9}) {
    const Inflated got = inflate_file(dir.write("t.json.gz", gzip(text, level)));
    EXPECT_FALSE(got.corrupt) << level;
    EXPECT_TRUE(got.bytes == text) << level << ": " << got.bytes.size() << " of " << text.size();
  }
}

TEST(GzipSource, ReadsConcatenatedMembersAndIgnoresWhatFollowsTheLast) {
  ImportDir dir;
  const std::string a = trace_like(300'000, 2), b = trace_like(5'000, 3), c = "{}";
  const std::string members = gzip(a) + gzip(b, 1) + gzip(c);
  Inflated got = inflate_file(dir.write("m.json.gz", members));
  EXPECT_FALSE(got.corrupt);
  EXPECT_TRUE(got.bytes == a + b + c) << got.bytes.size();
  // Bytes that are not a member after the last: ignored, as gzip(1) warns and zlib stops.
  got = inflate_file(dir.write("g.json.gz", members + "trailing garbage\n"));
  EXPECT_FALSE(got.corrupt);
  EXPECT_TRUE(got.bytes == a + b + c);
  // One byte of a next member's magic at the very end: the same.
  got = inflate_file(dir.write("h.json.gz", members + "\x1f"));
  EXPECT_TRUE(got.bytes == a + b + c);
}

TEST(GzipSource, AFileCutAnywhereGivesAPrefixOfItsBytes) {
  ImportDir dir;
  const std::string a = trace_like(200'000, 4), b = trace_like(150'000, 5);
  const std::string members = gzip(a, 1) + gzip(b, 9);
  const std::string whole = a + b;
  for (std::size_t cut = 1; cut < members.size(); cut += members.size() / 37 + 1) {
    const Inflated got = inflate_file(dir.write("cut.json.gz", members.substr(0, cut)));
    ASSERT_LE(got.bytes.size(), whole.size()) << cut;
    EXPECT_TRUE(whole.compare(0, got.bytes.size(), got.bytes) == 0) << "cut at " << cut;
    // A cut after the header inflates something; within it, nothing: corrupt, not gzip data.
    if (got.bytes.empty()) {
      EXPECT_TRUE(got.corrupt) << cut;
    }
  }
}

TEST(GzipSource, AWrongTrailerOrDamagedDeflateDataIsCorrupt) {
  ImportDir dir;
  const std::string text = trace_like(100'000, 6);
  std::string bad_crc = gzip(text);
  bad_crc[bad_crc.size() - 8] ^= 0x01;  // the CRC32 of the trailer
  Inflated got = inflate_file(dir.write("crc.json.gz", bad_crc));
  EXPECT_TRUE(got.corrupt);
  EXPECT_LE(got.bytes.size(), text.size());
  std::string damaged = gzip(text);
  for (std::size_t i = damaged.size() / 2; i < damaged.size() / 2 + 16; ++i)
    damaged[i] = static_cast<char>(0xff);
  got = inflate_file(dir.write("bad.json.gz", damaged));
  EXPECT_TRUE(got.corrupt);
  EXPECT_LT(got.bytes.size(), text.size());
  EXPECT_TRUE(text.compare(0, got.bytes.size() / 2, got.bytes, 0, got.bytes.size() / 2) == 0);
}

TEST(GzipSource, PeekTextGivesTheFirstBytesAsAParserSeesThem) {
  ImportDir dir;
  const std::string text = trace_like(200'000, 7);
  const std::string gz = dir.write("p.json.gz", gzip(text));
  for (const std::size_t n : {std::size_t{1}, std::size_t{512}, std::size_t{70'000}})
    EXPECT_EQ(peek_text(gz, n), text.substr(0, n)) << n;
  EXPECT_EQ(peek_text(dir.write("p.json", text), 512), text.substr(0, 512));
  // Cut within its first bytes: what inflates; only a header: nothing.
  const std::string cut = gzip(text).substr(0, 300);
  const std::string got = peek_text(dir.write("cut.json.gz", cut), 4096);
  EXPECT_FALSE(got.empty());
  EXPECT_EQ(got, text.substr(0, got.size()));
  EXPECT_EQ(peek_text(dir.write("head.json.gz", gzip(text).substr(0, 10)), 64), "");
  EXPECT_EQ(peek_text(dir.file("missing.json.gz"), 64), "");
}

}  // namespace
}  // namespace ts::import
