#include "cli/junit.hpp"

#include <cstdio>

#include "cli/args.hpp"
#include "profiler/io/output_file.hpp"
#include "profiler/json/utf8.hpp"
#include "profiler/json/writer.hpp"

namespace ts::cli {

namespace {

// U+FFFE and U+FFFF are not characters XML 1.0 allows.
bool xml_noncharacter(std::string_view seq) {
  return seq == "\xef\xbf\xbe" || seq == "\xef\xbf\xbf";
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s < 0 ? 0.0 : s);
  return buf;
}

}  // namespace

std::string xml_escape(std::string_view text, bool attribute) {
  constexpr std::string_view kReplacement = "\xef\xbf\xbd";
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = json::utf8_sequence_length(text, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    const std::string_view seq = text.substr(i, n);
    i += n;
    if (n > 1) {
      out += xml_noncharacter(seq) ? kReplacement : seq;
      continue;
    }
    const char c = seq[0];
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += attribute ? "&quot;" : "\"";
        break;
      case '\'':
        out += attribute ? "&apos;" : "'";
        break;
      case '\n':
        out += attribute ? "&#10;" : "\n";
        break;
      case '\r':
        out += "&#13;";
        break;
      case '\t':
        out += attribute ? "&#9;" : "\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          out += kReplacement;
        else
          out += c;
    }
  }
  return out;
}

std::string junit_xml(const JUnitSuite& suite) {
  int failures = 0;
  for (const auto& c : suite.cases) failures += c.failed;
  const auto attr = [](std::string_view s) { return xml_escape(s, true); };
  const std::string counts = " tests=\"" + std::to_string(suite.cases.size()) + "\" failures=\"" +
                             std::to_string(failures) + "\" errors=\"0\"";
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += "<testsuites name=\"" + attr(suite.name) + "\"" + counts + " time=\"" +
       seconds(suite.seconds) + "\">\n";
  x += "  <testsuite name=\"" + attr(suite.name) + "\"" + counts + " skipped=\"0\" time=\"" +
       seconds(suite.seconds) + "\"";
  if (!suite.timestamp.empty()) x += " timestamp=\"" + attr(suite.timestamp) + "\"";
  x += ">\n";
  if (!suite.properties.empty()) {
    x += "    <properties>\n";
    for (const auto& [k, v] : suite.properties)
      x += "      <property name=\"" + attr(k) + "\" value=\"" + attr(v) + "\"/>\n";
    x += "    </properties>\n";
  }
  for (const auto& c : suite.cases) {
    x += "    <testcase name=\"" + attr(c.name) + "\" classname=\"" + attr(c.classname) +
         "\" time=\"" + seconds(c.seconds) + "\"";
    if (!c.failed) {
      x += "/>\n";
      continue;
    }
    x += ">\n      <failure message=\"" + attr(c.failure_message) + "\" type=\"LimitExceeded\">" +
         xml_escape(c.failure_text, false) + "</failure>\n    </testcase>\n";
  }
  if (!suite.system_out.empty())
    x += "    <system-out>" + xml_escape(suite.system_out, false) + "</system-out>\n";
  x += "  </testsuite>\n</testsuites>\n";
  return x;
}

void write_junit(const JUnitSuite& suite, const std::string& path) {
  const std::string xml = junit_xml(suite);
  try {
    io::write_output(
        path, [&](std::ostream& out) { out << xml; }, "--junit " + path);
  } catch (const json::WriteError& e) {
    throw UsageError(e.what());
  }
}

}  // namespace ts::cli
