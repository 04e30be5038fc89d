// Other tools' traces through the CLI: `trainscope import`, and report/check/diff/export taking a
// PyTorch trace directly through the import cache. The fixtures (tests/data/pytorch/README.md)
// are real torch.profiler traces of a DataLoader-bound and a tuned job; each test copies what it
// uses into a temporary directory, since direct use writes its cache beside the source.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "run_command.hpp"

namespace ts::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kData = "tests/data/pytorch/";

std::string copy_in(const TempDir& dir, const std::string& relative) {
  const fs::path from = kData + relative;
  const fs::path to = fs::path(dir.path()) / from.filename();
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  return to.string();
}

json report_json(const std::string& file, const std::string& env = "") {
  const CommandResult r = run_trainscope("report --json " + file, env);
  EXPECT_EQ(r.status, 0) << r.err;
  return json::parse(r.out);
}

TEST(ImportCommand, WritesATraceAndSaysWhatItImported) {
  TempDir dir;
  const std::string out = dir.file("out.db");
  const CommandResult r =
      run_trainscope("import " + kData + "input_bound.pt.trace.json.gz -o " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Imported 1 source into " + out), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Steps: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ProfilerStep"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(out));
  EXPECT_FALSE(fs::exists(out + ".partial"));
  const json j = report_json(out);
  EXPECT_EQ(j["steps"], 9);  // the first of the 10 profiled steps is warm-up
  EXPECT_EQ(j["phases"]["whole_run"]["steps"], 10);
  EXPECT_EQ(j["phases"]["warmup"]["first_step"], 2);
  EXPECT_EQ(j["source"]["format"], "kineto");
}

TEST(ImportCommand, BadUsageAndNotATraceExitTwoWithOneLine) {
  TempDir dir;
  for (const std::string& args :
       {std::string("import"), "import " + kData + "tuned.pt.trace.json.gz",
        "import -o " + dir.file("x.db"), "import " + kData + "tuned.pt.trace.json.gz -o"}) {
    const CommandResult r = run_trainscope(args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
  }
  const std::string not_json = dir.file("notes.json");
  write_file(not_json, "these are my notes, not a trace\n");
  const CommandResult r = run_trainscope("import " + not_json + " -o " + dir.file("y.db"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(not_json), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("y.db")));
  const CommandResult report = run_trainscope("report " + not_json);
  EXPECT_EQ(report.status, 2);
  EXPECT_NE(report.err.find(not_json), std::string::npos) << report.err;
}

// An event more than 2^47 ns (about 39 h) from the trace's key origin cannot be keyed by the
// store: it is counted as skipped by the import, and every report of the trace warns about it.
// One event of three is more than 1 % lost: the import needs --allow-partial.
TEST(ImportCommand, EventsTooFarFromTheFirstAreReportedNotSilentlyLost) {
  TempDir dir;
  const std::string in = dir.file("long.json"), out = dir.file("long.db");
  // ts in microseconds: the third step starts 40 h after the first.
  write_file(in, R"({"traceEvents": [
    {"ph": "X", "name": "ProfilerStep#1", "ts": 0, "dur": 10, "pid": 1, "tid": 1},
    {"ph": "X", "name": "ProfilerStep#2", "ts": 100, "dur": 10, "pid": 1, "tid": 1},
    {"ph": "X", "name": "ProfilerStep#3", "ts": 144000000000, "dur": 10, "pid": 1, "tid": 1}]})");
  const CommandResult refused = run_trainscope("import " + in + " -o " + out);
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("33.3 % of its 3 events could not be imported (1 out_of_key_range)"),
            std::string::npos)
      << refused.err;
  EXPECT_FALSE(fs::exists(out));
  const CommandResult r = run_trainscope("import " + in + " -o " + out + " --allow-partial");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(": 2 events in 1 process"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Skipped: 1 out_of_key_range"), std::string::npos) << r.out;
  const json j = report_json(out);
  ASSERT_EQ(j["warnings"].size(), 1u) << j["warnings"];
  EXPECT_NE(j["warnings"][0].get<std::string>().find("1 event started more than 39 hours"),
            std::string::npos)
      << j["warnings"];
  const CommandResult check = run_trainscope("check " + out + " --max-input-pct 100");
  EXPECT_EQ(check.status, 1) << check.out << check.err;
  EXPECT_EQ(run_trainscope("check " + out + " --max-input-pct 100 --allow-partial").status, 0);
}

// The DataLoader-bound job is highly input-bound and the tuned one is not; check gates on it;
// diff shows the change.
TEST(DirectUse, VerdictCheckAndDiffOnPyTorchTraces) {
  TempDir dir;
  const std::string bound = copy_in(dir, "input_bound.pt.trace.json.gz");
  const std::string tuned = copy_in(dir, "tuned.pt.trace.json.gz");

  const CommandResult text = run_trainscope("report " + bound);
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_EQ(text.out.rfind("Highly input-bound: ", 0), 0u) << text.out;
  EXPECT_NE(text.err.find("imported " + bound + " into " + bound + ".trainscope.db"),
            std::string::npos)
      << text.err;
  EXPECT_NE(text.out.find("source      imported kineto trace"), std::string::npos) << text.out;

  const json b = report_json(bound);
  EXPECT_EQ(b["verdict"], "high");
  EXPECT_GT(b["input_pct"].get<double>(), 50.0);
  EXPECT_EQ(b["steps"], 9);
  const json t = report_json(tuned);
  EXPECT_EQ(t["verdict"], "none");
  EXPECT_LT(t["input_pct"].get<double>(), 5.0);
  for (const json* j : {&b, &t}) {
    double parts = 0;
    for (const auto& [k, v] : (*j)["breakdown_ms"].items()) parts += v.get<double>();
    EXPECT_NEAR(parts, (*j)["step_time_total_ms"].get<double>(), 0.01 + 1e-6 * parts);
  }

  EXPECT_EQ(run_trainscope("check " + bound + " --max-input-pct 5").status, 1);
  EXPECT_EQ(run_trainscope("check " + tuned + " --max-input-pct 5").status, 0);

  const CommandResult d = run_trainscope("diff " + bound + " " + tuned);
  ASSERT_EQ(d.status, 0) << d.err;
  EXPECT_EQ(d.out.rfind("B is ", 0), 0u) << d.out;
  EXPECT_NE(d.out.find("faster than A"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("high -> none"), std::string::npos) << d.out;
}

TEST(DirectUse, TheCacheIsReusedUntilTheSourceChanges) {
  TempDir dir;
  const std::string bound = copy_in(dir, "input_bound.pt.trace.json.gz");
  const std::string cache = bound + ".trainscope.db";
  const CommandResult first = run_trainscope("report --json " + bound);
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_NE(first.err.find("imported"), std::string::npos);
  ASSERT_TRUE(fs::exists(cache));
  const auto made = fs::last_write_time(cache);

  const CommandResult again = run_trainscope("report --json " + bound);
  EXPECT_EQ(again.status, 0);
  EXPECT_EQ(again.err, "");  // reused silently
  EXPECT_EQ(fs::last_write_time(cache), made);
  EXPECT_EQ(again.out, first.out);

  // The same bytes touched (another modification time) are the same source: reused. A new
  // version of the source (other bytes) is imported again.
  fs::last_write_time(bound, fs::last_write_time(bound) + std::chrono::seconds(5));
  const CommandResult touched = run_trainscope("report --json " + bound);
  EXPECT_EQ(touched.status, 0);
  EXPECT_EQ(touched.err, "");
  fs::copy_file(kData + "tuned.pt.trace.json.gz", bound, fs::copy_options::overwrite_existing);
  const CommandResult changed = run_trainscope("report --json " + bound);
  EXPECT_EQ(changed.status, 0);
  EXPECT_NE(changed.err.find("imported"), std::string::npos);

  // Another step marker is another import.
  const CommandResult marker =
      run_trainscope("report --json --step-marker '^ProfilerStep#' " + bound);
  EXPECT_EQ(marker.status, 0) << marker.err;
  EXPECT_NE(marker.err.find("imported"), std::string::npos);
}

TEST(DirectUse, AReadOnlyDirectoryKeepsTheCacheInTheUserCacheDirectory) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes into read-only directories";
  TempDir dir;
  const std::string bound = copy_in(dir, "tuned.pt.trace.json.gz");
  const std::string cache_home = dir.file("cache-home");
  ASSERT_EQ(chmod(dir.path().c_str(), 0555), 0);
  const CommandResult r = run_trainscope("report --json " + bound, "XDG_CACHE_HOME=" + cache_home);
  chmod(dir.path().c_str(), 0755);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find(cache_home + "/trainscope/"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(bound + ".trainscope.db"));
}

// Root ignores directory permissions: check the fallback with a directory the cache cannot be
// created in because its name is taken by a file that is not a trace.
TEST(DirectUse, ACacheNameTakenByAnotherFileFallsBackToTheUserCacheDirectory) {
  TempDir dir;
  const std::string bound = copy_in(dir, "tuned.pt.trace.json.gz");
  write_file(bound + ".trainscope.db", "someone else's file");
  const std::string cache_home = dir.file("cache-home");
  const CommandResult r = run_trainscope("report --json " + bound, "XDG_CACHE_HOME=" + cache_home);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find(cache_home + "/trainscope/"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(bound + ".trainscope.db"), "someone else's file");
}

TEST(DirectUse, StepsAreInferredWithoutMarkersAndTheReportSaysHow) {
  TempDir dir;
  const std::string file = copy_in(dir, "no_step_markers.pt.trace.json.gz");
  const json j = report_json(file);
  EXPECT_GE(j["steps"].get<int>(), 8);
  const std::string how = j["source"]["steps"];
  EXPECT_NE(how.find("inferred"), std::string::npos) << how;
  EXPECT_NE(how.find("DataLoader"), std::string::npos) << how;
  EXPECT_EQ(j["verdict"], "high");
  const CommandResult text = run_trainscope("report " + file);
  EXPECT_NE(text.out.find("steps from  inferred"), std::string::npos) << text.out;
}

// One file per rank in a directory: one process each, with per-rank figures.
TEST(DirectUse, ADirectoryOfRankTracesGivesPerRankFigures) {
  TempDir dir;
  const std::string ranks = copy_in(dir, "two_ranks");
  const json j = report_json(ranks);
  ASSERT_EQ(j["ranks"].size(), 2u);
  EXPECT_EQ(j["ranks"][0]["rank"], 0);
  EXPECT_EQ(j["ranks"][1]["rank"], 1);
  EXPECT_EQ(j["steps"], j["ranks"][0]["steps"].get<int>() + j["ranks"][1]["steps"].get<int>());
  // Rank 1 ran the heavy transform: it is the input-bound one; rank 0 waits in the allreduce.
  EXPECT_GT(j["ranks"][1]["input_pct"].get<double>(), 20.0);
  EXPECT_LT(j["ranks"][0]["input_pct"].get<double>(), 5.0);
  EXPECT_GT(j["ranks"][0]["breakdown_ms"]["collective"].get<double>(),
            j["ranks"][1]["breakdown_ms"]["collective"].get<double>());
  // Rank 0 waits in gloo's allreduce for rank 1: rank 1 is the straggler, held back by input.
  ASSERT_TRUE(j["straggler"].is_object()) << j.dump();
  EXPECT_EQ(j["straggler"]["rank"], 1);
  EXPECT_EQ(j["straggler"]["cause"], "input");
  EXPECT_GT(j["straggler"]["wait_ms_per_step"].get<double>(), 100.0);
  EXPECT_EQ(j["communication"]["verdict"], "high");
  EXPECT_TRUE(fs::exists(ranks + "/two_ranks.trainscope.db"));
}

// Two profiling spans of one worker (files without distributedInfo or a rank in their names, as
// tensorboard_trace_handler names them): separate processes, never called ranks.
TEST(DirectUse, AFolderOfSpansWithoutDistributedInfoIsProcessesNotRanks) {
  TempDir dir;
  const fs::path spans = fs::path(dir.path()) / "spans";
  fs::create_directories(spans);
  fs::copy_file(kData + "input_bound.pt.trace.json.gz",
                spans / "worker_77.1700000000001.pt.trace.json.gz");
  fs::copy_file(kData + "tuned.pt.trace.json.gz",
                spans / "worker_77.1700000000002.pt.trace.json.gz");
  const std::string out = dir.file("spans.db");
  const CommandResult imported = run_trainscope("import " + spans.string() + " -o " + out);
  ASSERT_EQ(imported.status, 0) << imported.err;
  EXPECT_NE(imported.out.find("Processes: 2 files without distributedInfo (or a rank in the file "
                              "name), treated as separate processes.\n"),
            std::string::npos)
      << imported.out;
  const CommandResult report = run_trainscope("report " + out);
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.out.find("\nprocesses   2 files without distributedInfo, treated as separate "
                            "processes"),
            std::string::npos)
      << report.out;
  EXPECT_EQ(report.out.find("rank"), std::string::npos) << report.out;
  const json j = report_json(out);
  ASSERT_EQ(j["ranks"].size(), 2u);
  EXPECT_TRUE(j["ranks"][0]["rank"].is_null()) << j["ranks"][0].dump();
  EXPECT_EQ(j["ranks"][0]["name"], "worker_77.1700000000001.pt.trace.json.gz");
}

TEST(DirectUse, RealGpuTracesReportDeviceFiguresAndCollectives) {
  TempDir dir;
  const std::string ranks = copy_in(dir, "gpu/two_ranks");
  const json j = report_json(ranks);
  ASSERT_EQ(j["ranks"].size(), 2u);
  EXPECT_TRUE(j["device"]["present"].get<bool>());
  EXPECT_GT(j["breakdown_ms"]["device_compute"].get<double>(), 0);
  EXPECT_GT(j["breakdown_ms"]["collective"].get<double>(), 0);
  bool nccl = false;
  for (const json& k : j["kernels"]) nccl = nccl || k["name"].get<std::string>().find("nccl") == 0;
  EXPECT_TRUE(nccl);
  const std::string rocm = copy_in(dir, "gpu/rocm_mi250_minitoy_train.json.gz");
  const json r = report_json(rocm);
  EXPECT_TRUE(r["device"]["present"].get<bool>());
  EXPECT_GT(r["kernels"].size(), 0u);
}

TEST(DirectUse, ExportWritesTheImportedTraceAsChromeJson) {
  TempDir dir;
  const std::string bound = copy_in(dir, "input_bound.pt.trace.json.gz");
  const std::string out = dir.file("out.json");
  const CommandResult r = run_trainscope("export " + bound + " --chrome " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(read_file(out));
  EXPECT_GT(j["traceEvents"].size(), 1000u);
}

}  // namespace
}  // namespace ts::test
