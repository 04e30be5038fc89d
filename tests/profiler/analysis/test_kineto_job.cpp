// The synthetic Kineto job (profiler/synth/kineto_job.hpp): files as torch.profiler writes them on
// N ranks, whose planted ranks the import and the analysis find.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "profiler/analysis/report.hpp"
#include "profiler/import/import.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/synth/kineto_job.hpp"
#include "tests/profiler/test_util.hpp"

namespace ts::synth {
namespace {

using Json = nlohmann::json;

TEST(KinetoJob, WritesOneKinetoFilePerRankWithStepsThatEndTogether) {
  test::TempDir dir;
  KinetoJobOptions o;
  o.ranks = 4;
  o.steps = 5;
  const KinetoJobResult r = write_kineto_job(dir.path() + "/job", o);
  EXPECT_EQ(r.steps, 5);
  std::map<std::string, std::vector<double>> step_ends;  // ProfilerStep#k -> each rank's end
  std::vector<double> kernel_us(4);
  for (int rank = 0; rank < 4; ++rank) {
    const Json doc =
        Json::parse(test::read_file(dir.path() + "/job/rank-" + std::to_string(rank) + ".json"));
    EXPECT_EQ(doc["distributedInfo"]["rank"], rank);
    EXPECT_EQ(doc["distributedInfo"]["world_size"], 4);
    EXPECT_EQ(doc["deviceProperties"][0]["computeMajor"], 8);
    std::map<std::int64_t, int> correlations;  // a launch and its kernel share one
    for (const Json& e : doc["traceEvents"]) {
      if (e["ph"] != "X") continue;
      const std::string name = e["name"], cat = e["cat"];
      if (name.rfind("ProfilerStep#", 0) == 0)
        step_ends[name].push_back(e["ts"].get<double>() + e["dur"].get<double>());
      if (cat == "kernel" && name == "ampere_sgemm_128x64_tn")
        kernel_us[static_cast<std::size_t>(rank)] += e["dur"].get<double>();
      if (cat == "kernel" || cat == "cuda_runtime" || cat == "gpu_memcpy")
        if (e["args"].contains("correlation") && e["args"]["correlation"] != 0)
          ++correlations[e["args"]["correlation"].get<std::int64_t>()];
    }
    for (const auto& [id, n] : correlations) EXPECT_EQ(n, 2) << "correlation " << id;
  }
  ASSERT_EQ(step_ends.size(), 5u);
  for (const auto& [step, ends] : step_ends) {
    ASSERT_EQ(ends.size(), 4u);
    EXPECT_DOUBLE_EQ(*std::min_element(ends.begin(), ends.end()),
                     *std::max_element(ends.begin(), ends.end()))
        << step;
  }
  // The straggler's kernels take kStragglerScale times as long as the others'.
  EXPECT_NEAR(kernel_us[1] / kernel_us[0], kStragglerScale, 0.05);
}

TEST(KinetoJob, ImportAndAnalysisNameThePlantedRanks) {
  test::TempDir dir;
  KinetoJobOptions o;
  o.ranks = 6;
  o.steps = 8;
  o.gzip = true;
  write_kineto_job(dir.path() + "/job", o);
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/job/rank-5.json.gz"));
  const std::string trace = dir.path() + "/job.db";
  const std::vector<std::string> sources{dir.path() + "/job"};
  import::import_traces(sources, trace);
  const store::Reader reader(trace);
  const analysis::Report report = analysis::analyse(reader);
  ASSERT_EQ(report.ranks.size(), 6u);
  ASSERT_TRUE(report.straggler);
  EXPECT_EQ(report.straggler->rank, 1);
  EXPECT_EQ(report.straggler->cause, "device compute");
  // The job overview names both planted ranks that hold the others back, each with its cause;
  // the rank with more collectives does not hold anyone back.
  ASSERT_TRUE(report.job);
  ASSERT_EQ(report.job->holding_back.size(), 2u);
  EXPECT_EQ(report.job->holding_back[0].index, 1);
  EXPECT_EQ(report.job->holding_back[0].cause, "device compute");
  EXPECT_EQ(report.job->holding_back[1].index, 2);
  EXPECT_EQ(report.job->holding_back[1].cause, "input");
  const auto most_input =
      std::max_element(report.ranks.begin(), report.ranks.end(),
                       [](const auto& a, const auto& b) { return a.input_pct < b.input_pct; });
  ASSERT_TRUE(most_input->rank);
  EXPECT_EQ(*most_input->rank, 2);
}

// A job's analysis cut by start time into parts read on threads of their own, each rank at one of
// its own step starts, gives the report one sequential pass gives, however many parts.
TEST(KinetoJob, AJobsAnalysisInPartsIsTheSequentialOne) {
  test::TempDir dir;
  KinetoJobOptions o;
  o.ranks = 5;
  o.steps = 30;
  o.kernels_per_step = 12;
  write_kineto_job(dir.path() + "/job", o);
  const std::string trace = dir.path() + "/job.db";
  const std::vector<std::string> sources{dir.path() + "/job"};
  import::import_traces(sources, trace);
  const store::Reader reader(trace);
  analysis::AnalysisOptions one;
  one.threads = 1;
  const std::string sequential = analysis::to_json(analysis::analyse(reader, one));
  EXPECT_NE(sequential.find("\"straggler\""), std::string::npos);
  for (const int threads : {2, 3, 7}) {
    analysis::AnalysisOptions parts;
    parts.threads = threads;
    EXPECT_EQ(analysis::to_json(analysis::analyse(reader, parts)), sequential) << threads;
  }
}

}  // namespace
}  // namespace ts::synth
