// Bad input for report, check, diff and export: files that are not traces, truncated, corrupt,
// of a newer schema, empty or missing, and wrong flags. Each gives exactly one line on stderr
// naming the file or flag, nothing on stdout, and exit status 2 — never a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "bad_traces.hpp"
#include "run_command.hpp"

namespace ts::test {
namespace {

// One line, "trainscope: ...", holding `needle`.
void expect_one_line_error(const CommandResult& r, const std::string& needle,
                           const std::string& what) {
  EXPECT_EQ(r.status, 2) << what << "\n" << r.err;
  EXPECT_EQ(r.out, "") << what;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << "\n" << r.err;
  EXPECT_EQ(r.err.rfind("trainscope: ", 0), 0u) << what << "\n" << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << what << ": '" << needle << "' not in\n"
                                                   << r.err;
}

class BadInput : public ::testing::Test {
 protected:
  TempDir dir_;
  const std::string good_ = "traces/input_bound.db";
};

TEST_F(BadInput, EveryCommandRefusesEveryBadFileByName) {
  const std::string out = dir_.file("out.json");
  for (const auto& [what, path] : bad_traces(dir_)) {
    const std::vector<std::pair<std::string, std::string>> commands = {
        {"report", "report " + path},
        {"report --json", "report --json " + path},
        {"check", "check " + path + " --max-input-pct 5"},
        {"check --baseline",
         "check " + good_ + " --baseline " + path + " --max-step-time-increase-pct 5"},
        {"diff A", "diff " + path + " " + good_},
        {"diff B", "diff " + good_ + " " + path},
        {"export", "export " + path + " --chrome " + out},
    };
    for (const auto& [name, args] : commands) {
      const CommandResult r = run_trainscope(args);
      expect_one_line_error(r, path, name + " on " + what);
    }
    EXPECT_FALSE(std::filesystem::exists(out)) << what;
  }
}

TEST_F(BadInput, MessagesSayWhatIsWrong) {
  std::map<std::string, std::string> path_of;
  for (const auto& [what, path] : bad_traces(dir_)) path_of[what] = path;
  const auto err = [&](const std::string& what) {
    return run_trainscope("report " + path_of.at(what)).err;
  };
  EXPECT_NE(err("text_file")
                .find("is not a trainscope trace, a JSON trace or a TensorFlow "
                      "profile (it starts with 'step,loss')"),
            std::string::npos)
      << err("text_file");
  EXPECT_NE(err("html_json")
                .find("html_page.json is not a JSON trace (it starts with "
                      "'<!DOCTYPE html>', an HTML or XML document"),
            std::string::npos)
      << err("html_json");
  // `import` reads it as JSON and says the same of its first character.
  const CommandResult import =
      run_trainscope("import " + path_of.at("html_json") + " -o " + dir_.file("imported.db"));
  expect_one_line_error(import, "html_page.json is not a JSON trace (it starts with '<!DOCTYPE",
                        "import");
  EXPECT_NE(err("other_sqlite_db").find("is not a trainscope trace"), std::string::npos);
  EXPECT_NE(err("truncated").find("is truncated"), std::string::npos);
  EXPECT_NE(err("corrupt").find("corrupt"), std::string::npos);
  EXPECT_NE(err("newer_schema").find("schema version 99"), std::string::npos);
  EXPECT_NE(err("no_events").find("holds no events"), std::string::npos);
  EXPECT_NE(err("missing").find("No such file"), std::string::npos);
}

TEST_F(BadInput, ATraceWithEventsButNoStepIsAnalysedAsOneWholeWindowStep) {
  const std::string path = dir_.file("no_steps.db");
  {
    store::Writer w(path);
    w.put_string(1, "load");
    w.put_label(1, 1, trace::Category::input_read);
    w.put_track(1, "worker", trace::TrackKind::thread);
    const std::vector<store::EventRow> rows = {{1000, 500, 1, 1}};
    w.append(std::span<const store::EventRow>(rows));
    w.finish();
  }
  const CommandResult report = run_trainscope("report " + path);
  EXPECT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.out.find("no step markers: the figures cover the whole profiled window as one "
                            "step"),
            std::string::npos)
      << report.out;
  const CommandResult check = run_trainscope("check " + path + " --max-input-pct 5");
  // Its one event is a read on the only thread (the step's): the step is all input.
  EXPECT_EQ(check.status, 1) << check.out << check.err;
  EXPECT_NE(check.out.find("1 of 1 limit violated"), std::string::npos) << check.out;
  expect_one_line_error(run_trainscope("report " + path + " --steps 0-3"), "holds no step",
                        "report");
  const CommandResult r = run_trainscope("export " + path + " --chrome " + dir_.file("o.json"));
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST_F(BadInput, UnknownFlagsAndMissingArgumentsAreUsageErrors) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"report " + good_ + " --bogus", "--bogus"},
      {"report " + good_ + " --json=yes", "--json=yes"},
      {"report", "needs one trace file"},
      {"report " + good_ + " " + good_, "needs one trace file"},
      {"report " + good_ + " --gpu-hour-price -1", "--gpu-hour-price"},
      {"report " + good_ + " --gpu-hour-price abc", "--gpu-hour-price"},
      {"report " + good_ + " --step-input-threshold 101", "--step-input-threshold"},
      {"report " + good_ + " --gpu-hour-price", "--gpu-hour-price"},
      {"check " + good_, "at least one limit"},
      {"check " + good_ + " --max-input-pct", "--max-input-pct"},
      {"check " + good_ + " --max-input-pct five", "--max-input-pct"},
      {"check " + good_ + " --max-input-pct -1", "--max-input-pct"},
      {"check " + good_ + " --max-device-idle-pct nan", "--max-device-idle-pct"},
      {"check " + good_ + " --baseline " + good_, "--max-step-time-increase-pct"},
      {"check " + good_ + " --max-step-time-increase-pct 5", "--baseline"},
      {"check " + good_ + " --max-input-pct 5 --limit 3", "--limit"},
      {"check --max-input-pct 5", "needs one trace file"},
      {"check " + good_ + " --max-input-pct 5 --junit /nonexistent-dir/j.xml",
       "--junit /nonexistent-dir/j.xml"},
      {"diff " + good_, "needs two trace files"},
      {"diff " + good_ + " " + good_ + " " + good_, "needs two trace files"},
      {"diff " + good_ + " " + good_ + " --text", "--text"},
      {"export " + good_, "--chrome"},
      {"export " + good_ + " --chrome", "--chrome"},
      {"export " + good_ + " --perfetto x.json", "--perfetto"},
      {"export --chrome x.json", "needs one trace file"},
      {"export " + good_ + " --chrome " + good_, "would overwrite"},
      {"export " + good_ + " --chrome /nonexistent-dir/out.json", "/nonexistent-dir/out.json"},
      {"frobnicate " + good_, "unknown command 'frobnicate'"},
  };
  for (const auto& [args, needle] : cases)
    expect_one_line_error(run_trainscope(args), needle, args);
}

TEST_F(BadInput, ACheckThatCannotReadItsInputWritesNoJUnitFile) {
  const std::string junit = dir_.file("j.xml");
  const CommandResult r =
      run_trainscope("check " + dir_.file("missing.db") + " --max-input-pct 5 --junit " + junit);
  EXPECT_EQ(r.status, 2);
  EXPECT_FALSE(std::filesystem::exists(junit));
}

}  // namespace
}  // namespace ts::test
