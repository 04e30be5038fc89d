// The JSON writer: its policy (strings escaped, invalid UTF-8 repaired, non-finite numbers
// null), fixed-decimal and shortest numbers, indentation, the stream sink and its write errors.
// nlohmann-json reads the output back: a strict parser of its own (it rejects invalid UTF-8).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "profiler/json/utf8.hpp"
#include "profiler/json/writer.hpp"

namespace {

using nlohmann::json;
using ts::json::Writer;

// One string value as the writer writes it.
std::string written_string(std::string_view s) {
  Writer w;
  w.str(s);
  std::string text = w.finish();
  text.pop_back();  // the document's newline
  return text;
}

TEST(JsonWriter, StringsAreEscaped) {
  EXPECT_EQ(written_string("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(written_string("\n\t\x01\x1f/"), R"("\n\t\u0001\u001f/")");
  EXPECT_EQ(written_string("µs"), "\"µs\"");  // valid UTF-8 kept
  const std::string raw = "a\"b\\c\nd\te\x01\x1f/";
  EXPECT_EQ(json::parse(written_string(raw)).get<std::string>(), raw);
}

TEST(JsonWriter, InvalidUtf8BecomesReplacementCharacters) {
  constexpr std::string_view kFffd = "\xEF\xBF\xBD";
  // Valid: é (2 bytes), € (3), 𝄞 (4).
  const std::string valid = "\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e";
  EXPECT_TRUE(ts::json::valid_utf8(valid));
  EXPECT_EQ(written_string(valid), "\"" + valid + "\"");
  // A lone continuation byte, an overlong '/', a UTF-16 surrogate, a code point above U+10FFFF
  // and a sequence cut off by the string's end: each byte becomes U+FFFD.
  const std::pair<std::string, int> bad[] = {
      {"\x80", 1}, {"\xc0\xaf", 2}, {"\xed\xa0\x80", 3}, {"\xf4\x90\x80\x80", 4}, {"\xe2\x82", 2}};
  for (const auto& [bytes, n] : bad) {
    EXPECT_FALSE(ts::json::valid_utf8(bytes));
    std::string expected = "x";
    for (int i = 0; i < n; ++i) expected += kFffd;
    expected += "y";
    EXPECT_EQ(json::parse(written_string("x" + bytes + "y")).get<std::string>(), expected);
  }
  // Keys too.
  Writer w;
  w.begin_object().field("k\xff", "v").end_object();
  EXPECT_TRUE(json::parse(w.finish()).contains("k" + std::string(kFffd)));
}

TEST(JsonWriter, EveryByteIsCheckedWhereverItSits) {
  // Strings are scanned 8 bytes at a time: a byte that needs a look of its own, at every
  // position of a long string.
  const std::string fffd = "\xEF\xBF\xBD";
  const std::pair<std::string, std::string> cases[] = {
      {"\xff", fffd},           {"\"", "\""},     {"\\", "\\"},
      {"\x01", "\x01"},         {"\x1f", "\x1f"}, {"\x7f", "\x7f"},
      {"\xc3\xa9", "\xc3\xa9"}, {"\xc3", fffd},   {"\xf0\x9d\x84\x9e", "\xf0\x9d\x84\x9e"}};
  for (const auto& [inserted, read_back] : cases) {
    for (std::size_t at = 0; at <= 24; ++at) {
      const std::string base(24, 'a');
      const std::string text = base.substr(0, at) + inserted + base.substr(at);
      const std::string expected = base.substr(0, at) + read_back + base.substr(at);
      EXPECT_EQ(json::parse(written_string(text)).get<std::string>(), expected) << at;
    }
  }
}

TEST(JsonWriter, NumbersAreFiniteRoundedAndTrimmed) {
  Writer w;
  w.begin_array()
      .num(12.5)
      .num(3.0)
      .num(-0.0001)  // "0" at 3 decimals, not "-0"
      .num(2.0 / 3.0, 2)
      .num(std::numeric_limits<double>::infinity())
      .num(std::nan(""))
      .num(1e300)
      .integer(-42)
      .integer(std::numeric_limits<std::int64_t>::min())
      .real(0.1)
      .real(-std::numeric_limits<double>::infinity())
      .real(std::numeric_limits<double>::quiet_NaN())
      .number_text("1234.567")
      .boolean(true)
      .null()
      .end_array();
  const std::string s = w.finish();
  EXPECT_EQ(s,
            "[12.5,3,0,0.67,null,null,1.0000000000000001e+300,-42,-9223372036854775808,0.1,"
            "null,null,1234.567,true,null]\n");
  const json j = json::parse(s);
  EXPECT_DOUBLE_EQ(j[6].get<double>(), 1e300);
  EXPECT_EQ(j[8].get<std::int64_t>(), std::numeric_limits<std::int64_t>::min());
}

TEST(JsonWriter, IndentedOutputPutsEachMemberOnItsLine) {
  ts::json::IndentedWriter w;
  w.begin_object().field("a", std::int64_t{1}).key("b").begin_array().str("x").end_array();
  w.key("c").begin_object().end_object().key("d").begin_array().end_array().end_object();
  EXPECT_EQ(w.finish(),
            "{\n  \"a\": 1,\n  \"b\": [\n    \"x\"\n  ],\n  \"c\": {},\n  \"d\": []\n}\n");
}

TEST(JsonWriter, LongOutputCrossesTheStreamBufferIntact) {
  std::ostringstream out;
  Writer w(out);
  w.begin_array();
  for (int i = 0; i < 100000; ++i) w.str("item " + std::to_string(i));
  w.end_array();
  EXPECT_EQ(w.finish(), "");
  const json j = json::parse(out.str());
  ASSERT_EQ(j.size(), 100000u);
  EXPECT_EQ(j[99999], "item 99999");
  // A string longer than the buffer.
  std::ostringstream big_out;
  Writer big(big_out);
  const std::string huge(200000, 'z');
  big.str(huge);
  big.finish();
  EXPECT_EQ(json::parse(big_out.str()).get<std::string>(), huge);
}

// A stream that accepts `limit` bytes, then fails, as a full disk does.
class FailingBuf : public std::streambuf {
 public:
  explicit FailingBuf(std::size_t limit) : left_(limit) {}

 protected:
  std::streamsize xsputn(const char*, std::streamsize n) override {
    const auto take = std::min<std::streamsize>(n, static_cast<std::streamsize>(left_));
    left_ -= static_cast<std::size_t>(take);
    return take;
  }
  int overflow(int c) override { return left_ > 0 ? (--left_, c) : traits_type::eof(); }

 private:
  std::size_t left_;
};

TEST(JsonWriter, AFailingStreamThrowsWriteError) {
  FailingBuf buf(100000);
  std::ostream out(&buf);
  Writer w(out);
  EXPECT_THROW(
      {
        w.begin_array();
        for (int i = 0; i < 100000; ++i) w.str("0123456789");
        w.end_array().finish();
      },
      ts::json::WriteError);
}

}  // namespace
