// The JSON input stream's own scanning (json_input.hpp): strings read in runs and whitespace
// skipped in place give what RapidJSON's reading of the same text in memory gives, wherever the
// source's blocks end.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "profiler/import/chrome/json_input.hpp"

namespace ts::import {
namespace {

// Serves a text in blocks of a fixed size.
class BlockSource final : public ByteSource {
 public:
  BlockSource(std::string_view text, std::size_t block) : text_(text), block_(block) {}
  std::span<const char> next() override {
    const std::size_t n = std::min(block_, text_.size() - at_);
    const std::span<const char> b(text_.data() + at_, n);
    at_ += n;
    return b;
  }

 private:
  std::string_view text_;
  std::size_t block_;
  std::size_t at_ = 0;
};

// Every value and key, as text, in order.
struct Collect : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Collect> {
  std::vector<std::string> seen;
  bool Default() {
    seen.emplace_back("?");
    return true;
  }
  bool String(const char* s, rapidjson::SizeType n, bool) {
    seen.emplace_back("s:" + std::string(s, n));
    return true;
  }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    seen.emplace_back("k:" + std::string(s, n));
    return true;
  }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
    seen.emplace_back("n:" + std::string(s, n));
    return true;
  }
};

constexpr unsigned kFlags = rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseNanAndInfFlag;

std::string parsed(rapidjson::ParseResult r, const Collect& c) {
  std::string out = r.IsError()
                        ? "error " + std::to_string(r.Code()) + " at " + std::to_string(r.Offset())
                        : "ok";
  for (const std::string& s : c.seen) out += "|" + s;
  return out;
}

std::string parse_in_memory(const std::string& text) {
  rapidjson::Reader reader;
  rapidjson::StringStream in(text.c_str());
  Collect c;
  const rapidjson::ParseResult r = reader.Parse<kFlags>(in, c);
  return parsed(r, c);
}

std::string parse_in_blocks(const std::string& text, std::size_t block) {
  BlockSource source(text, block);
  JsonInput in({}, source);
  rapidjson::Reader reader;
  Collect c;
  const rapidjson::ParseResult r = reader.Parse<kFlags>(in, c);
  return parsed(r, c);
}

TEST(JsonInput, PlainStringBytesStopAtQuotesBackslashesAndControlCharacters) {
  for (const char stop : {'"', '\\', '\n', '\t', '\x01', '\x1f'})
    for (std::size_t at = 0; at < 40; ++at) {
      std::string text(48, 'a');
      text[at] = stop;
      text[at + 1] = '"';
      EXPECT_EQ(plain_string_bytes(text), at) << int(stop) << " at " << at;
    }
  // Bytes of UTF-8 sequences, space and DEL are plain.
  const std::string plain = "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \x7f~abcdefghijklmnopqrstuvwxyz";
  EXPECT_EQ(plain_string_bytes(plain), plain.size());
  EXPECT_EQ(plain_string_bytes(""), 0u);
}

TEST(JsonInput, PlainNumbersAreTheOnesRapidJsonParsesWithoutAnError) {
  EXPECT_EQ(plain_number_bytes("0,"), 1u);
  EXPECT_EQ(plain_number_bytes("-0}"), 2u);
  EXPECT_EQ(plain_number_bytes("1700000000001421.500,"), 20u);
  EXPECT_EQ(plain_number_bytes("123456789012345678]"), 18u);
  EXPECT_EQ(plain_number_bytes("01,"), 1u);  // "0", then the 1 is the caller's error
  EXPECT_EQ(plain_number_bytes("12a"), 2u);
  // Left to RapidJSON: exponents, 19 integer digits, a point without digits, NaN and Infinity,
  // a lone minus, and a number that may go on past the bytes given.
  for (const char* text : {"1e5,", "2.5E-3,", "1234567890123456789,", "1.,", "NaN,", "-Infinity,",
                           "-,", "12", "1.5", ""})
    EXPECT_EQ(plain_number_bytes(text), 0u) << text;
}

TEST(JsonInput, StringsReadInRunsEqualAParseInMemoryWhereverBlocksEnd) {
  const std::string long_name(300, 'k');
  const std::vector<std::string> texts = {
      R"({"traceEvents":[{"ph":"X","name":"void at::native::vectorized_elementwise_kernel<4, )"
      R"(at::native::FillFunctor<float>>","ts":1700000000001421.500,"dur":25.0,)"
      R"("args":{"External id":2,"note":"a \"quoted\" \\ back\/slash \n\t\u00e9\ud83d\ude00 )"
      R"(end"}}],"x":"" , "y" : [ "" , "a" ] })",
      "{\"" + long_name + "\":\"" + long_name + "\\n" + long_name + "\"}",
      "[\"caf\xc3\xa9 \xe2\x82\xac\", \"\xf0\x9f\x98\x80\"]",
      "[\"a raw\x01 control\"]",  // an error, at the same offset
      "[\"never ends",
      "[\"ends in an escape \\",  // errors at the end
  };
  for (const std::string& text : texts) {
    const std::string expected = parse_in_memory(text);
    for (std::size_t block = 1; block <= 40; ++block)
      EXPECT_EQ(parse_in_blocks(text, block), expected) << text << " in blocks of " << block;
    EXPECT_EQ(parse_in_blocks(text, 1 << 16), expected) << text;
  }
}

}  // namespace
}  // namespace ts::import
