// Timestamps are parsed from the number's text into integer nanoseconds, never via a double.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "profiler/import/chrome/number_text.hpp"
#include "tests/profiler/import/import_test_util.hpp"

namespace ts::import {
namespace {

using test::ImportDir;

std::int64_t ns(std::string_view text) {
  std::int64_t v = 0;
  EXPECT_EQ(micros_to_ns(text, v), NumberParse::ok) << text;
  return v;
}

TEST(ImportTimestamps, DecimalTextIsExact) {
  EXPECT_EQ(ns("1712195495519689.047"), 1712195495519689047);  // 19 digits: a double rounds it
  EXPECT_EQ(ns("1682725898236567"), 1682725898236567000);
  EXPECT_EQ(ns("68.0"), 68000);
  EXPECT_EQ(ns("0.001"), 1);
  EXPECT_EQ(ns("4591705466536.44"), 4591705466536440);
  EXPECT_EQ(ns("-2.5"), -2500);
  EXPECT_EQ(ns("0"), 0);
  EXPECT_EQ(ns("1.0004"), 1000);  // a fourth decimal rounds
  EXPECT_EQ(ns("1.0005"), 1001);
  EXPECT_EQ(ns("1.99999"), 2000);
  EXPECT_EQ(ns("+7"), 7000);
  EXPECT_EQ(ns("1.5e3"), 1500000);  // exponent forms go through a double
  EXPECT_EQ(ns("2E-3"), 2);
}

TEST(ImportTimestamps, RejectsWhatIsNotANumber) {
  std::int64_t v = 0;
  for (const char* bad :
       {"", "-", ".", "NaN", "Infinity", "-Infinity", "1.2.3", "12a", "e5", "1e", " 1"})
    EXPECT_EQ(micros_to_ns(bad, v), NumberParse::invalid) << bad;
  EXPECT_EQ(micros_to_ns("99999999999999999999", v), NumberParse::out_of_range);
  EXPECT_EQ(micros_to_ns("9300000000000000", v), NumberParse::out_of_range);  // x1000 > int64
  EXPECT_EQ(micros_to_ns("1e300", v), NumberParse::out_of_range);
  EXPECT_EQ(parse_int64("123.9", v), NumberParse::ok);
  EXPECT_EQ(v, 123);
  double d = 0;
  EXPECT_EQ(parse_double("1e999", d), NumberParse::out_of_range);
}

// The one-pass reading of the plain form gives what the general parse gives, for any text:
// numbers of every length around the fast path's limits, signs, fractions, junk.
TEST(ImportTimestamps, ThePlainFormsFastReadingIsTheGeneralParse) {
  std::mt19937_64 rng(17);
  const std::string alphabet = "0123456789012345678901234567890123456789.-+eE x";
  std::vector<std::string> texts{"",
                                 "-",
                                 "0",
                                 "-0",
                                 "1.",
                                 "-1.",
                                 ".5",
                                 "00012",
                                 "1.0005",
                                 "-1.0005",
                                 "999999999999999.9995",
                                 "9999999999999999",
                                 "9223372036854774",
                                 "9223372036854775",
                                 "-9223372036854774.9995",
                                 "1700000000001571.500",
                                 "999999999999999999",
                                 "9223372036854775807",
                                 "-999999999999999999",
                                 "1e3",
                                 "12.3.4"};
  for (int i = 0; i < 200000; ++i) {
    std::string t;
    const std::size_t n = rng() % 24;
    const bool plain = rng() % 2 == 0;  // half of them from digits, one '-' and one '.' only
    if (plain && rng() % 3 == 0) t += '-';
    for (std::size_t k = 0; k < n; ++k)
      t += plain ? static_cast<char>('0' + rng() % 10) : alphabet[rng() % alphabet.size()];
    if (plain && n > 0 && rng() % 2 == 0)
      t.insert(t.begin() + static_cast<std::ptrdiff_t>(rng() % (t.size() + 1)), '.');
    texts.push_back(t);
  }
  for (const std::string& t : texts) {
    std::int64_t fast = 1, general = 2;
    const NumberParse a = micros_to_ns(t, fast);
    const NumberParse b = detail::micros_to_ns_general(t, general);
    ASSERT_EQ(a, b) << "'" << t << "'";
    if (a == NumberParse::ok) {
      ASSERT_EQ(fast, general) << "'" << t << "'";
    }
    const NumberParse c = parse_int64(t, fast);
    const NumberParse d = detail::parse_int64_general(t, general);
    ASSERT_EQ(c, d) << "'" << t << "'";
    if (c == NumberParse::ok) {
      ASSERT_EQ(fast, general) << "'" << t << "'";
    }
  }
}

std::int64_t start_of(const std::string& db, const std::string& name) {
  store::Reader r(db);
  const auto events = test::all_events(r);
  const test::EventView* e = test::find_event(events, name);
  EXPECT_NE(e, nullptr) << name;
  return e ? e->e.start_ns : -1;
}

TEST(ImportTimestamps, AbsoluteNanosecondDecimals) {
  ImportDir dir;
  test::import_text(
      dir,
      test::kineto_trace({test::x_event("cpu_op", "a", 1, 1, "1712195495519689.047", "2.5"),
                          test::x_event("cpu_op", "b", 1, 1, "1712195495519690.001", "0.999")}));
  EXPECT_EQ(start_of(dir.file("out.db"), "a"), 1712195495519689047);
  EXPECT_EQ(start_of(dir.file("out.db"), "b"), 1712195495519690001);
  store::Reader r(dir.file("out.db"));
  EXPECT_EQ(r.meta("clock.origin_ns"), "1712195495519689047");
  const auto events = test::all_events(r);
  EXPECT_EQ(test::find_event(events, "a")->e.dur_ns, 2500);
  EXPECT_EQ(test::find_event(events, "b")->e.dur_ns, 999);
}

TEST(ImportTimestamps, RelativeToBaseTimeBeforeOrAfterTheEvents) {
  const std::string events =
      "\"traceEvents\":[" + test::x_event("cpu_op", "a", 1, 1, "4591705466536.440", "1.5") + "]";
  const std::string base = "\"baseTimeNanoseconds\":1790857026000000000";
  for (const std::string& text :
       {"{" + base + "," + events + "}", "{" + events + "," + base + "}"}) {
    ImportDir dir;
    test::import_text(dir, text);
    EXPECT_EQ(start_of(dir.file("out.db"), "a"), 1790857026000000000 + 4591705466536440) << text;
  }
}

TEST(ImportTimestamps, StringTimestampsAndDisplayTimeUnit) {
  ImportDir dir;
  test::import_text(dir, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[" +
                             test::x_event("cpu_op", "a", 1, 1, "\"1000.5\"", "\"2\"") + "]}");
  EXPECT_EQ(start_of(dir.file("out.db"), "a"), 1000500);  // still microseconds
  store::Reader r(dir.file("out.db"));
  EXPECT_EQ(r.meta("import.display_time_unit"), "ns");
}

}  // namespace
}  // namespace ts::import
