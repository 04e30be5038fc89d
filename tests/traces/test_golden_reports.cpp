// `trainscope report --json traces/<name>.db` must equal traces/<name>.report.json: the same
// keys and array lengths, the same strings, numbers equal within 0.002 (the report rounds to
// three decimals; this absorbs a last-digit difference between compilers, nothing more).
// After a deliberate change to the analysis, rewrite the golden files with
// `traces/regenerate.sh --reports-only BUILD_DIR` and review their diff.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/cli/run_command.hpp"
#include "tests/support/json_value.hpp"

namespace {

using ts::test::Json;

constexpr double kAbsTolerance = 0.002;
constexpr double kRelTolerance = 1e-9;

const char* type_name(Json::Type t) {
  switch (t) {
    case Json::Type::null:
      return "null";
    case Json::Type::boolean:
      return "a boolean";
    case Json::Type::number:
      return "a number";
    case Json::Type::string:
      return "a string";
    case Json::Type::array:
      return "an array";
    case Json::Type::object:
      return "an object";
  }
  return "?";
}

// Appends one line per difference between `want` and `got` under `path`.
void compare(const Json& want, const Json& got, const std::string& path,
             std::vector<std::string>& diffs) {
  if (want.type != got.type) {
    diffs.push_back(path + ": expected " + type_name(want.type) + ", got " + type_name(got.type));
    return;
  }
  switch (want.type) {
    case Json::Type::null:
      break;
    case Json::Type::boolean:
      if (want.boolean != got.boolean) diffs.push_back(path + ": expected " + want.text);
      break;
    case Json::Type::number: {
      const double tol =
          kAbsTolerance + kRelTolerance * std::max(std::abs(want.number), std::abs(got.number));
      if (!(std::abs(want.number - got.number) <= tol))
        diffs.push_back(path + ": expected " + want.text + ", got " + got.text);
      break;
    }
    case Json::Type::string:
      if (want.text != got.text)
        diffs.push_back(path + ": expected \"" + want.text + "\", got \"" + got.text + "\"");
      break;
    case Json::Type::array:
      if (want.items.size() != got.items.size()) {
        diffs.push_back(path + ": expected " + std::to_string(want.items.size()) + " items, got " +
                        std::to_string(got.items.size()));
        break;
      }
      for (std::size_t i = 0; i < want.items.size(); ++i)
        compare(want.items[i], got.items[i], path + "[" + std::to_string(i) + "]", diffs);
      break;
    case Json::Type::object:
      for (std::size_t i = 0; i < want.keys.size(); ++i) {
        const Json* g = got.find(want.keys[i]);
        if (g == nullptr)
          diffs.push_back(path + "." + want.keys[i] + ": missing");
        else
          compare(want.values[i], *g, path + "." + want.keys[i], diffs);
      }
      for (const std::string& k : got.keys)
        if (want.find(k) == nullptr) diffs.push_back(path + "." + k + ": not in the golden file");
      break;
  }
}

class GoldenReport : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenReport, ReportJsonMatchesTheGoldenFile) {
  const std::string trace = "traces/" + GetParam() + ".db";
  const std::string golden_text = ts::test::read_file("traces/" + GetParam() + ".report.json");
  ASSERT_FALSE(golden_text.empty()) << "no golden file for " << trace;
  const auto r = ts::test::run_trainscope("report --json " + trace);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const Json golden = ts::test::parse_json(golden_text);
  const Json got = ts::test::parse_json(r.out);
  std::vector<std::string> diffs;
  compare(golden, got, "$", diffs);
  std::string all;
  for (std::size_t i = 0; i < diffs.size() && i < 30; ++i) all += "  " + diffs[i] + "\n";
  EXPECT_TRUE(diffs.empty()) << diffs.size() << " differences from traces/" << GetParam()
                             << ".report.json (if the analysis changed on purpose, run "
                                "traces/regenerate.sh --reports-only BUILD_DIR):\n"
                             << all;
}

// The comparison itself: tolerant of last-digit rounding, strict about everything else.
TEST(GoldenCompare, ToleranceAndStructure) {
  const auto diffs_of = [](const std::string& a, const std::string& b) {
    std::vector<std::string> d;
    compare(ts::test::parse_json(a), ts::test::parse_json(b), "$", d);
    return d;
  };
  EXPECT_TRUE(diffs_of(R"({"a":1.234,"b":[1,"x"]})", R"({"b":[1.0,"x"],"a":1.235})").empty());
  EXPECT_EQ(diffs_of(R"({"a":1.234})", R"({"a":1.24})").size(), 1u);
  EXPECT_EQ(diffs_of(R"({"a":"x"})", R"({"a":"y"})").size(), 1u);
  EXPECT_EQ(diffs_of(R"({"a":[1,2]})", R"({"a":[1]})").size(), 1u);
  EXPECT_EQ(diffs_of(R"({"a":1})", R"({"a":1,"b":2})").size(), 1u);
  EXPECT_EQ(diffs_of(R"({"a":1,"b":2})", R"({"a":1})").size(), 1u);
  EXPECT_EQ(diffs_of(R"({"a":null})", R"({"a":0})").size(), 1u);
  EXPECT_TRUE(diffs_of("[1e9]", "[1000000000.5]").empty());  // within 1e-9 relative
  EXPECT_EQ(diffs_of("[1e9]", "[1000000002]").size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(SampleTraces, GoldenReport,
                         ::testing::Values("input_bound", "tuned", "opencl"),
                         [](const auto& info) { return info.param; });

}  // namespace
