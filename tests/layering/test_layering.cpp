// The module layering, held by a test (`ctest -R layer`): every #include of a project header
// in engine/, profiler/, cli/, gui/ and kernels/ must follow an allowed edge below. Dependencies
// point one way: gui -> analysis -> store; cli -> engine, capture, analysis, io, import;
// engine -> profiler/api (the public <trainscope/...> headers) only; engine/dist (data
// parallelism: communicators, the gradient allreduce) below engine/nn, which uses it; profiler/json
// (the JSON writer and UTF-8 checks) below every module that writes text. A new module,
// or a new edge, is a deliberate change to this table.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

namespace {

namespace fs = std::filesystem;

// module -> the modules it may include (besides itself). "trainscope" is the profiler's public
// API (profiler/api/include/trainscope/*.hpp, included as <trainscope/...>).
const std::map<std::string, std::set<std::string>> kAllowed = {
    {"kernels", {}},
    {"engine/core", {}},
    {"engine/backend", {"engine/core", "kernels", "trainscope"}},
    {"engine/data", {"engine/core", "trainscope"}},
    {"engine/dist", {"trainscope"}},
    {"engine/nn", {"engine/core", "engine/backend", "engine/data", "engine/dist", "trainscope"}},
    {"profiler/api", {"trainscope"}},
    {"profiler/store", {"trainscope"}},
    {"profiler/json", {}},
    {"profiler/capture", {"profiler/store", "trainscope"}},
    {"profiler/analysis", {"profiler/store", "profiler/json", "trainscope"}},
    {"profiler/io", {"profiler/store", "profiler/json", "trainscope"}},
    {"profiler/synth", {"profiler/store", "trainscope"}},
    {"profiler/import", {"profiler/store", "profiler/json", "trainscope"}},
    {"profiler/import_cache", {"profiler/import", "profiler/store", "trainscope"}},
    {"cli",
     {"engine/core", "engine/backend", "engine/data", "engine/dist", "engine/nn", "profiler/store",
      "profiler/analysis", "profiler/io", "profiler/json", "profiler/import",
      "profiler/import_cache", "profiler/synth", "trainscope"}},
    {"gui/models", {"profiler/analysis", "profiler/import_cache", "profiler/store", "trainscope"}},
    // Widgets reach the trace through gui/models (the session, trace_meta.hpp for the meta
    // table), never the store or its meta keys directly.
    {"gui/widgets", {"gui/models", "profiler/analysis", "profiler/import_cache"}},
    {"gui/app", {"gui/widgets", "gui/models"}},
};

// The module of a source path relative to the repository: its first two directories, with
// engine/data/pipeline part of engine/data, every gui/widgets/* part of gui/widgets and every
// gui/models/* part of gui/models.
std::string module_of(const std::string& path) {
  const std::string top = path.substr(0, path.find('/'));
  if (top == "kernels" || top == "cli") return top;
  const std::size_t second = path.find('/', top.size() + 1);
  return second == std::string::npos ? top : path.substr(0, second);
}

// The module an #include names, or "" for a system or third-party header.
std::string included_module(const std::string& header) {
  if (header.rfind("trainscope/", 0) == 0) return "trainscope";
  for (const char* top : {"engine/", "profiler/", "gui/"})
    if (header.rfind(top, 0) == 0) return module_of(header);
  if (header.rfind("cli/", 0) == 0) return "cli";
  if (header.rfind("kernels/", 0) == 0) return "kernels";
  return "";
}

TEST(Layering, EveryIncludeFollowsAnAllowedEdge) {
  const fs::path root = TS_SOURCE_DIR;
  const std::regex include(R"(^\s*#\s*include\s*[<"]([^>"]+)[>"])");
  std::set<std::string> violations, unknown;
  std::size_t files = 0, edges = 0;
  for (const char* top : {"engine", "profiler", "cli", "gui", "kernels"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".h")) continue;
      const std::string rel = fs::relative(entry.path(), root).generic_string();
      // The public API headers live under profiler/api/include/trainscope.
      const std::string from = rel.rfind("profiler/api/", 0) == 0 ? "profiler/api" : module_of(rel);
      const auto allowed = kAllowed.find(from);
      if (allowed == kAllowed.end()) {
        unknown.insert(from + " (" + rel + ")");
        continue;
      }
      ++files;
      std::ifstream in(entry.path());
      std::string line;
      std::smatch m;
      while (std::getline(in, line)) {
        if (!std::regex_search(line, m, include)) continue;
        const std::string to = included_module(m[1]);
        if (to.empty() || to == from) continue;
        ++edges;
        if (!allowed->second.count(to))
          violations.insert(rel + " includes " + m[1].str() + " (" + from + " -> " + to + ")");
      }
    }
  }
  for (const std::string& u : unknown) ADD_FAILURE() << "module not in the layering table: " << u;
  for (const std::string& v : violations) ADD_FAILURE() << "backward include: " << v;
  EXPECT_GT(files, 100u);
  EXPECT_GT(edges, 50u);
}

TEST(Layering, ModulesAreNamedByTheirDirectories) {
  EXPECT_EQ(module_of("engine/data/pipeline/pipeline.cpp"), "engine/data");
  EXPECT_EQ(module_of("gui/widgets/timeline/timeline_view.cpp"), "gui/widgets");
  EXPECT_EQ(module_of("gui/models/timeline/draw_list.cpp"), "gui/models");
  EXPECT_EQ(module_of("cli/main.cpp"), "cli");
  EXPECT_EQ(included_module("trainscope/trace.hpp"), "trainscope");
  EXPECT_EQ(included_module("profiler/store/reader.hpp"), "profiler/store");
  EXPECT_EQ(included_module("QWidget"), "");
  EXPECT_EQ(included_module("gtest/gtest.h"), "");
}

}  // namespace
