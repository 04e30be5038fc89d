// The job overview (job_overview.hpp), hand-built. The trace: 16 ranks of 4 steps of 10 ms each
// that meet in an allreduce (the host blocked in a collective) at the end of every step. A normal
// rank waits 1 ms for input, runs a 5 ms kernel and waits 4 ms in the allreduce (own work 6 ms).
// Rank 3 waits 3 ms for input (own work 8 ms: input-late, although its largest part is the
// kernel); rank 9 runs a 6.5 ms kernel (own work 7.5 ms: compute-late). Every figure below is
// computed by hand from these.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <span>

#include "profiler/analysis/job_overview.hpp"
#include "profiler/analysis/ranks.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/analysis/report_codec.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/writer.hpp"
#include "tests/profiler/store_fixture.hpp"
#include "tests/profiler/test_util.hpp"

namespace {

namespace a = ts::analysis;
using ts::store::EventRow;
using ts::trace::Category;
using ts::trace::TrackKind;

constexpr std::int64_t kT = 1'000'000'000;
constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kUs = 1'000;
constexpr int kRanks = 16;
constexpr int kSteps = 4;
constexpr int kInputLate = 3, kComputeLate = 9;
// Figures through the breakdown may differ from the hand-computed ones by a nanosecond per step.
constexpr double kNear = 1e-4;

enum Label : std::uint32_t { kStep = 1, kWait, kKernel, kAllreduce };

std::string write_job(const ts::test::TempDir& dir) {
  const std::string path = dir.file("job.db");
  ts::store::Writer w(path);
  ts::test::put_labels(w, {{kStep, "step", Category::step},
                           {kWait, "wait for batch", Category::input_wait},
                           {kKernel, "gemm", Category::kernel},
                           {kAllreduce, "allreduce", Category::collective}});
  std::vector<EventRow> rows;
  for (int k = 0; k < kRanks; ++k) {
    const auto process = static_cast<std::uint32_t>(k + 1);
    const std::uint32_t trainer = 2 * process, queue = 2 * process + 1;
    w.put_process(process, "rank " + std::to_string(k), k);
    w.put_track(trainer, "trainer", TrackKind::thread, 100 + k, process);
    w.put_track(queue, "gpu compute", TrackKind::device_queue, ts::store::kNull, process);
    const std::int64_t input = (k == kInputLate ? 3 : 1) * kMs;
    const std::int64_t kernel = k == kComputeLate ? 6500 * kUs : 5 * kMs;
    for (int s = 0; s < kSteps; ++s) {
      const std::int64_t t = kT + s * 10 * kMs;
      rows.push_back({t, 10 * kMs, trainer, kStep, s});
      rows.push_back({t, input, trainer, kWait, s});
      rows.push_back({t + input, kernel, queue, kKernel, s});
      // The allreduce ends for every rank when the last one (rank 3, at 8 ms) is done + 2 ms.
      rows.push_back({t + input + kernel, 10 * kMs - input - kernel, trainer, kAllreduce, s});
    }
  }
  std::sort(rows.begin(), rows.end(),
            [](const EventRow& x, const EventRow& y) { return x.start_ns < y.start_ns; });
  w.append(std::span<const EventRow>(rows));
  w.finish();
  return path;
}

a::Report analyse_job(const ts::test::TempDir& dir) {
  const ts::store::Reader reader(write_job(dir));
  a::AnalysisOptions o;
  o.skip_warmup = 0;
  return a::analyse(reader, o);
}

TEST(JobOverview, RanksAsADistributionAndTheRanksHoldingTheJobBack) {
  ts::test::TempDir dir;
  const a::Report r = analyse_job(dir);
  ASSERT_EQ(r.ranks.size(), static_cast<std::size_t>(kRanks));
  ASSERT_TRUE(r.job.has_value());
  const a::JobOverview& job = *r.job;
  EXPECT_EQ(job.ranks, kRanks);
  // Step time: 10 ms on every rank.
  EXPECT_NEAR(job.step_ms.median, 10, kNear);
  EXPECT_NEAR(job.step_ms.p90, 10, kNear);
  EXPECT_NEAR(job.step_ms.max, 10, kNear);
  // Input: fifteen ranks 1 ms, rank 3 3 ms. p90 sits at 13.5 of 0..15: between two 1s.
  EXPECT_NEAR(job.input_ms.median, 1, kNear);
  EXPECT_NEAR(job.input_ms.p90, 1, kNear);
  EXPECT_NEAR(job.input_ms.max, 3, kNear);
  // Collective: 2 (rank 3), 2.5 (rank 9), fourteen 4s.
  EXPECT_NEAR(job.collective_ms.median, 4, kNear);
  EXPECT_NEAR(job.collective_ms.max, 4, kNear);
  // Own work: fourteen 6s, 7.5, 8: the median at 7.5 of 0..15 is 6; p90 at 13.5 halfway from 6
  // to 7.5.
  EXPECT_NEAR(job.own_ms.median, 6, kNear);
  EXPECT_NEAR(job.own_ms.p90, 6.75, kNear);
  EXPECT_NEAR(job.own_ms.max, 8, kNear);
  // The most own work first: rank 3, rank 9, then the 6 ms ranks by index.
  ASSERT_EQ(job.worst.size(), 5u);
  EXPECT_EQ(job.worst[0].index, kInputLate);
  EXPECT_NEAR(job.worst[0].own_ms, 8, kNear);
  EXPECT_NEAR(job.worst[0].input_ms, 3, kNear);
  EXPECT_NEAR(job.worst[0].collective_ms, 2, kNear);
  EXPECT_EQ(job.worst[1].index, kComputeLate);
  EXPECT_EQ(job.worst[2].index, 0);
  EXPECT_EQ(job.worst[4].index, 2);
  // The median rank: the 9th of 16 from the top (the lower middle), a 6 ms rank; 5 % of its
  // 10 ms step is the threshold.
  EXPECT_NEAR(job.threshold_ms, 0.5, kNear);
  EXPECT_NE(job.median_rank, kInputLate);
  EXPECT_NE(job.median_rank, kComputeLate);
  EXPECT_NEAR(job.device_ms, kRanks * kSteps * 10.0, kNear);

  ASSERT_EQ(job.holding_back.size(), 2u);
  const a::JobOverview::HoldingBack& late = job.holding_back[0];
  EXPECT_EQ(late.index, kInputLate);
  // Input-late: its kernel (5 ms) is its largest part, but input is what exceeds the median
  // rank's (3 - 1 ms; the kernel 5 - 5).
  EXPECT_EQ(late.cause, "input");
  EXPECT_NEAR(late.excess_ms, 2, kNear);
  EXPECT_NEAR(late.cause_excess_ms, 2, kNear);
  EXPECT_NEAR(late.cause_pct, 30, kNear);
  // The others wait for it: 14 ranks 8 - 6 ms, rank 9 8 - 7.5 ms; 4 steps each; of 640 ms.
  EXPECT_NEAR(late.wait_ms_per_step, 14 * 2 + 0.5, kNear);
  EXPECT_NEAR(late.wait_ms, 28.5 * kSteps, kNear);
  EXPECT_NEAR(late.wait_pct, 100.0 * 114 / 640, kNear);

  const a::JobOverview::HoldingBack& slow = job.holding_back[1];
  EXPECT_EQ(slow.index, kComputeLate);
  EXPECT_EQ(slow.cause, "device compute");
  EXPECT_NEAR(slow.excess_ms, 1.5, kNear);
  EXPECT_NEAR(slow.cause_excess_ms, 1.5, kNear);
  EXPECT_NEAR(slow.cause_pct, 65, kNear);
  // 14 ranks 7.5 - 6 ms; rank 3 is done later and waits for nobody.
  EXPECT_NEAR(slow.wait_ms_per_step, 14 * 1.5, kNear);
  EXPECT_NEAR(slow.wait_pct, 100.0 * 84 / 640, kNear);

  // The straggler is the first of them, its wait spread over the 15 others.
  ASSERT_TRUE(r.straggler.has_value());
  EXPECT_EQ(r.straggler->rank, kInputLate);
  EXPECT_EQ(r.straggler->cause, "input");
  EXPECT_NEAR(r.straggler->wait_ms_per_step, 28.5 / 15, kNear);
  EXPECT_NE(r.straggler->sentence.find("rank 3 is input-bound"), std::string::npos)
      << r.straggler->sentence;
}

TEST(JobOverview, TheTextReportShowsManyRanksAsADistribution) {
  ts::test::TempDir dir;
  const a::Report r = analyse_job(dir);
  const std::string text = a::to_text(r);
  EXPECT_NE(text.find("per step, over 16 ranks"), std::string::npos) << text;
  EXPECT_NE(text.find("6.00 ms    6.75 ms    8.00 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("holding back  own work per step more than 0.50 ms"), std::string::npos)
      << text;
  // One row per rank holding the job back, with its cause and the others' wait.
  EXPECT_NE(text.find("  3        8.00 ms    2.00 ms  input             28.5 ms/step        114 ms "
                      "         17.8 %"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  9        7.50 ms    1.50 ms  device compute    21.0 ms/step       84.0 ms "
                      "         13.1 %"),
            std::string::npos)
      << text;
  // No line per rank: the per-rank table's heading is gone.
  EXPECT_EQ(text.find("steps  step mean      input  verdict"), std::string::npos) << text;
}

TEST(JobOverview, JsonHasTheJobObject) {
  ts::test::TempDir dir;
  const a::Report r = analyse_job(dir);
  const nlohmann::json j = nlohmann::json::parse(a::to_json(r));
  const nlohmann::json& job = j.at("job");
  EXPECT_EQ(job.at("ranks"), kRanks);
  EXPECT_DOUBLE_EQ(job.at("per_step_ms").at("own_work").at("p90").get<double>(), 6.75);
  EXPECT_DOUBLE_EQ(job.at("per_step_ms").at("input").at("max").get<double>(), 3.0);
  EXPECT_EQ(job.at("worst").size(), 5u);
  EXPECT_EQ(job.at("worst")[0].at("rank"), kInputLate);
  EXPECT_DOUBLE_EQ(job.at("hold_back_threshold_ms").get<double>(), 0.5);
  ASSERT_EQ(job.at("holding_back").size(), 2u);
  EXPECT_EQ(job.at("holding_back")[0].at("rank"), kInputLate);
  EXPECT_EQ(job.at("holding_back")[0].at("cause"), "input");
  EXPECT_DOUBLE_EQ(job.at("holding_back")[0].at("wait_ms_per_step").get<double>(), 28.5);
  EXPECT_DOUBLE_EQ(job.at("holding_back")[0].at("wait_ms").get<double>(), 114.0);
  EXPECT_EQ(job.at("holding_back")[1].at("cause"), "device compute");
  EXPECT_DOUBLE_EQ(job.at("device_ms").get<double>(), 640.0);
}

TEST(JobOverview, KeptInTheReportCodec) {
  ts::test::TempDir dir;
  const a::Report r = analyse_job(dir);
  a::ReportDecoder decoder;
  const std::vector<std::string> parts = a::encode_report(r);
  std::uint64_t bytes = 0;
  for (const std::string& p : parts) bytes += p.size();
  for (const std::string& p : parts) ASSERT_TRUE(decoder.add(p, bytes));
  const std::optional<a::Report> back = decoder.finish();
  ASSERT_TRUE(back.has_value());
  ASSERT_TRUE(back->job.has_value());
  EXPECT_EQ(a::to_json(*back), a::to_json(r));
}

bool decodes(const a::Report& r) {
  a::ReportDecoder decoder;
  const std::vector<std::string> parts = a::encode_report(r);
  std::uint64_t bytes = 0;
  for (const std::string& p : parts) bytes += p.size();
  for (const std::string& p : parts)
    if (!decoder.add(p, bytes)) return false;
  return decoder.finish().has_value();
}

TEST(JobOverview, AKeptReportPointingPastItsRanksIsRefused) {
  a::Report r;
  r.ranks.resize(2);
  r.job.emplace();
  EXPECT_TRUE(decodes(r));
  r.job->holding_back.emplace_back().index = 2;
  EXPECT_FALSE(decodes(r));
  r.job->holding_back.back().index = 1;
  r.job->worst.emplace_back().index = -1;
  EXPECT_FALSE(decodes(r));
  r.job->worst.back().index = 0;
  EXPECT_TRUE(decodes(r));
}

// Hand-made rank figures: `own_ms` of own work (all device compute) and the rest of a 10 ms step
// in collectives, over 10 steps.
std::vector<a::RankFigures> ranks_with_own_work(const std::vector<double>& own_ms) {
  std::vector<a::RankFigures> ranks;
  for (std::size_t k = 0; k < own_ms.size(); ++k) {
    a::RankFigures f;
    f.rank = static_cast<std::int64_t>(k);
    f.steps = 10;
    f.step_time_total_ns = 100 * kMs;
    const auto own = std::llround(own_ms[k] * 10 * kMs);
    f.breakdown[a::Part::device_compute] = own;
    f.breakdown[a::Part::collective] = 100 * kMs - own;
    ranks.push_back(f);
  }
  return ranks;
}

TEST(JobOverview, ABalancedJobHasNoRankHoldingItBack) {
  // 20 ranks within 0.38 ms of each other: under 5 % of the 10 ms step over the median rank.
  std::vector<double> own;
  for (int k = 0; k < 20; ++k) own.push_back(6.0 + 0.02 * k);
  a::Report r;
  r.ranks = ranks_with_own_work(own);
  a::analyse_ranks(r);
  ASSERT_TRUE(r.job.has_value());
  EXPECT_TRUE(r.job->holding_back.empty());
  EXPECT_FALSE(r.straggler.has_value());
  // The median rank of 20 is the 10th from the bottom (6.18 ms); the median figure interpolates.
  EXPECT_EQ(r.job->median_rank, 9);
  EXPECT_NEAR(r.job->own_ms.median, 6.19, kNear);
  EXPECT_NEAR(r.job->own_ms.max, 6.38, kNear);
  EXPECT_EQ(r.job->worst.front().index, 19);
  // Just over the threshold: one rank 0.51 ms over the median rank's own work.
  own.back() = 6.18 + 0.51;
  r = {};
  r.ranks = ranks_with_own_work(own);
  a::analyse_ranks(r);
  ASSERT_EQ(r.job->holding_back.size(), 1u);
  EXPECT_EQ(r.job->holding_back[0].index, 19);
  EXPECT_EQ(r.job->holding_back[0].cause, "device compute");
}

TEST(JobOverview, ProcessesThatNeverMeetInCollectivesHoldNothingBack) {
  a::Report r;
  r.ranks = ranks_with_own_work({10, 10, 10});
  for (a::RankFigures& k : r.ranks) k.breakdown[a::Part::collective] = 0;
  r.ranks[2].step_time_total_ns = 300 * kMs;  // 30 ms steps, and no one waits for them
  r.ranks[2].breakdown[a::Part::device_compute] = 300 * kMs;
  a::analyse_ranks(r);
  ASSERT_TRUE(r.job.has_value());
  EXPECT_TRUE(r.job->holding_back.empty());
  EXPECT_EQ(r.job->worst.front().index, 2);  // own work is the step time without collectives
  EXPECT_NEAR(r.job->step_ms.max, 30, kNear);
  EXPECT_FALSE(r.straggler.has_value());
}

TEST(JobOverview, NoneForOneRankWithSteps) {
  std::vector<a::RankFigures> ranks = ranks_with_own_work({6, 8});
  ranks[1].steps = 0;
  EXPECT_FALSE(a::job_overview(ranks).has_value());
}

}  // namespace
