// `mpirun -np 2 trainscope train`: data parallelism end to end on the CPU backend. Two ranks at
// batch B train as one process at batch 2B; rank 0 speaks, every rank writes its summary; MPMD
// launches may differ in pipeline but not in what decides the batches; the merged trace has one
// process per rank, steps per rank and the allreduce as collective events with bytes; a rank
// killed mid-run leaves the others' data for `trainscope merge`; a rank on another clock (a time
// namespace standing in for another host) is moved onto rank 0's clock.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "profiler/store/reader.hpp"
#include "tests/cli/run_command.hpp"
#include "tests/profiler/test_util.hpp"
#include "tests/support/mpirun.hpp"

namespace ts::test {
namespace {

using Json = nlohmann::json;

const std::string kBin = TRAINSCOPE_BIN;

CommandResult shell(const std::string& cmd) {
  return run_shell(cmd);
}

std::string train(const std::string& flags) {
  return kBin + " train --backend cpu --threads 1 " + flags;
}

std::vector<double> losses(const std::string& summary) {
  const Json j = Json::parse(read_file(summary));
  std::vector<double> out;
  for (const Json& e : j.at("epochs")) out.push_back(e.at("loss").get<double>());
  return out;
}

#ifdef TS_NO_TRACING
#define SKIP_WITHOUT_TRACING() GTEST_SKIP() << "built with -DTRAINSCOPE_WITH_TRACING=OFF"
#else
#define SKIP_WITHOUT_TRACING() static_cast<void>(0)
#endif

std::map<std::string, std::string> meta(const store::Reader& r) {
  std::map<std::string, std::string> m;
  for (auto& [k, v] : r.meta()) m[k] = v;
  return m;
}

// A blocking allreduce cannot end on one rank before the other has entered it, so on a common
// clock every pair of matching allreduces of a two-rank trace overlaps, within `tolerance_ns`.
// (Scheduling on a loaded machine moves the ranks' ends apart, never this causality.)
void expect_matching_allreduces_overlap(const store::Reader& reader, std::int64_t tolerance_ns) {
  std::vector<store::Event> allreduces[2];
  for (const auto& e : reader.events(0, INT64_MAX))
    if (e.category == trace::Category::collective)
      allreduces[reader.track(e.track)->process - 1].push_back(e);
  ASSERT_EQ(allreduces[0].size(), allreduces[1].size());
  ASSERT_FALSE(allreduces[0].empty());
  for (std::size_t i = 0; i < allreduces[0].size(); ++i) {
    const auto& a = allreduces[0][i];
    const auto& b = allreduces[1][i];
    EXPECT_GE(a.end_ns() + tolerance_ns, b.start_ns) << "allreduce " << i;
    EXPECT_GE(b.end_ns() + tolerance_ns, a.start_ns) << "allreduce " << i;
  }
}

TEST(TrainMpi, TwoRanksAtBatchBMatchOneProcessAtBatch2B) {
  TempDir dir;
  const std::string data = "--dataset synthetic:600 --epochs 2 --seed 3 ";
  for (const std::string mode : {"blocking", "bucketed"}) {
    const CommandResult par =
        shell(mpirun() + "-np 2 " +
              train(data + "--batch 16 --allreduce " + mode + " --bucket-kib 64 --summary-json " +
                    dir.file(mode + ".json")));
    ASSERT_EQ(par.status, 0) << par.out << par.err;
    // Rank 0 speaks for the job: one progress report, not two.
    EXPECT_NE(par.out.find("Data parallel: 2 ranks (mpi), batch 16 per rank = 32 per step"),
              std::string::npos)
        << par.out;
    EXPECT_EQ(par.out.find("Model: mlp"), par.out.rfind("Model: mlp")) << par.out;
    EXPECT_NE(par.out.find("weights identical on every rank"), std::string::npos) << par.out;

    const Json s0 = Json::parse(read_file(dir.file(mode + ".json")));
    const Json s1 = Json::parse(read_file(dir.file(mode + ".rank1.json")));
    EXPECT_EQ(s0.at("rank").get<double>(), 0);
    EXPECT_EQ(s1.at("rank").get<double>(), 1);
    EXPECT_EQ(s0.at("world_size").get<double>(), 2);
    EXPECT_EQ(s0.at("allreduce").at("mode").get<std::string>(), mode);
    EXPECT_EQ(s0.at("allreduce").at("bytes_per_step").get<double>(), 101770 * 4);
    EXPECT_EQ(losses(dir.file(mode + ".json")), losses(dir.file(mode + ".rank1.json")));
  }
  const CommandResult one =
      shell("env -u OMPI_COMM_WORLD_SIZE " +
            train(data + "--batch 32 --summary-json " + dir.file("one.json")));
  ASSERT_EQ(one.status, 0) << one.err;
  const Json s = Json::parse(read_file(dir.file("one.json")));
  EXPECT_EQ(s.at("rank").get<double>(), 0);
  EXPECT_EQ(s.at("world_size").get<double>(), 1);
  EXPECT_FALSE(s.contains("allreduce"));
  const auto single = losses(dir.file("one.json"));
  for (const std::string mode : {"blocking", "bucketed"}) {
    const auto par = losses(dir.file(mode + ".json"));
    ASSERT_EQ(par.size(), single.size());
    for (std::size_t e = 0; e < single.size(); ++e)
      EXPECT_NEAR(par[e], single[e], 1e-5 * single[e]) << mode << ", epoch " << e;
  }
}

TEST(TrainMpi, OneTraceWithOneProcessPerRank) {
  SKIP_WITHOUT_TRACING();
  TempDir dir;
  const std::string trace = dir.file("job.db");
  const CommandResult r =
      shell(mpirun() + "-np 2 " +
            train("--dataset synthetic:512 --epochs 2 --batch 32 --trace " + trace));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("Trace: " + trace + " (2 of 2 ranks"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(trace + ".rank0.part")) << "merged parts are removed";
  EXPECT_FALSE(std::filesystem::exists(trace + ".rank1.part"));

  const store::Reader reader(trace);
  ASSERT_EQ(reader.processes().size(), 2u);
  for (int r = 0; r < 2; ++r) {
    const store::Process& p = reader.processes()[static_cast<std::size_t>(r)];
    EXPECT_EQ(p.rank, r);
    EXPECT_GT(p.pid, 0);
    EXPECT_FALSE(p.host.empty());
    EXPECT_EQ(p.name,
              "rank " + std::to_string(r) + " (" + p.host + " pid " + std::to_string(p.pid) + ")");
  }
  for (const auto& t : reader.tracks()) EXPECT_NE(t.process, store::kNull) << t.name;
  // 512 samples at 2 x 32: 8 steps per epoch, numbered alike on both ranks.
  std::map<std::int64_t, int> steps;
  for (const auto& s : reader.steps()) {
    ++steps[s.step];
    EXPECT_NE(reader.track(s.track)->process, store::kNull);
  }
  EXPECT_EQ(steps.size(), 16u);
  for (const auto& [step, n] : steps) EXPECT_EQ(n, 2) << "step " << step;
  // The allreduce: one collective event per step and rank, with the gradient buffer's bytes.
  std::map<std::int64_t, int> collectives;  // process -> count
  for (const auto& e : reader.events(0, INT64_MAX)) {
    if (e.category != trace::Category::collective) continue;
    EXPECT_EQ(e.bytes, 101770 * 4);
    EXPECT_NE(e.step, store::kNull);
    ++collectives[reader.track(e.track)->process];
  }
  EXPECT_EQ(collectives[1], 16);
  EXPECT_EQ(collectives[2], 16);
  // One host's CLOCK_MONOTONIC: the ranks' matching allreduces overlap in time.
  expect_matching_allreduces_overlap(reader, 100'000);

  const auto m = meta(reader);
  EXPECT_EQ(m.at("dist.world_size"), "2");
  EXPECT_EQ(m.at("dist.backend"), "mpi");
  EXPECT_EQ(m.at("dist.missing_ranks"), "");
  EXPECT_EQ(m.at("clock.alignment"), "monotonic");
  EXPECT_EQ(m.at("engine.model"), "mlp");
  EXPECT_EQ(m.at("rank.1.dist.state"), "complete");
  EXPECT_EQ(m.count("clock.rank.1.error_ns"), 1u);

  const CommandResult report = shell(kBin + " report --json " + trace);
  ASSERT_EQ(report.status, 0) << report.err;
  const Json j = Json::parse(report.out);
  ASSERT_TRUE(j.contains("ranks")) << report.out;
  EXPECT_EQ(j.at("ranks").size(), 2u);
  EXPECT_EQ(shell(kBin + " report " + trace).status, 0);
}

TEST(TrainMpi, MpmdRanksMayRunDifferentPipelines) {
  SKIP_WITHOUT_TRACING();
  TempDir dir;
  const std::string images = dir.file("digits");
  ASSERT_EQ(shell(kBin + " make-dataset --from synthetic:256 --to images:" + images).status, 0);
  const std::string trace = dir.file("mpmd.db");
  const std::string common =
      "--dataset images:" + images + " --epochs 2 --batch 16 --trace " + trace + " ";
  const CommandResult r = shell(mpirun() + "-np 1 " + train(common + "--pipeline tuned") +
                                " : -np 1 " + train(common + "--pipeline naive"));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const store::Reader reader(trace);
  EXPECT_EQ(reader.processes().size(), 2u);
  const auto m = meta(reader);
  EXPECT_EQ(m.at("pipeline.preset"), "tuned");
  EXPECT_EQ(m.at("rank.1.pipeline.preset"), "naive");
  const CommandResult report = shell(kBin + " report --json " + trace);
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_EQ(Json::parse(report.out).at("ranks").size(), 2u);
}

TEST(TrainMpi, RanksThatDisagreeOnTheBatchFailClearlyOnEveryRank) {
  const std::string common = "--dataset synthetic:256 --epochs 1 ";
  const CommandResult r = shell(mpirun(120) + "-np 1 " + train(common + "--batch 16") +
                                " : -np 1 " + train(common + "--batch 32"));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.status, 124) << "the job hung";
  const std::string said = "disagree on --batch: rank 0 has 16, rank 1 has 32";
  for (const std::string rank : {"rank 0: ", "rank 1: "})
    EXPECT_NE(r.err.find("trainscope: " + rank +
                         "the ranks of this job must train the same "
                         "model on the same data, but they " +
                         said),
              std::string::npos)
        << r.err;
  EXPECT_EQ(r.out.find("Epoch"), std::string::npos) << "nothing trained";
}

// The pid of a rank, from its part's meta (committed when its capture started).
pid_t rank_pid(const std::string& part) {
  try {
    const store::Reader reader(part);
    const auto pid = reader.meta("process.pid");
    return pid ? static_cast<pid_t>(std::stol(*pid)) : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

TEST(TrainMpi, AKilledRankLeavesTheOthersDataForMerge) {
  SKIP_WITHOUT_TRACING();
  TempDir dir;
  const std::string trace = dir.file("job.db");
  const pid_t job = spawn(
      {"/bin/sh", "-c",
       mpirun(120) + "-np 2 " + train("--dataset synthetic:2048 --epochs 1000 --trace " + trace)},
      {}, dir.file("out"), dir.file("err"));
  pid_t victim = 0;
  for (int i = 0; i < 300 && victim == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    victim = rank_pid(trace + ".rank1.part");
  }
  ASSERT_GT(victim, 0) << read_file(dir.file("err"));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // a few hundred steps
  ASSERT_EQ(::kill(victim, SIGKILL), 0);
  const int status = wait_exit_code(job);
  EXPECT_NE(status, 0);
  EXPECT_NE(status, 124) << "the surviving rank hung";
  EXPECT_FALSE(std::filesystem::exists(trace)) << "nobody merged: the job ended early";
  ASSERT_TRUE(std::filesystem::exists(trace + ".rank0.part"));

  const CommandResult merge = shell(kBin + " merge " + trace);
  ASSERT_EQ(merge.status, 0) << merge.out << merge.err;
  EXPECT_NE(merge.out.find("Merged 2 of 2 ranks into " + trace), std::string::npos) << merge.out;
  EXPECT_NE(merge.out.find("Cut short (the capture was killed): rank(s) 1"), std::string::npos)
      << merge.out;
  const store::Reader reader(trace);
  const auto m = meta(reader);
  EXPECT_EQ(m.at("dist.missing_ranks"), "1");
  EXPECT_EQ(m.at("dist.cut_short_ranks"), "1");
  EXPECT_EQ(m.at("rank.0.dist.state"), "terminated") << "rank 0 committed on mpirun's SIGTERM";
  EXPECT_EQ(m.at("rank.1.dist.state"), "killed");
  std::map<std::int64_t, int> steps_per_process;
  for (const auto& s : reader.steps()) ++steps_per_process[reader.track(s.track)->process];
  EXPECT_GT(steps_per_process[1], 20) << "the survivor's steps are all there";
  EXPECT_EQ(shell(kBin + " report " + trace).status, 0);

  // Without rank 1's part at all, it is absent.
  std::filesystem::remove(trace + ".rank1.part");
  std::filesystem::remove(trace + ".rank1.part-wal");
  const CommandResult alone = shell(kBin + " merge " + trace);
  ASSERT_EQ(alone.status, 0) << alone.err;
  EXPECT_NE(alone.out.find("No part from rank(s) 1"), std::string::npos) << alone.out;
  EXPECT_EQ(meta(store::Reader(trace)).at("dist.absent_ranks"), "1");
}

bool can_fake_another_host() {
  return ::geteuid() == 0 && shell(
                                 "unshare -m -T -u --fork --monotonic=1000 sh -c "
                                 "'hostname ts-other-host && mount -t tmpfs tmpfs /mnt'")
                                     .status == 0;
}

TEST(TrainMpi, ARankOnAnotherHostIsMovedOntoRankZerosClockAndSendsItsPart) {
  SKIP_WITHOUT_TRACING();
  if (!can_fake_another_host())
    GTEST_SKIP() << "needs root, and mount, UTS and time namespaces (unshare) to fake a host";
  TempDir dir;
  const std::string trace = dir.file("hosts.db");
  const std::string flags = "--dataset synthetic:512 --epochs 2 --batch 32 --trace " + trace;
  // Rank 1 runs as on a second machine: its own host name, a CLOCK_MONOTONIC 1000 s ahead of
  // rank 0's (a time namespace), and its own disk where rank 0 has the trace's directory (a
  // tmpfs mounted over it in a mount namespace): rank 0 cannot read its part, which comes over
  // MPI.
  const CommandResult r = shell(mpirun() + "-np 1 " + train(flags) +
                                " : -np 1 unshare -m -T -u --fork --monotonic=1000 sh -c "
                                "'hostname ts-other-host && mount -t tmpfs tmpfs " +
                                dir.path() + " && exec " + train(flags) + "'");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_FALSE(std::filesystem::exists(trace + ".rank1.part")) << "the shipped copy is removed";
  EXPECT_NE(r.out.find("aligned to rank 0 by MPI ping-pong"), std::string::npos) << r.out;
  const store::Reader reader(trace);
  const auto m = meta(reader);
  EXPECT_EQ(m.at("clock.alignment"), "mpi_ping_pong");
  const std::int64_t offset = std::stoll(m.at("clock.rank.1.offset_ns"));
  EXPECT_NEAR(static_cast<double>(offset), 1e12, 1e7);
  EXPECT_LT(std::stoll(m.at("clock.rank.1.error_ns")), 1'000'000);
  EXPECT_EQ(reader.processes()[1].host, "ts-other-host");
  expect_matching_allreduces_overlap(reader, std::stoll(m.at("clock.rank.1.error_ns")) + 100'000);
}

}  // namespace
}  // namespace ts::test
