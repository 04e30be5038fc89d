// JUnit XML for `trainscope check --junit`: well-formed whatever the names hold, one test case
// per limit, a <failure> for each violated one.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/args.hpp"
#include "cli/junit.hpp"
#include "run_command.hpp"
#include "tests/support/xml_doc.hpp"

namespace ts::cli {
namespace {

using ts::test::all;
using ts::test::attr;
using ts::test::text;

TEST(XmlEscape, MarkupCharactersBecomeEntities) {
  EXPECT_EQ(xml_escape("a<b>&\"c'", true), "a&lt;b&gt;&amp;&quot;c&apos;");
  EXPECT_EQ(xml_escape("a<b>&\"c'", false), "a&lt;b&gt;&amp;\"c'");
  EXPECT_EQ(xml_escape("x]]>y", false), "x]]&gt;y");
  EXPECT_EQ(xml_escape("line\nbreak\ttab\r", true), "line&#10;break&#9;tab&#13;");
  EXPECT_EQ(xml_escape("line\nbreak\ttab", false), "line\nbreak\ttab");
}

TEST(XmlEscape, CharactersXmlCannotHoldAreReplaced) {
  const std::string r = "\xef\xbf\xbd";  // U+FFFD
  EXPECT_EQ(xml_escape(std::string("a\x01z\x1f", 4), false), "a" + r + "z" + r);
  EXPECT_EQ(xml_escape(std::string("nul\0!", 5), false), "nul" + r + "!");
  EXPECT_EQ(xml_escape("bad\xff\xc0\xaf", false), "bad" + r + r + r);
  EXPECT_EQ(xml_escape("\xef\xbf\xbe\xef\xbf\xbf", false), r + r);  // U+FFFE, U+FFFF
  EXPECT_EQ(xml_escape("caf\xc3\xa9 \xe2\x82\xac", false), "caf\xc3\xa9 \xe2\x82\xac");
}

JUnitSuite sample_suite(const std::string& hostile) {
  JUnitSuite s;
  s.name = "trainscope check " + hostile;
  s.timestamp = "2024-01-01T00:00:00Z";
  s.seconds = 0.25;
  s.properties = {{"trace", hostile}, {"verdict", "high"}};
  s.cases.push_back({"max-input-pct", "trainscope.check", 0, true,
                     hostile + ": input 63.2 % of step time exceeds --max-input-pct 5",
                     "measured 63.2, limit 5\n"});
  s.cases.push_back({"max-device-idle-pct", "trainscope.check", 0, false, "", ""});
  s.cases.push_back({"max-step-time-increase-pct", "trainscope.check", 0, true, hostile, hostile});
  s.system_out = "Highly input-bound: <63 %> & more " + hostile;
  return s;
}

TEST(JUnit, OneTestCasePerLimitAndAFailureForEachViolatedOne) {
  const pugi::xml_document xml = ts::test::parse_xml(junit_xml(sample_suite("run.db")));
  const pugi::xml_node doc = xml.document_element();
  EXPECT_STREQ(doc.name(), "testsuites");
  EXPECT_EQ(attr(doc, "tests"), "3");
  EXPECT_EQ(attr(doc, "failures"), "2");
  const auto suites = all(doc, "testsuite");
  ASSERT_EQ(suites.size(), 1u);
  EXPECT_EQ(attr(suites[0], "tests"), "3");
  EXPECT_EQ(attr(suites[0], "failures"), "2");
  EXPECT_EQ(attr(suites[0], "errors"), "0");
  EXPECT_EQ(attr(suites[0], "time"), "0.250");
  const auto cases = all(doc, "testcase");
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(attr(cases[0], "name"), "max-input-pct");
  EXPECT_EQ(attr(cases[0], "classname"), "trainscope.check");
  EXPECT_EQ(all(cases[0], "failure").size(), 1u);
  EXPECT_EQ(all(cases[1], "failure").size(), 0u);
  EXPECT_EQ(all(cases[2], "failure").size(), 1u);
  EXPECT_EQ(attr(all(cases[0], "failure")[0], "message"),
            "run.db: input 63.2 % of step time exceeds --max-input-pct 5");
  EXPECT_EQ(all(doc, "failure").size(), 2u);
  EXPECT_EQ(all(doc, "property").size(), 2u);
  EXPECT_EQ(text(all(doc, "system-out")[0]), "Highly input-bound: <63 %> & more run.db");
}

TEST(JUnit, HostileTextStaysWellFormedAndRoundTrips) {
  const std::string hostile = "a\"b'c<d>&e\n\tf]]>\x01g\xff h</testcase>&amp;";
  const std::string xml = junit_xml(sample_suite(hostile));
  const pugi::xml_document doc = ts::test::parse_xml(xml);  // throws when not well-formed
  const auto cases = all(doc, "testcase");
  ASSERT_EQ(cases.size(), 3u);
  const std::string r = "\xef\xbf\xbd";
  const std::string expected = "a\"b'c<d>&e\n\tf]]>" + r + "g" + r + " h</testcase>&amp;";
  EXPECT_EQ(attr(all(cases[2], "failure")[0], "message"), expected);
  EXPECT_EQ(text(all(cases[2], "failure")[0]), expected);
  EXPECT_EQ(attr(all(doc, "property")[0], "value"), expected);
}

TEST(JUnit, AnUnwritablePathIsAUsageErrorNamingIt) {
  const std::string path = "/nonexistent-dir-for-trainscope/report.xml";
  try {
    write_junit(sample_suite("run.db"), path);
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--junit " + path), std::string::npos) << e.what();
  }
}

TEST(JUnit, WritesTheFile) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("ts_junit_" + std::to_string(getpid()) + ".xml"))
          .string();
  write_junit(sample_suite("run.db"), path);
  EXPECT_EQ(all(ts::test::parse_xml(ts::test::read_file(path)), "testcase").size(), 3u);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace ts::cli
