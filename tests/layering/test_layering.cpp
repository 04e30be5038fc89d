// The module layering, held by a test (`ctest -R layer`): every #include of a project header
// in engine/, profiler/, cli/, gui/ and kernels/ must follow an allowed edge below. Dependencies
// point one way: gui -> analysis -> store; cli -> engine, capture, analysis, io, import;
// engine -> profiler/api (the public <trainscope/...> headers) only; engine/dist (data
// parallelism: communicators, the gradient allreduce) below engine/nn, which uses it; profiler/json
// (the JSON writer and UTF-8 checks) below every module that writes text. A new module,
// or a new edge, is a deliberate change to this table.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

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
    {"profiler/synth", {"profiler/store", "profiler/io", "trainscope"}},
    {"profiler/import", {"profiler/store", "profiler/json", "trainscope"}},
    {"profiler/import_cache", {"profiler/import", "profiler/store", "trainscope"}},
    {"profiler/render", {"profiler/analysis"}},
    {"cli",
     {"engine/core", "engine/backend", "engine/data", "engine/dist", "engine/nn", "profiler/store",
      "profiler/analysis", "profiler/io", "profiler/json", "profiler/import",
      "profiler/import_cache", "profiler/synth", "profiler/render", "trainscope"}},
    {"gui/models", {"profiler/analysis", "profiler/import_cache", "profiler/store", "trainscope"}},
    // Widgets reach the trace through gui/models (the session, trace_opener.hpp,
    // trace_comparison.hpp, trace_meta.hpp for the meta table), never the store, the importers
    // or the analysis directly; NamesNoModelLayerType below checks what they name.
    {"gui/widgets", {"gui/models"}},
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

// The source with its comments and string and character literals blanked (newlines kept, so
// line numbers stay), for checks of what the code itself names. Knows raw strings and digit
// separators (1'000 opens no character literal).
std::string code_only(const std::string& src) {
  std::string out = src;
  enum class In { code, line_comment, block_comment, quoted } in = In::code;
  char quote = 0;
  std::string raw_end;  // `)delim"` closing a raw string; empty for an ordinary literal
  bool number = false;  // the token being read started with a digit
  const auto blank = [&](std::size_t i) {
    if (out[i] != '\n') out[i] = ' ';
  };
  for (std::size_t i = 0; i < src.size(); ++i) {
    const char c = src[i];
    const char next = i + 1 < src.size() ? src[i + 1] : '\0';
    switch (in) {
      case In::line_comment:
        if (c == '\n')
          in = In::code;
        else
          blank(i);
        continue;
      case In::block_comment:
        if (c == '*' && next == '/') {
          blank(i);
          blank(++i);
          in = In::code;
        } else {
          blank(i);
        }
        continue;
      case In::quoted:
        if (!raw_end.empty()) {
          if (src.compare(i, raw_end.size(), raw_end) == 0) {
            for (std::size_t k = 0; k + 1 < raw_end.size(); ++k) blank(i + k);
            i += raw_end.size() - 1;
            in = In::code;
          } else {
            blank(i);
          }
        } else if (c == '\\') {
          blank(i);
          if (i + 1 < src.size()) blank(++i);
        } else if (c == quote) {
          in = In::code;
        } else {
          blank(i);
        }
        continue;
      case In::code:
        break;
    }
    const bool word = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    const bool after_word =
        i > 0 && (std::isalnum(static_cast<unsigned char>(src[i - 1])) || src[i - 1] == '_');
    if (word && !after_word) number = std::isdigit(static_cast<unsigned char>(c)) != 0;
    if (c == '/' && next == '/') {
      in = In::line_comment;
      blank(i);
    } else if (c == '/' && next == '*') {
      in = In::block_comment;
      blank(i);
      blank(++i);
    } else if (c == '\'' && number && after_word) {
      // a digit separator
    } else if (c == '"' || c == '\'') {
      raw_end.clear();
      if (c == '"' && i > 0 && src[i - 1] == 'R') {
        const std::size_t open = src.find('(', i);
        if (open != std::string::npos) raw_end = ")" + src.substr(i + 1, open - i - 1) + "\"";
      }
      quote = c;
      in = In::quoted;
    }
  }
  return out;
}

// Each line of `code` (code_only()'s) that names a namespace of the model layer: store::,
// analysis:: or import:: (ts::store, `using namespace ts::analysis` and aliases of them too), as
// "LINE: the line".
std::vector<std::string> model_layer_names(const std::string& code, const std::string& original) {
  static const std::regex names(
      R"((::\s*|\bnamespace\s+)(store|analysis|import)\b|\b(store|analysis|import)\s*::)");
  std::vector<std::string> found;
  std::istringstream lines(code), originals(original);
  std::string line, text;
  for (int n = 1; std::getline(lines, line) && std::getline(originals, text); ++n)
    if (std::regex_search(line, names)) found.push_back(std::to_string(n) + ": " + text);
  return found;
}

// A widget shows what gui/models hands it: it never names the store's, the importers' or the
// analysis' types or functions, even through a header that happens to include them (the include
// check above cannot see that). What it may name instead: the value types gui/models re-exports
// (gui/models/trace_types.hpp: Report, Step, Event, RunDiff, AnalysisOptions, ...) and gui/models'
// own classes and functions; it may hand the session's reader to a gui/models function. Comments
// and strings may mention anything.
TEST(Layering, WidgetsNameNoModelLayerType) {
  const fs::path root = TS_SOURCE_DIR;
  std::size_t files = 0;
  for (const char* dir : {"gui/widgets", "gui/app"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".h")) continue;
      ++files;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      const std::string rel = fs::relative(entry.path(), root).generic_string();
      for (const std::string& hit : model_layer_names(code_only(text.str()), text.str()))
        ADD_FAILURE() << rel << ":" << hit
                      << "\n  (a widget names the model layer: go through gui/models, or name the "
                         "type gui/models/trace_types.hpp re-exports)";
    }
  }
  EXPECT_GT(files, 20u);
}

TEST(Layering, TheWidgetCheckSeesCodeNotCommentsOrStrings) {
  const auto hits = [](const std::string& src) { return model_layer_names(code_only(src), src); };
  EXPECT_EQ(hits("const store::Step& s = x;\n").size(), 1u);
  EXPECT_EQ(hits("ts::analysis::Report r;\n").size(), 1u);
  EXPECT_EQ(hits("int a;\nimport :: ImportOptions o;\n"),
            std::vector<std::string>{"2: import :: ImportOptions o;"});
  EXPECT_EQ(hits("using namespace ts::store;\n").size(), 1u);
  EXPECT_EQ(hits("namespace sa = ts::analysis;\n").size(), 1u);
  EXPECT_EQ(hits("using namespace analysis;\n").size(), 1u);
  EXPECT_EQ(hits("auto x = 1'000'000; store::Event e;\n").size(), 1u);
  // Not code: comments, strings, characters; nor a name that merely contains the word.
  EXPECT_TRUE(hits("// store::Reader opens it\n").empty());
  EXPECT_TRUE(hits("/* analysis::diff\n   import::x */ int a;\n").empty());
  EXPECT_TRUE(hits("auto s = \"store::Reader \\\" analysis::x\";\n").empty());
  EXPECT_TRUE(hits("auto s = R\"x(store::Reader \" analysis::y)x\";\n").empty());
  EXPECT_TRUE(hits("char q = '\"'; // analysis::x\n").empty());
  EXPECT_TRUE(hits("ImportOptions import; o.analysis = a; restore::x(); analysis_::y;\n").empty());
  // Line numbers survive a block comment over several lines.
  EXPECT_EQ(hits("/* a\n b */\nstore::Step s;\n"), std::vector<std::string>{"3: store::Step s;"});
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
