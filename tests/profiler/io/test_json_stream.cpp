// The streaming JSON writer: exact microsecond timestamps, escaping, UTF-8 repair, write errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <sstream>

#include "profiler/io/json_stream.hpp"
#include "profiler/io/utf8.hpp"
#include "tests/support/json_value.hpp"

namespace {

using ts::io::JsonStream;

template <class Fn>
std::string written(Fn&& fn) {
  std::ostringstream out;
  JsonStream js(out);
  fn(js);
  js.flush();
  return out.str();
}

TEST(JsonStream, MicrosecondsAreExactDecimals) {
  const auto us = [](std::int64_t ns) { return written([&](JsonStream& j) { j.micros(ns); }); };
  EXPECT_EQ(us(0), "0");
  EXPECT_EQ(us(1), "0.001");
  EXPECT_EQ(us(1000), "1");
  EXPECT_EQ(us(1234567), "1234.567");
  EXPECT_EQ(us(1000050), "1000.050");
  EXPECT_EQ(us(-1500), "-1.500");
  EXPECT_EQ(us(std::numeric_limits<std::int64_t>::max()), "9223372036854775.807");
  EXPECT_EQ(us(std::numeric_limits<std::int64_t>::min()), "-9223372036854775.808");
}

TEST(JsonStream, NumbersAreValidJson) {
  const std::string s = written([](JsonStream& j) {
    j.raw('[').integer(-42).raw(',').real(0.1).raw(',').real(1e300).raw(',');
    j.real(std::numeric_limits<double>::quiet_NaN()).raw(',');
    j.real(-std::numeric_limits<double>::infinity()).raw(']');
  });
  EXPECT_EQ(s, "[-42,0.1,1e+300,0,0]");
  EXPECT_NO_THROW(ts::test::parse_json(s));
}

TEST(JsonStream, StringsAreEscaped) {
  const std::string s = written([](JsonStream& j) { j.string("a\"b\\c\nd\te\x01\x1f/"); });
  EXPECT_EQ(s, R"("a\"b\\c\nd\te\u0001\u001f/")");
  EXPECT_EQ(ts::test::parse_json(s).text, "a\"b\\c\nd\te\x01\x1f/");
}

TEST(JsonStream, InvalidUtf8BecomesReplacementCharacters) {
  // Valid: é (2 bytes), € (3), 𝄞 (4). Invalid: a lone continuation byte, an overlong '/', a
  // UTF-16 surrogate, a code point above U+10FFFF and a sequence cut off by the string's end.
  const std::string valid = "\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e";
  EXPECT_TRUE(ts::io::valid_utf8(valid));
  EXPECT_EQ(written([&](JsonStream& j) { j.string(valid); }), "\"" + valid + "\"");
  for (const std::string bad :
       {"\x80", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82"}) {
    EXPECT_FALSE(ts::io::valid_utf8(bad));
    const std::string s = written([&](JsonStream& j) { j.string("x" + bad + "y"); });
    const auto parsed = ts::test::parse_json(s);  // throws when the output is not valid JSON
    EXPECT_EQ(parsed.text.front(), 'x');
    EXPECT_EQ(parsed.text.back(), 'y');
    EXPECT_NE(s.find("\\ufffd"), std::string::npos) << s;
  }
}

TEST(JsonStream, LongOutputCrossesTheBufferIntact) {
  std::string expected = "[";
  const std::string s = written([&](JsonStream& j) {
    j.raw('[');
    for (int i = 0; i < 100000; ++i) {
      if (i) j.raw(','), expected += ',';
      j.string("item " + std::to_string(i));
      expected += "\"item " + std::to_string(i) + "\"";
    }
    j.raw(']');
  });
  expected += ']';
  EXPECT_EQ(s, expected);
  EXPECT_EQ(ts::test::parse_json(s).items.size(), 100000u);
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

TEST(JsonStream, AFailingStreamThrowsWriteError) {
  FailingBuf buf(100000);
  std::ostream out(&buf);
  JsonStream js(out);
  EXPECT_THROW(
      {
        for (int i = 0; i < 100000; ++i) js.string("0123456789");
        js.flush();
      },
      ts::io::WriteError);
}

}  // namespace
