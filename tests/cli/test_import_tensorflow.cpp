// TensorFlow profiles through the CLI, as a TensorBoard user points trainscope at them: a log
// directory, a run directory or one .xplane.pb, read by report/check/diff/import directly; --run
// picks a run of a log directory; bad profiles give one line and exit 2. The fixtures
// (tests/data/tensorflow/README.md) are real profiles of the Keras MNIST model with a naive and a
// tuned tf.data pipeline; each test copies what it uses into a temporary directory, since direct
// use writes its import cache beside the source.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "run_command.hpp"

namespace ts::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kData = "tests/data/tensorflow/";
const std::string kRun = "plugins/profile/2026_11_23_00_00_00/";

// Copies the fixture `name` (a log directory) into `dir`; returns the copy's path.
std::string copy_logdir(const TempDir& dir, const std::string& name) {
  const fs::path to = fs::path(dir.path()) / name;
  fs::create_directories(to / kRun);
  for (const auto& e : fs::directory_iterator(kData + name + "/" + kRun))
    if (e.path().extension() == ".pb") fs::copy_file(e.path(), to / kRun / e.path().filename());
  return to.string();
}

json report_json(const std::string& args) {
  const CommandResult r = run_trainscope("report --json " + args);
  EXPECT_EQ(r.status, 0) << r.err;
  return json::parse(r.out);
}

TEST(TensorFlow, NaivePipelineIsHighlyInputBoundWithItsMapStageNamed) {
  TempDir dir;
  const std::string naive = copy_logdir(dir, "naive");
  const CommandResult text = run_trainscope("report " + naive);
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_EQ(text.out.rfind("Highly input-bound: ", 0), 0u) << text.out;
  EXPECT_NE(text.out.find("bottleneck stage: map"), std::string::npos) << text.out;
  EXPECT_NE(text.err.find("imported " + naive), std::string::npos) << text.err;

  const json j = report_json(naive);
  EXPECT_EQ(j["verdict"], "high");
  EXPECT_GT(j["input_pct"].get<double>(), 90);
  EXPECT_EQ(j["pipeline"]["bottleneck_stage"], "map");

  // The same profile named as a run directory or as its one .xplane.pb file.
  EXPECT_EQ(report_json(naive + "/" + kRun)["verdict"], "high");
  EXPECT_EQ(report_json(naive + "/" + kRun + "host.xplane.pb")["verdict"], "high");
}

TEST(TensorFlow, TunedPipelineIsNotInputBoundAndCheckGatesOnIt) {
  TempDir dir;
  const std::string naive = copy_logdir(dir, "naive");
  const std::string tuned = copy_logdir(dir, "tuned");
  EXPECT_EQ(report_json(tuned)["verdict"], "none");
  EXPECT_EQ(run_trainscope("check " + tuned + " --max-input-pct 10").status, 0);
  const CommandResult gate = run_trainscope("check " + naive + " --max-input-pct 10");
  EXPECT_EQ(gate.status, 1);
  EXPECT_NE(gate.err.find("exceeds --max-input-pct 10"), std::string::npos) << gate.err;

  const CommandResult diff = run_trainscope("diff --json " + naive + " " + tuned);
  ASSERT_EQ(diff.status, 0) << diff.err;
  const json d = json::parse(diff.out);
  EXPECT_EQ(d["verdict"]["a"], "high");
  EXPECT_EQ(d["verdict"]["b"], "none");
}

TEST(TensorFlow, RunPicksAProfileRunOfALogDirectory) {
  TempDir dir;
  // One log directory, two runs: the naive profile captured first, the tuned one later.
  const fs::path logdir = fs::path(dir.path()) / "logs";
  const fs::path runs = logdir / "train/plugins/profile";
  fs::create_directories(runs / "2026_01_01_10_00_00");
  fs::create_directories(runs / "2026_01_01_11_00_00");
  fs::copy_file(kData + "naive/" + kRun + "host.xplane.pb",
                runs / "2026_01_01_10_00_00/host.xplane.pb");
  fs::copy_file(kData + "tuned/" + kRun + "host.xplane.pb",
                runs / "2026_01_01_11_00_00/host.xplane.pb");
  EXPECT_EQ(report_json(logdir.string())["verdict"], "none") << "the latest run by default";
  EXPECT_EQ(report_json("--run 2026_01_01_10_00_00 " + logdir.string())["verdict"], "high");
  EXPECT_EQ(report_json(logdir.string())["verdict"], "none") << "the cache follows --run";

  const std::string out = dir.file("naive.db");
  const CommandResult imported =
      run_trainscope("import " + logdir.string() + " --run 2026_01_01_10_00_00 -o " + out);
  ASSERT_EQ(imported.status, 0) << imported.err;
  EXPECT_EQ(report_json(out)["verdict"], "high");

  const CommandResult unknown = run_trainscope("report --run 1999 " + logdir.string());
  EXPECT_EQ(unknown.status, 2);
  EXPECT_EQ(std::count(unknown.err.begin(), unknown.err.end(), '\n'), 1) << unknown.err;
  EXPECT_NE(unknown.err.find("1999"), std::string::npos) << unknown.err;
}

TEST(TensorFlow, SeveralHostsAreOneProcessEach) {
  TempDir dir;
  const std::string hosts = copy_logdir(dir, "two_hosts");
  const std::string out = dir.file("hosts.db");
  const CommandResult r = run_trainscope("import " + hosts + " -o " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("in 2 processes"), std::string::npos) << r.out;
  EXPECT_EQ(report_json(out)["verdict"], "high");
  // Both hosts number their steps 2-6: the input-bound steps are listed per host, never merged
  // into one list that repeats and overlaps ("2, 2-3, 3-4, ..."); hosts with the same steps share
  // a line.
  const CommandResult text = run_trainscope("report " + out);
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("highly input-bound, ranks 0-1: 5 steps each: 2-6\n"), std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("2, 2-3"), std::string::npos) << text.out;
}

TEST(TensorFlow, BadProfilesGiveOneLineAndExitTwo) {
  TempDir dir;
  const fs::path run = fs::path(dir.path()) / "bad/plugins/profile/2026_01_01_00_00_00";
  fs::create_directories(run);
  const std::string empty_run = dir.file("empty/plugins/profile/2026_01_01_00_00_00");
  fs::create_directories(empty_run);
  write_file((run / "host.xplane.pb").string(), "this is not a protobuf at all \xff\xff\xff");
  const std::string truncated = dir.file("cut.xplane.pb");
  {
    const std::string whole = read_file(kData + "naive/" + kRun + "host.xplane.pb");
    write_file(truncated, whole.substr(0, whole.size() / 3));
  }
  const std::string riegeli = dir.file("host.xplane.riegeli");
  write_file(riegeli, std::string("\x83\xaf\x70\xd1\x0d\x88\x4a\x3f", 8) + "riegeli chunks");
  for (const std::string& path :
       {(run / "host.xplane.pb").string(), empty_run, truncated, riegeli}) {
    const CommandResult r = run_trainscope("report " + path);
    EXPECT_EQ(r.status, 2) << path << ": " << r.out;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << path << ": " << r.err;
  }
  const CommandResult r = run_trainscope("report " + riegeli);
  EXPECT_NE(r.err.find(".xplane.pb"), std::string::npos) << "says what to do: " << r.err;
}

}  // namespace
}  // namespace ts::test
