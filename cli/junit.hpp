// JUnit XML, the test report format CI systems (Jenkins, GitLab, GitHub Actions reporters,
// Azure Pipelines) display: one <testsuite> of <testcase>s, a <failure> in each failed one.
// Text is escaped for XML 1.0: markup characters become entities, characters XML 1.0 cannot
// hold (control characters, U+FFFE/U+FFFF) and bytes that are not UTF-8 become U+FFFD.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ts::cli {

struct JUnitCase {
  std::string name;
  std::string classname;
  double seconds = 0;
  bool failed = false;
  std::string failure_message;  // the <failure message="..."> attribute: one line
  std::string failure_text;     // the <failure> element's body: details
};

struct JUnitSuite {
  std::string name;
  std::string timestamp;  // ISO 8601, e.g. 2024-05-01T12:00:00
  double seconds = 0;
  std::vector<std::pair<std::string, std::string>> properties;
  std::vector<JUnitCase> cases;
  std::string system_out;  // <system-out>, omitted when empty
};

// `text` escaped for an XML attribute value (quotes, and line breaks as character references)
// or element content.
std::string xml_escape(std::string_view text, bool attribute);

std::string junit_xml(const JUnitSuite& suite);

// Writes junit_xml(suite) to `path`; throws UsageError naming --junit and the path on failure.
void write_junit(const JUnitSuite& suite, const std::string& path);

}  // namespace ts::cli
