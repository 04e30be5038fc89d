// Captures of a traced child process (trace_child.cpp): one killed with SIGKILL keeps everything
// up to its last commit, TRAINSCOPE_TRACE traces a whole run, and write errors (a bad path, a
// file size limit) stop tracing with one warning, never the traced program.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "profiler/store/reader.hpp"
#include "tests/profiler/test_util.hpp"

namespace {

using ts::store::Reader;
using ts::test::TempDir;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// The last "flushed N dropped D" line the child printed in full: N events were recorded before
// a flush() that returned, D of them dropped by full buffers.
struct LastFlush {
  std::uint64_t recorded = 0, dropped = 0;
  int lines = 0;
};
LastFlush last_flush(const std::string& out) {
  LastFlush f;
  std::size_t pos = 0;
  for (std::size_t nl; (nl = out.find('\n', pos)) != std::string::npos; pos = nl + 1) {
    unsigned long long n = 0, d = 0;
    if (std::sscanf(out.substr(pos, nl - pos).c_str(), "flushed %llu dropped %llu", &n, &d) == 2) {
      f = {n, d, f.lines + 1};
    }
  }
  return f;
}

TEST(CaptureChild, SigkillLeavesATraceHoldingEverythingUpToTheLastCommit) {
  TempDir dir;
  const auto path = dir.file("killed.db");
  const pid_t pid =
      ts::test::spawn({TS_TRACE_CHILD, "until-killed", path}, {}, dir.file("out"), dir.file("err"));
  for (int i = 0; i < 500 && ts::test::read_file(dir.file("out")).empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(ts::test::read_file(dir.file("out")).rfind("ready\n", 0), 0u)
      << ts::test::read_file(dir.file("err"));
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  const std::int64_t kill_ns = ts::test::monotonic_ns_for_test();
  ::kill(pid, SIGKILL);
  EXPECT_EQ(ts::test::wait_exit_code(pid), 128 + SIGKILL);
  ASSERT_TRUE(std::filesystem::exists(path + "-wal"));  // never finished: still in WAL mode

  // Every event recorded before the last flush() that returned is in the file.
  const LastFlush flushed = last_flush(ts::test::read_file(dir.file("out")));
  ASSERT_GE(flushed.lines, 3) << ts::test::read_file(dir.file("out"));
  ASSERT_GT(flushed.recorded, 1000u);
  Reader r(path);
  EXPECT_GE(r.event_count(), static_cast<std::int64_t>(flushed.recorded - flushed.dropped));
  EXPECT_LE(flushed.dropped, flushed.recorded / 100);
  // So is everything up to the last periodic commit (every 100 ms): the trace reaches within
  // about a second of the kill.
  const auto range = r.time_range();
  EXPECT_GT(range.end_ns, kill_ns - 1'000'000'000)
      << "trace ends " << (kill_ns - range.end_ns) / 1e6 << " ms before the kill";
  EXPECT_LE(range.end_ns, kill_ns);
  int workers = 0;
  for (const auto& t : r.tracks()) workers += contains(t.name, "worker") ? 1 : 0;
  EXPECT_EQ(workers, 2);
  EXPECT_EQ(r.meta("dropped_events"), "0");
}

// trace_child's env mode over `zones` zones, traced through TRAINSCOPE_TRACE=<dir>/<name> with
// the further `env`; its stdout and stderr land in <dir>/<name>.out and .err. Returns its exit
// code.
int run_env_child(const TempDir& dir, const std::string& name, int zones,
                  std::vector<std::string> env = {}) {
  env.push_back("TRAINSCOPE_TRACE=" + dir.file(name));
  const pid_t pid = ts::test::spawn({TS_TRACE_CHILD, "env", std::to_string(zones)}, env,
                                    dir.file(name + ".out"), dir.file(name + ".err"));
  return ts::test::wait_exit_code(pid);
}

// A bad value of a further variable (`setting`): the child exits normally, untraced, after one
// warning holding `message`.
void expect_untraced_with_warning(const TempDir& dir, const std::string& setting,
                                  const std::string& message) {
  const auto bad = dir.file("bad.db");
  EXPECT_EQ(run_env_child(dir, "bad.db", 3, {setting}), 0);
  const auto err = ts::test::read_file(bad + ".err");
  EXPECT_TRUE(contains(err, message)) << err;
  EXPECT_TRUE(contains(err, "running without tracing")) << err;
  EXPECT_FALSE(std::filesystem::exists(bad));
}

TEST(CaptureChild, EnvironmentVariableTracesAWholeRun) {
  TempDir dir;
  const auto path = dir.file("env.db");
  ASSERT_EQ(run_env_child(dir, "env.db", 1000), 0) << ts::test::read_file(path + ".err");
  EXPECT_EQ(ts::test::read_file(path + ".err"), "");
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));  // stopped cleanly at exit
  Reader r(path);
  EXPECT_EQ(r.event_count(), 1000);
  EXPECT_EQ(r.meta("capture.activation"), "TRAINSCOPE_TRACE");
  EXPECT_TRUE(contains(r.meta("process.command_line").value_or(""), "env 1000"));
}

TEST(CaptureChild, EnvironmentVariableCanLeaveOutDeviceEvents) {
  TempDir dir;
  const auto path = dir.file("host_only.db");
  ASSERT_EQ(run_env_child(dir, "host_only.db", 10, {"TRAINSCOPE_TRACE_DEVICE=off"}), 0)
      << ts::test::read_file(path + ".err");
  EXPECT_EQ(ts::test::read_file(path + ".out"), "recording without device events\n");
  Reader r(path);
  EXPECT_EQ(r.event_count(), 10);
  EXPECT_EQ(r.meta("capture.device_events"), "off");
  // One step in K: written to the meta.
  const auto sampled = dir.file("sampled.db");
  ASSERT_EQ(run_env_child(dir, "sampled.db", 10, {"TRAINSCOPE_TRACE_DEVICE=every:3"}), 0)
      << ts::test::read_file(sampled + ".err");
  EXPECT_EQ(Reader(sampled).meta("capture.device_event_every"), "3");
  // Anything but on, off, auto or every:K: one warning, and the program runs untraced.
  expect_untraced_with_warning(dir, "TRAINSCOPE_TRACE_DEVICE=no",
                               "TRAINSCOPE_TRACE_DEVICE takes on, off, auto or every:K, not 'no'");
}

TEST(CaptureChild, EnvironmentVariableCanRecordARangeOfSteps) {
  TempDir dir;
  const auto path = dir.file("steps.db");
  ASSERT_EQ(run_env_child(dir, "steps.db", 10, {"TRAINSCOPE_TRACE_STEPS=2-4"}), 0)
      << ts::test::read_file(path + ".err");
  Reader r(path);
  EXPECT_EQ(r.steps().size(), 3u);
  EXPECT_EQ(r.meta("capture.steps"), "2-4");
  // Not a range: one warning, and the program runs untraced.
  expect_untraced_with_warning(dir, "TRAINSCOPE_TRACE_STEPS=two to four",
                               "TRAINSCOPE_TRACE_STEPS takes A-B, not 'two to four'");
}

TEST(CaptureChild, EnvironmentVariableWithABadPathWarnsAndRunsUntraced) {
  TempDir dir;
  const auto bad = dir.file("missing/dir/env.db");
  const pid_t pid = ts::test::spawn({TS_TRACE_CHILD, "env", "10"}, {"TRAINSCOPE_TRACE=" + bad},
                                    dir.file("out"), dir.file("err"));
  EXPECT_EQ(ts::test::wait_exit_code(pid), 0);
  const auto err = ts::test::read_file(dir.file("err"));
  EXPECT_TRUE(contains(err, "trainscope: TRAINSCOPE_TRACE: cannot create trace " + bad)) << err;
  EXPECT_TRUE(contains(err, "running without tracing")) << err;
}

// A write error (here: the file size limit, EFBIG) stops the recording with one warning naming
// the file; the program runs on and exits normally, and the trace opens with everything
// committed before the error and says in meta what was lost and why.
void check_write_error_run(const std::string& sigxfsz) {
  TempDir dir;
  const auto path = dir.file("full.db");
  const pid_t pid = ts::test::spawn({TS_TRACE_CHILD, "fsize", path, "4000000", sigxfsz}, {},
                                    dir.file("out"), dir.file("err"));
  EXPECT_EQ(ts::test::wait_exit_code(pid), 0) << ts::test::read_file(dir.file("err"));
  const auto out = ts::test::read_file(dir.file("out"));
  unsigned long long committed = 0;
  ASSERT_EQ(std::sscanf(out.c_str(), "recording stopped\ncommitted %llu", &committed), 1) << out;
  EXPECT_GT(committed, 0u);

  const auto err = ts::test::read_file(dir.file("err"));
  EXPECT_TRUE(contains(err, "trainscope: cannot write trace " + path)) << err;
  EXPECT_TRUE(contains(err, "File too large")) << err;
  const auto first = err.find("tracing stopped");
  ASSERT_NE(first, std::string::npos) << err;
  EXPECT_EQ(err.find("tracing stopped", first + 1), std::string::npos) << "warned twice: " << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;

  Reader r(path);
  EXPECT_GE(r.event_count(), static_cast<std::int64_t>(committed));
  EXPECT_EQ(r.meta("capture.events_written"), std::to_string(r.event_count()));
  EXPECT_TRUE(contains(r.meta("capture.write_error").value_or(""), "File too large"));
  EXPECT_GT(std::stoll(r.meta("capture.events_lost").value_or("0")), 0);
  EXPECT_EQ(r.meta("dropped_events"), "0");
  for (const auto& e : r.events(INT64_MIN, INT64_MAX)) {
    ASSERT_EQ(r.name(e), "filling");
    ASSERT_EQ(e.bytes, 4096);
  }
}

TEST(CaptureChild, WriteErrorStopsTracingWithOneWarning) {
  check_write_error_run("ignore");
}

// SIGXFSZ's default action ends the process; the writer thread blocks it, so the program lives.
TEST(CaptureChild, FileSizeLimitNeverKillsTheTracedProgram) {
  check_write_error_run("default");
}

}  // namespace
