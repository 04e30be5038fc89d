// trainscope train --steps and trainscope tune, as a user runs them: the runs, their table, the
// flags tune refuses, a job that does not run.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "run_command.hpp"

namespace ts::test {
namespace {

TEST(TrainSteps, StopsAfterTheStepsAndSaysTheRecentLoss) {
  TempDir dir;
  const std::string summary = dir.path() + "/s.json";
  const auto r = run_trainscope(
      "train --dataset synthetic:640 --batch 32 --steps 27 --backend cpu --quiet "
      "--summary-json " +
      summary);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(read_file(summary));
  EXPECT_EQ(j["steps"], 27);  // one epoch of 20 steps and 7 of the next
  EXPECT_EQ(j["epochs"].size(), 2u);
  EXPECT_EQ(j["recent_loss_steps"], 27);  // fewer steps than the 32 it averages over
  EXPECT_GT(j["recent_loss"].get<double>(), 0.0);
  EXPECT_FALSE(j["stopped_early"].get<bool>());
}

nlohmann::json tune(const std::string& flags, const std::string& env = "") {
  const auto r = run_trainscope(
      "tune --dataset synthetic:960 --backend cpu --steps 24 --repeat 1 "
      "--json " +
          flags,
      env);
  EXPECT_EQ(r.status, 0) << r.err;
  return r.status == 0 ? nlohmann::json::parse(r.out) : nlohmann::json{};
}

const nlohmann::json* run_of(const nlohmann::json& t, const std::string& change) {
  for (const auto& run : t["runs"])
    if (run["change"] == change) return &run;
  return nullptr;
}

TEST(TuneCommand, MeasuresEveryLeverItCanChange) {
  TempDir dir;
  const auto t = tune("--pipeline naive --batch 16 --keep " + dir.path() + "/runs");
  ASSERT_TRUE(t.contains("runs"));
  EXPECT_EQ(t["steps"], 24);
  const auto& first = t["runs"][0];
  EXPECT_EQ(first["lever"], "as_is");
  ASSERT_TRUE(first.contains("measured")) << first;
  EXPECT_EQ(first["measured"]["batch"], 16);
  EXPECT_EQ(first["measured"]["backend"], "cpu");
  EXPECT_GT(first["measured"]["step_ms"].get<double>(), 0.0);
  EXPECT_GT(first["measured"]["cost_per_epoch"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(first["measured"]["speedup"].get<double>(), 1.0);

  // The naive pipeline gets the tuned one; the batch doubled and halved; the other optimizer and
  // precision; the other backend (which may have no device here: then its run says why).
  for (const std::string change : {"--pipeline tuned", "--batch 32", "--batch 8", "--optimizer sgd",
                                   "--precision mixed", "--backend opencl"})
    EXPECT_NE(run_of(t, change), nullptr) << change << "\n" << t.dump(1);
  for (const std::string change :
       {"--pipeline tuned", "--batch 32", "--batch 8", "--optimizer sgd", "--precision mixed"}) {
    const auto* run = run_of(t, change);
    ASSERT_NE(run, nullptr);
    ASSERT_TRUE(run->contains("measured")) << *run;
    EXPECT_TRUE(run->contains("miss")) << *run;  // projected and measured
    EXPECT_GT((*run)["measured"]["speedup"].get<double>(), 0.0);
  }
  EXPECT_EQ((*run_of(t, "--batch 32"))["measured"]["batch"], 32);
  EXPECT_EQ((*run_of(t, "--batch 32"))["projected"]["kind"], "estimate");
  // No faster f16 math on the CPU backend: a bound, not an estimate.
  EXPECT_EQ((*run_of(t, "--precision mixed"))["projected"]["kind"], "at_most");
  const auto* other = run_of(t, "--backend opencl");
  EXPECT_EQ((*other)["projected"]["kind"], "none");
  EXPECT_TRUE(other->contains("measured") || other->contains("error")) << *other;
  const int cheapest = t["cheapest"];
  ASSERT_GE(cheapest, 0);
  EXPECT_TRUE(t["runs"][cheapest].contains("measured"));

  // --keep kept the traces, which report reads.
  const std::string trace = first["measured"]["trace"];
  ASSERT_TRUE(std::filesystem::exists(trace)) << trace;
  const auto report = run_trainscope("report --json " + trace);
  EXPECT_EQ(report.status, 0) << report.err;
}

TEST(TuneCommand, TextTableNamesTheCheapestAndHowEachWasProjected) {
  const auto r = run_trainscope(
      "tune --dataset synthetic:960 --backend cpu --steps 24 --repeat 1 --optimizer sgd");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("lever"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--optimizer adam"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Cheapest measured: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("scaled by the batch"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("tune: run 2 of"), std::string::npos) << r.err;  // progress on stderr
}

TEST(TuneCommand, RefusesWhatItSetsAndSaysWhyAJobDidNotRun) {
  for (const std::string flags : {"--trace x.db", "--epochs 3", "--summary-json s.json"}) {
    const auto r = run_trainscope("tune --backend cpu " + flags);
    EXPECT_EQ(r.status, 2) << flags;
    EXPECT_NE(r.err.find("set by tune itself"), std::string::npos) << r.err;
  }
  const auto bad = run_trainscope("tune --dataset synthetic:0 --backend cpu --steps 10");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("the job as given did not run"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("synthetic"), std::string::npos) << bad.err;
  EXPECT_EQ(run_trainscope("tune --steps 3").status, 2);  // fewer than tune can analyse
  EXPECT_EQ(run_trainscope("tune --bogus").status, 2);
}

}  // namespace
}  // namespace ts::test
