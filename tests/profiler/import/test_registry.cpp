// The layout of profiler/import (README.md, "Layout"): one folder per format, each with one row
// in the table of readers, beside common/; formats never include each other, and common/ and
// the formats never reach back into the front door's registry.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>

#include "profiler/import/import.hpp"
#include "profiler/import/registry.hpp"
#include "tests/profiler/import/import_test_util.hpp"

namespace ts::import {
namespace {

namespace fs = std::filesystem;

const fs::path kImportDir = fs::path(TS_SOURCE_DIR) / "profiler" / "import";

std::set<std::string> format_folders() {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(kImportDir))
    if (e.is_directory() && e.path().filename() != "common")
      out.insert(e.path().filename().string());
  return out;
}

// "profiler/import/<folder>/..." includes of the C++ files of one folder, as "file: header".
std::vector<std::string> includes_of(const std::string& folder) {
  const std::regex include(R"(^\s*#\s*include\s*"profiler/import/([^"]+)\")");
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(kImportDir / folder)) {
    const std::string ext = e.path().extension().string();
    if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp")) continue;
    std::ifstream in(e.path());
    std::string line;
    std::smatch m;
    while (std::getline(in, line))
      if (std::regex_search(line, m, include))
        out.push_back(folder + "/" + e.path().filename().string() + ": " + m[1].str());
  }
  return out;
}

TEST(ImportRegistry, EveryFormatFolderHasOneRow) {
  std::set<std::string> rows;
  for (const TraceReader& r : trace_readers()) {
    EXPECT_TRUE(rows.insert(std::string(r.name)).second) << "two rows named " << r.name;
    EXPECT_FALSE(r.one.empty());
    EXPECT_FALSE(r.many.empty());
    EXPECT_TRUE(r.sniff && r.named && r.resolve && r.read) << r.name;
  }
  EXPECT_EQ(rows, format_folders());
  EXPECT_EQ(trace_readers().back().name, "chrome");  // the catch-all stays last
}

TEST(ImportRegistry, FormatsIncludeOnlyCommonAndThemselves) {
  const std::set<std::string> formats = format_folders();
  for (const std::string& folder : formats)
    for (const std::string& inc : includes_of(folder)) {
      const std::string target = inc.substr(inc.find(": ") + 2);
      const std::string to = target.substr(0, target.find('/'));
      const bool allowed = to == folder || to == "common" || target == "import.hpp";
      EXPECT_TRUE(allowed) << inc;
    }
  for (const std::string& inc : includes_of("common")) {
    const std::string target = inc.substr(inc.find(": ") + 2);
    EXPECT_TRUE(target.starts_with("common/") || target == "import.hpp") << inc;
  }
}

TEST(ImportRegistry, SniffedPathsGoToTheirReaderAndTheRestToTheLastRow) {
  test::ImportDir dir;
  const std::string json =
      dir.write("a.json", test::kineto_trace({test::x_event("cpu_op", "a", 1, 1, "1", "1")}));
  EXPECT_EQ(reader_for(json).name, "chrome");
  EXPECT_EQ(reader_for(dir.file("h.xplane.pb")).name, "xplane");  // by its name, even missing
  EXPECT_EQ(reader_for(dir.write("notes.txt", "hello")).name, trace_readers().back().name);
  EXPECT_EQ(reader_for(dir.file("missing")).name, trace_readers().back().name);
}

}  // namespace
}  // namespace ts::import
