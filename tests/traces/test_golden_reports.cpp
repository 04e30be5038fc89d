// `trainscope report --json traces/<name>.db` must equal traces/<name>.report.json: the same
// keys and array lengths, the same strings, numbers equal within 0.002 (the report rounds to
// three decimals; this absorbs a last-digit difference between compilers, nothing more).
// After a deliberate change to the analysis, rewrite the golden files with
// `traces/regenerate.sh --reports-only BUILD_DIR` and review their diff.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/cli/run_command.hpp"

namespace {

using Json = nlohmann::json;

constexpr double kAbsTolerance = 0.002;
constexpr double kRelTolerance = 1e-9;

// The kind of a value, numbers of every representation alike.
std::string kind(const Json& v) {
  return v.is_number() ? "a number" : std::string(v.type_name());
}

// Appends one line per difference between `want` and `got` under `path`.
void compare(const Json& want, const Json& got, const std::string& path,
             std::vector<std::string>& diffs) {
  if (kind(want) != kind(got)) {
    diffs.push_back(path + ": expected " + kind(want) + ", got " + kind(got));
    return;
  }
  if (want.is_number()) {
    const double w = want.get<double>(), g = got.get<double>();
    const double tol = kAbsTolerance + kRelTolerance * std::max(std::abs(w), std::abs(g));
    if (!(std::abs(w - g) <= tol))
      diffs.push_back(path + ": expected " + want.dump() + ", got " + got.dump());
  } else if (want.is_array()) {
    if (want.size() != got.size()) {
      diffs.push_back(path + ": expected " + std::to_string(want.size()) + " items, got " +
                      std::to_string(got.size()));
      return;
    }
    for (std::size_t i = 0; i < want.size(); ++i)
      compare(want[i], got[i], path + "[" + std::to_string(i) + "]", diffs);
  } else if (want.is_object()) {
    for (const auto& [k, v] : want.items()) {
      if (!got.contains(k))
        diffs.push_back(path + "." + k + ": missing");
      else
        compare(v, got.at(k), path + "." + k, diffs);
    }
    for (const auto& [k, v] : got.items())
      if (!want.contains(k)) diffs.push_back(path + "." + k + ": not in the golden file");
  } else if (want != got) {  // strings, booleans
    diffs.push_back(path + ": expected " + want.dump() + ", got " + got.dump());
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
  const Json golden = Json::parse(golden_text);
  const Json got = Json::parse(r.out);
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
    compare(Json::parse(a), Json::parse(b), "$", d);
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
