// `trainscope train` under faults: SIGTERM and SIGHUP stop it after the current step with the
// trace and the summary written, bad flags are one error before anything runs, a missing OpenCL
// runtime falls back to the CPU (or is one error when asked for, leaving no trace file), and a full
// disk during the capture stops the writing but not the training.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "child_process.hpp"
#include "run_command.hpp"

namespace ts {
namespace {

using test::run_trainscope;
namespace fs = std::filesystem;

std::size_t line_count(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

class TrainFaults : public ::testing::Test {
 protected:
  test::TempDir dir_;
};

class StopSignal : public TrainFaults, public ::testing::WithParamInterface<int> {};

TEST_P(StopSignal, StopsAfterTheStepWithTheTraceAndTheSummaryWritten) {
  const int sig = GetParam();
  struct sigaction current {};
  ::sigaction(sig, nullptr, &current);
  if (current.sa_handler == SIG_IGN) GTEST_SKIP() << "the signal is ignored here (nohup)";
  const std::string trace = dir_.file("run.db"), summary = dir_.file("run.json");
  test::Child child({"train", "--backend", "cpu", "--epochs", "100000", "--dataset",
                     "synthetic:2048", "--trace", trace, "--summary-json", summary});
  ASSERT_TRUE(child.started());
  ASSERT_TRUE(child.read_until("Epoch 2/", std::chrono::seconds(60)));
  child.signal(sig);
  child.drain(std::chrono::seconds(60));
  const int status = child.wait(std::chrono::seconds(60));
  EXPECT_FALSE(child.timed_out()) << "the process did not stop";
  EXPECT_EQ(status, 128 + sig);
  const std::string json = test::read_file(summary);
  EXPECT_NE(json.find("\"stopped_early\":true"), std::string::npos) << json;
  const auto report = run_trainscope("report " + trace);
  EXPECT_EQ(report.status, 0) << report.err;
  EXPECT_EQ(report.err, "");
}

INSTANTIATE_TEST_SUITE_P(Signals, StopSignal, ::testing::Values(SIGTERM, SIGHUP),
                         [](const auto& info) { return info.param == SIGTERM ? "TERM" : "HUP"; });

TEST_F(TrainFaults, BadFlagsAreOneErrorBeforeAnythingRuns) {
  const std::string db = dir_.file("x.db");
  fs::create_directory(dir_.file("sub"));
  fs::create_symlink(db, dir_.file("link.db"));
  const std::string bad[] = {
      "--trace " + db + " --summary-json " + db,
      "--trace " + db + " --summary-json " + dir_.path() + "/./x.db",
      "--trace " + db + " --summary-json " + dir_.path() + "/sub/../x.db",
      "--trace " + db + " --summary-json " + dir_.file("link.db"),
      "--trace ''",
      "--summary-json ''",
      "--trace /dev/null",
      "--trace " + dir_.path(),
      "--lr inf",
      "--lr nan",
      "--lr -1",
      "--lr 0",
      "--lr 1e300",
  };
  for (const std::string& flags : bad) {
    const auto r = run_trainscope("train --backend cpu --epochs 1 --dataset synthetic:64 " + flags);
    EXPECT_EQ(r.status, 2) << flags;
    EXPECT_EQ(line_count(r.err), 1u) << flags << ": " << r.err;
    EXPECT_EQ(r.out.find("Epoch"), std::string::npos) << "trained although " << flags;
  }
  EXPECT_FALSE(fs::exists(db));
}

TEST_F(TrainFaults, AnUnwritableSummaryIsOneErrorAndTheTraceIsStillWritten) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const std::string trace = dir_.file("run.db");
  const auto r = run_trainscope("train --backend cpu --epochs 1 --dataset synthetic:64 --quiet " +
                                std::string("--summary-json /dev/full --trace ") + trace);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("--summary-json /dev/full: No space left on device"), std::string::npos)
      << r.err;
  EXPECT_EQ(run_trainscope("report " + trace).status, 0);
}

TEST_F(TrainFaults, NoOpenClRuntimeFallsBackOrIsOneError) {
  // An ICD loader that finds no vendor file sees no platform.
  const std::string hide = "OCL_ICD_VENDORS=/nonexistent OCL_ICD_FILENAMES=";
  const std::string summary = dir_.file("auto.json");
  const auto fallback = run_trainscope(
      "train --backend auto --epochs 1 --dataset synthetic:64 --quiet --summary-json " + summary,
      hide);
  ASSERT_EQ(fallback.status, 0) << fallback.err;
  EXPECT_EQ(line_count(fallback.err), 1u) << fallback.err;
  EXPECT_NE(fallback.err.find("using the CPU backend"), std::string::npos) << fallback.err;
  EXPECT_NE(test::read_file(summary).find("\"backend\":\"cpu\""), std::string::npos);

  // The trace it had started holds nothing but the set-up: it is not left behind.
  const std::string trace = dir_.file("opencl.db");
  const auto asked = run_trainscope(
      "train --backend opencl --epochs 1 --dataset synthetic:64 --quiet --trace " + trace, hide);
  EXPECT_EQ(asked.status, 2);
  EXPECT_EQ(line_count(asked.err), 1u) << asked.err;
  EXPECT_NE(asked.err.find("--backend opencl"), std::string::npos) << asked.err;
  EXPECT_FALSE(fs::exists(trace));
  EXPECT_FALSE(fs::exists(trace + "-wal"));
}

// A small file system of its own (tmpfs, as root) that fills up while the capture writes: the
// training goes on, one line says that tracing stopped, and the trace opens with a report that
// says it is partial.
TEST_F(TrainFaults, AFullDiskStopsTheCaptureNotTheTraining) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root";
  const std::string mnt = dir_.file("small");
  fs::create_directory(mnt);
  if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=2m") != 0)
    GTEST_SKIP() << "cannot mount a tmpfs here: " << std::strerror(errno);
  const std::string trace = mnt + "/run.db";
  const auto r =
      run_trainscope("train --backend cpu --epochs 8 --dataset synthetic:4096 --summary-json " +
                     dir_.file("run.json") + " --trace " + trace);
  const auto report = run_trainscope("report " + trace);
  ::umount2(mnt.c_str(), MNT_DETACH);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("Epoch 8/8"), std::string::npos) << r.out;
  EXPECT_NE(test::read_file(dir_.file("run.json")).find("\"epochs\""), std::string::npos);
  // The trace opens and says it is partial; when the disk filled before the first events were
  // stored, the report says that instead (one line, exit 2).
  if (report.status == 0) {
    EXPECT_NE(report.out.find("warning"), std::string::npos) << report.out;
  } else {
    EXPECT_EQ(report.status, 2);
    EXPECT_EQ(line_count(report.err), 1u) << report.err;
    EXPECT_NE(report.err.find("the capture stopped writing after an error"), std::string::npos)
        << report.err;
    EXPECT_NE(report.err.find("No space left on device"), std::string::npos) << report.err;
  }
}

}  // namespace
}  // namespace ts
