// Phases and what-if projections on hand-built traces: which steps are warm-up (the
// cache-filling first epoch, the first step, --steps, --skip-warmup), per-epoch figures, warm-up
// kernels kept out of the kernel table, and each lever's projected step time and saving.
#include <gtest/gtest.h>

#include <span>

#include "profiler/analysis/phases.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/writer.hpp"
#include "tests/profiler/store_fixture.hpp"
#include "tests/profiler/test_util.hpp"

namespace {

namespace a = ts::analysis;
using ts::store::EventRow;
using ts::store::kNull;
using ts::trace::Category;
using ts::trace::TrackKind;

constexpr std::int64_t kT = 1'000'000'000;
constexpr std::int64_t kMs = 1'000'000;
// The writer moves a wait that starts on its step's tick by a nanosecond (a nested zone starts
// after its parent): figures are exact to about 1e-6 of a step.
constexpr double kEps = 1e-4;

enum Track : std::uint32_t { kMain = 1, kDevice };
enum Label : std::uint32_t { kStep = 1, kWait, kGemm, kCompile };

// Three epochs of 4 steps of 10 ms (steps 0-11). Each step waits for input at its start: 6 ms
// in epoch 1 (the cache is filling), 1 ms after; the device computes a gemm from the end of the
// wait to 1 ms before the step ends. Before step 0, a 50 ms "compile" kernel.
std::string write_epochs(const ts::test::TempDir& dir, bool cache, bool epochs) {
  const std::string path = dir.file("epochs.db");
  ts::store::Writer w(path);
  ts::test::put_labels(w, {{kStep, "step", Category::step},
                           {kWait, "wait for batch", Category::input_wait},
                           {kGemm, "gemm", Category::kernel},
                           {kCompile, "compile", Category::kernel}});
  w.put_track(kMain, "main", TrackKind::thread);
  w.put_track(kDevice, "gpu", TrackKind::device_queue);
  w.put_meta("engine.batch", "10");
  w.put_meta("pipeline.cache", cache ? "memory" : "none");
  if (epochs) w.put_meta("fit.epoch_first_steps", "0,4,8");
  std::vector<EventRow> rows = {{kT - 60 * kMs, 50 * kMs, kDevice, kCompile, kNull}};
  for (int s = 0; s < 12; ++s) {
    const std::int64_t t = kT + s * 10 * kMs;
    const std::int64_t wait = (s < 4 ? 6 : 1) * kMs;
    rows.push_back({t, 10 * kMs, kMain, kStep, s});
    rows.push_back({t, wait, kMain, kWait, s});
    rows.push_back({t + wait, 9 * kMs - wait, kDevice, kGemm, s});
  }
  w.append(std::span<const EventRow>(rows));
  w.finish();
  return path;
}

TEST(Phases, TheCacheFillingEpochIsWarmUpAndTheVerdictIsTheSteadyState) {
  ts::test::TempDir dir;
  const ts::store::Reader reader(write_epochs(dir, /*cache=*/true, /*epochs=*/true));
  const a::Report r = a::analyse(reader);
  EXPECT_EQ(r.steps, 8);
  EXPECT_EQ(r.analysed_first_step, 4);
  EXPECT_EQ(r.analysed_last_step, 11);
  EXPECT_NEAR(r.input_pct, 10.0, kEps);  // 1 of 10 ms
  EXPECT_EQ(r.verdict, a::Verdict::moderate);
  EXPECT_EQ(r.warmup.steps, 4);
  EXPECT_NEAR(r.warmup.input_pct, 60.0, kEps);
  EXPECT_EQ(r.warmup.verdict, a::Verdict::high);
  EXPECT_NE(r.warmup.why.find("cache"), std::string::npos) << r.warmup.why;
  EXPECT_EQ(r.whole_run.steps, 12);
  EXPECT_NEAR(r.whole_run.input_pct, (4 * 6.0 + 8 * 1.0) / 120 * 100, kEps);
  ASSERT_EQ(r.epochs.size(), 3u);
  EXPECT_TRUE(r.epochs[0].warmup);
  EXPECT_FALSE(r.epochs[1].warmup);
  EXPECT_NEAR(r.epochs[0].input_pct, 60.0, kEps);
  EXPECT_NEAR(r.epochs[2].input_pct, 10.0, kEps);
  EXPECT_EQ(r.epochs[1].first_step, 4);
  EXPECT_EQ(r.epochs[1].last_step, 7);
  // The kernel table holds the analysed steps' gemms only; the compile kernel and the first
  // epoch's gemms are warm-up.
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].name, "gemm");
  EXPECT_EQ(r.kernels[0].count, 8);
  EXPECT_EQ(r.warmup_kernels, 5);
  EXPECT_EQ(r.warmup_kernel_ns, 50 * kMs + 4 * 3 * kMs);
  EXPECT_EQ(r.before_first_step_ns, 60 * kMs);
  // Per-step figures still list every step, the warm-up ones marked.
  ASSERT_EQ(r.per_step.size(), 12u);
  EXPECT_TRUE(r.per_step[3].warmup);
  EXPECT_FALSE(r.per_step[4].warmup);
  EXPECT_EQ(r.per_step[4].epoch, 2);
}

TEST(Phases, WithoutACacheTheFirstStepIsWarmUpAndEveryStepCanBeAsked) {
  ts::test::TempDir dir;
  const ts::store::Reader reader(write_epochs(dir, /*cache=*/false, /*epochs=*/true));
  const a::Report r = a::analyse(reader);
  EXPECT_EQ(r.steps, 11);
  EXPECT_EQ(r.warmup.steps, 1);
  EXPECT_EQ(r.warmup.first_step, 0);
  EXPECT_FALSE(r.epochs[0].warmup);  // only part of epoch 1 is warm-up

  a::AnalysisOptions all;
  all.skip_warmup = 0;
  const a::Report every = a::analyse(reader, all);
  EXPECT_EQ(every.steps, 12);
  EXPECT_EQ(every.warmup.steps, 0);
  EXPECT_NEAR(every.input_pct, every.whole_run.input_pct, kEps);
  EXPECT_EQ(every.kernels[0].count, 12);

  a::AnalysisOptions range;
  range.steps = std::pair<std::int64_t, std::int64_t>{2, 5};
  const a::Report some = a::analyse(reader, range);
  EXPECT_EQ(some.steps, 4);
  EXPECT_NEAR(some.input_pct, (2 * 6.0 + 2 * 1.0) / 40 * 100, kEps);
  EXPECT_EQ(some.kernels[0].count, 4);
}

TEST(Phases, SelectionRules) {
  std::vector<ts::store::Step> steps;
  for (int i = 0; i < 4; ++i) steps.push_back({i, i * 10, 10, 1});
  a::RunShape none;
  // Four steps: too few to leave one out.
  auto sel = a::select_steps(steps, none, {});
  EXPECT_EQ(std::count(sel.analysed.begin(), sel.analysed.end(), true), 4);
  a::AnalysisOptions skip;
  skip.skip_warmup = 2;
  sel = a::select_steps(steps, none, skip);
  EXPECT_EQ(sel.analysed, (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ(sel.window.start, 20);
  EXPECT_EQ(sel.window.end, 40);
  // Leaving everything out analyses everything.
  skip.skip_warmup = 10;
  sel = a::select_steps(steps, none, skip);
  EXPECT_EQ(std::count(sel.analysed.begin(), sel.analysed.end(), true), 4);
  EXPECT_EQ(a::epoch_of(none, 3), 0);
  a::RunShape two;
  two.epoch_first_steps = {0, 2};
  EXPECT_EQ(a::epoch_of(two, 1), 1);
  EXPECT_EQ(a::epoch_of(two, 2), 2);
}

TEST(WhatIf, HidingInputProjectsTheStepWithoutItsInputAndItsSaving) {
  ts::test::TempDir dir;
  const ts::store::Reader reader(write_epochs(dir, /*cache=*/false, /*epochs=*/false));
  a::AnalysisOptions o;
  o.gpu_hour_price = 3600;  // one currency unit per device-second: savings read in seconds
  o.skip_warmup = 4;        // steps 4-11: 1 ms input of 10 ms
  const a::Report r = a::analyse(reader, o);
  ASSERT_FALSE(r.what_if.empty());
  const a::WhatIf& w = r.what_if.front();
  EXPECT_EQ(w.lever, "input_hidden");
  EXPECT_NEAR(w.step_time_ms, 9.0, kEps);
  EXPECT_NEAR(w.speedup, 10.0 / 9.0, kEps);
  EXPECT_NEAR(w.samples_per_s, 10 / 9e-3, 1e-3);  // batch 10 every 9 ms
  // The whole run: 12 steps of 10 ms = 0.12 s of device time; 10 % of it saved.
  EXPECT_NEAR(r.run_device_hours * 3600, 0.12, kEps);
  EXPECT_NEAR(w.saving_device_hours * 3600, 0.012, kEps);
  EXPECT_NEAR(w.saving, 0.012, kEps);
  bool quoted = false;
  for (const std::string& rec : r.recommendations)
    quoted = quoted ||
             rec.find("Worth it: 10.0 ms → 9.00 ms per step (1.11× faster)") != std::string::npos;
  EXPECT_TRUE(quoted) << (r.recommendations.empty() ? "" : r.recommendations.front());
}

}  // namespace
