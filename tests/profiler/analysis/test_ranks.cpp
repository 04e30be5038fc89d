// Distributed runs, hand-built: two ranks of 4 steps of 10 ms each meet in an allreduce at the
// end of every step. Rank 1 waits 6 ms for input each step and arrives last; rank 0 computes
// 3 ms and waits in the allreduce for rank 1. Figures computed by hand.
#include <gtest/gtest.h>

#include <span>

#include "profiler/analysis/ranks.hpp"
#include "profiler/analysis/report.hpp"
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

enum Label : std::uint32_t { kStep = 1, kWait, kCompute, kAllreduce };

std::string write_ranks(const ts::test::TempDir& dir) {
  const std::string path = dir.file("ranks.db");
  ts::store::Writer w(path);
  ts::test::put_labels(w, {{kStep, "step", Category::step},
                           {kWait, "wait for batch", Category::input_wait},
                           {kCompute, "forward/backward", Category::host_compute},
                           {kAllreduce, "allreduce", Category::collective}});
  w.put_process(1, "rank 0", 0);
  w.put_process(2, "rank 1", 1);
  w.put_track(1, "trainer", TrackKind::thread, 100, 1);
  w.put_track(2, "trainer", TrackKind::thread, 200, 2);
  std::vector<EventRow> rows;
  for (int s = 0; s < 4; ++s) {
    const std::int64_t t = kT + s * 10 * kMs;
    // rank 0: compute [0.5, 3.5) ms, allreduce [3.5, 9.5) ms: waits for rank 1.
    rows.push_back({t, 10 * kMs, 1, kStep, s});
    rows.push_back({t + kMs / 2, 3 * kMs, 1, kCompute, s});
    rows.push_back({t + 7 * kMs / 2, 6 * kMs, 1, kAllreduce, s});
    // rank 1: input [0.5, 6.5), compute [6.5, 9.5), allreduce [9.5, 9.75) ms.
    rows.push_back({t, 10 * kMs, 2, kStep, s});
    rows.push_back({t + kMs / 2, 6 * kMs, 2, kWait, s});
    rows.push_back({t + 13 * kMs / 2, 3 * kMs, 2, kCompute, s});
    rows.push_back({t + 19 * kMs / 2, kMs / 4, 2, kAllreduce, s});
  }
  w.append(std::span<const EventRow>(rows));
  w.finish();
  return path;
}

TEST(Ranks, TheRankOthersWaitForIsTheStragglerWithItsCause) {
  ts::test::TempDir dir;
  const ts::store::Reader reader(write_ranks(dir));
  a::AnalysisOptions o;
  o.skip_warmup = 0;
  const a::Report r = a::analyse(reader, o);
  ASSERT_EQ(r.ranks.size(), 2u);
  EXPECT_EQ(r.steps, 8);
  // Collective: rank 0 6 ms, rank 1 0.25 ms per 10 ms step: 6.25 of 20 ms.
  EXPECT_NEAR(r.communication_pct, 100.0 * 6.25 / 20, 1e-3);
  EXPECT_EQ(r.communication_verdict, a::Verdict::high);
  ASSERT_TRUE(r.straggler.has_value());
  EXPECT_EQ(r.straggler->rank, 1);
  EXPECT_EQ(r.straggler->cause, "input");
  EXPECT_NEAR(r.straggler->cause_pct, 60.0, 1e-3);
  EXPECT_NEAR(r.straggler->wait_ms_per_step, 6.0 - 0.25, 1e-3);
  EXPECT_NE(r.straggler->sentence.find("rank 1 is input-bound"), std::string::npos);
  // Own work: rank 0 4 ms, rank 1 9.75 ms: (9.75 - 4) / 6.875.
  EXPECT_NEAR(r.load_imbalance_pct, 100.0 * 5.75 / 6.875, 1e-2);
  // The lever: the others' wait, spread over both ranks' steps: 5.75 / 2 ms of each 10 ms step.
  bool found = false;
  for (const a::WhatIf& w : r.what_if) {
    if (w.lever != "collectives_level") continue;
    found = true;
    EXPECT_NEAR(w.step_time_ms, 10 - 5.75 / 2, 1e-3);
  }
  EXPECT_TRUE(found);
  bool named = false;
  for (const std::string& rec : r.recommendations)
    named |= rec.rfind("Rank 1 is input-bound", 0) == 0;
  EXPECT_TRUE(named);
}

TEST(Ranks, LevelRanksHaveNoStraggler) {
  a::Report r;
  for (int k = 0; k < 2; ++k) {
    a::RankFigures f;
    f.rank = k;
    f.steps = 10;
    f.step_time_total_ns = 100 * kMs;
    f.breakdown[a::Part::collective] = 2 * kMs;  // 2 %: none
    f.breakdown[a::Part::device_compute] = 98 * kMs;
    r.ranks.push_back(f);
  }
  a::analyse_ranks(r);
  EXPECT_EQ(r.communication_verdict, a::Verdict::none);
  EXPECT_FALSE(r.straggler.has_value());
  EXPECT_NEAR(r.load_imbalance_pct, 0.0, 1e-9);
}

}  // namespace
