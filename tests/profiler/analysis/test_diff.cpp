// Two runs side by side: deltas per step, kernels in one run only, valid JSON.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "profiler/analysis/diff.hpp"
#include "profiler/analysis/figure_format.hpp"

namespace {

namespace a = ts::analysis;

a::KernelStat kernel(const char* name, std::int64_t count, std::int64_t total_ns) {
  a::KernelStat k;
  k.name = name;
  k.count = count;
  k.total_ns = total_ns;
  k.mean_ns = total_ns / count;
  return k;
}

// A: 100 steps of 10 ms, 30 % input. B: 50 steps of 12 ms, 2 % input.
std::pair<a::Report, a::Report> two_runs() {
  a::Report x, y;
  x.file = "a.db";
  y.file = "b.db";
  x.steps = 100;
  y.steps = 50;
  x.step_time.mean_ms = 10;
  y.step_time.mean_ms = 12;
  x.breakdown[a::Part::input_wait] = 300'000'000;  // 3 ms per step
  y.breakdown[a::Part::input_wait] = 12'000'000;   // 0.24 ms per step
  x.input_pct = 30;
  y.input_pct = 2;
  x.verdict = a::Verdict::high;
  x.pipeline.bottleneck_stage = "decode";
  x.kernels = {kernel("gemm", 200, 1'000'000'000), kernel("relu", 100, 10'000'000)};
  y.kernels = {kernel("gemm", 100, 250'000'000), kernel("softmax", 50, 100'000'000)};
  return {x, y};
}

TEST(Diff, FiguresPerStepAndTheirChange) {
  const auto [x, y] = two_runs();
  const a::RunDiff d = a::diff(x, y);
  EXPECT_EQ(d.file_a, "a.db");
  EXPECT_DOUBLE_EQ(d.steps.delta(), -50);
  EXPECT_DOUBLE_EQ(d.step_mean_ms.delta(), 2);
  EXPECT_DOUBLE_EQ(*d.step_mean_ms.change_pct(), 20);
  const a::Delta& input = d.breakdown_ms_per_step[static_cast<int>(a::Part::input_wait)];
  EXPECT_DOUBLE_EQ(input.a, 3.0);
  EXPECT_DOUBLE_EQ(input.b, 0.24);
  EXPECT_DOUBLE_EQ(d.input_pct.delta(), -28);
  EXPECT_EQ(d.verdict_a, a::Verdict::high);
  EXPECT_EQ(d.verdict_b, a::Verdict::none);
  EXPECT_EQ(d.bottleneck_a, "decode");
  EXPECT_FALSE(d.bottleneck_b.has_value());
  EXPECT_FALSE(d.samples_per_s.change_pct().has_value());  // 0 in A: no relative change
}

TEST(Diff, KernelTableDeltasIncludeKernelsOfOneRunOnly) {
  const auto [x, y] = two_runs();
  const a::RunDiff d = a::diff(x, y);
  ASSERT_EQ(d.kernels.size(), 3u);
  // gemm: 10 -> 5 ms per step; softmax: 0 -> 2; relu: 0.1 -> 0. Largest change first.
  EXPECT_EQ(d.kernels[0].name, "gemm");
  EXPECT_DOUBLE_EQ(d.kernels[0].ms_per_step.a, 10);
  EXPECT_DOUBLE_EQ(d.kernels[0].ms_per_step.b, 5);
  EXPECT_DOUBLE_EQ(d.kernels[0].count_per_step.b, 2);
  EXPECT_EQ(d.kernels[1].name, "softmax");
  EXPECT_FALSE(d.kernels[1].in_a);
  EXPECT_TRUE(d.kernels[1].in_b);
  EXPECT_DOUBLE_EQ(d.kernels[1].ms_per_step.a, 0);
  EXPECT_EQ(d.kernels[2].name, "relu");
  EXPECT_TRUE(d.kernels[2].in_a);
  EXPECT_FALSE(d.kernels[2].in_b);
}

TEST(Diff, TextAndJson) {
  const auto [x, y] = two_runs();
  const a::RunDiff d = a::diff(x, y);
  const std::string t = a::to_text(d);
  EXPECT_NE(t.find("high -> none"), std::string::npos) << t;
  EXPECT_NE(t.find("softmax (only in B)"), std::string::npos) << t;
  EXPECT_NE(t.find("relu (only in A)"), std::string::npos) << t;
  EXPECT_NE(t.find("+2.00 ms (+20.0 %)"), std::string::npos) << t;
  // Times in the unit their size needs: B's 0.24 ms of input wait per step, not "0.240 ms".
  EXPECT_NE(t.find("240.0 µs"), std::string::npos) << t;
  EXPECT_EQ(t.find("0.000 ms"), std::string::npos) << t;
  const std::string j = a::to_json(d);
  ASSERT_TRUE(nlohmann::json::accept(j)) << j;
  EXPECT_NE(j.find("\"verdict\": {\n    \"a\": \"high\",\n    \"b\": \"none\""), std::string::npos)
      << j;
  EXPECT_NE(j.find("\"change_pct\": null"), std::string::npos) << j;
  EXPECT_TRUE(nlohmann::json::accept(a::to_json(a::diff(a::Report{}, a::Report{}))));
}

// The saving is priced per hour of what the run rents: the device's when it has one (with its
// idle time), else the machine's (CPU training has no device to sit idle).
TEST(Diff, SavingSentenceNamesWhatTheRunRents) {
  auto [x, y] = two_runs();
  y.step_time.mean_ms = 5;  // B twice as fast: half the time saved
  const std::string cpu = a::saving_sentence(a::diff(x, y));
  EXPECT_EQ(cpu,
            "B does A's work in 50 % less machine time: $1.25 saved of every $2.50 "
            "machine-hour A rents.");
  x.device.has_device = y.device.has_device = true;
  x.device.idle_pct = 40;
  y.device.idle_pct = 10;
  const std::string gpu = a::saving_sentence(a::diff(x, y));
  EXPECT_EQ(gpu.rfind("B does A's work in 50 % less device time: $1.25 saved of every $2.50 "
                      "device-hour A rents; idle device time 40",
                      0),
            0u)
      << gpu;
  y.step_time.mean_ms = 20;
  EXPECT_EQ(a::saving_sentence(a::diff(x, y))
                .rfind("B needs 2.00× A's device time for the same work; 50 % of B's device time "
                       "is time A would not need ($1.25 of every $2.50 device-hour B rents)",
                       0),
            0u)
      << a::saving_sentence(a::diff(x, y));
}

// A saving or an extra cost is a share of one device-hour: never more than the hour's price,
// however much slower or faster B is.
TEST(Diff, SavingNeverExceedsTheHoursPrice) {
  for (const double speedup : {1.0 / 11.18, 0.5, 0.999, 1.0, 1.001, 2.0, 11.18, 1e6}) {
    const a::Saving s = a::saving_at(speedup, 2.50);
    EXPECT_GE(s.per_device_hour, 0) << speedup;
    EXPECT_LE(s.per_device_hour, 2.50) << speedup;
    EXPECT_EQ(s.b_slower, speedup < 1) << speedup;
  }
  EXPECT_NEAR(a::saving_at(1.0 / 11.18, 2.50).per_device_hour, 2.50 * (1 - 1 / 11.18), 1e-9);
  EXPECT_NEAR(a::saving_at(4.0, 2.50).per_device_hour, 1.875, 1e-9);
  auto [x, y] = two_runs();
  y.step_time.mean_ms = 10 * 11.18;
  const std::string t = a::to_text(a::diff(x, y));
  EXPECT_NE(t.find("($2.28 of every $2.50 machine-hour B rents)"), std::string::npos) << t;
}

// Reports whose analysed steps are `first`..`last` of a run of steps 0..`whole_last`, leaving out
// the steps before `first` for `why`.
a::Report run(std::int64_t first, std::int64_t last, std::int64_t whole_last, double mean_ms,
              double whole_mean_ms, const char* why) {
  a::Report r;
  r.steps = last - first + 1;
  r.step_time.mean_ms = mean_ms;
  r.analysed_first_step = first;
  r.analysed_last_step = last;
  r.warmup.steps = first;
  r.warmup.first_step = 0;
  r.warmup.last_step = first - 1;
  r.warmup.why = why;
  r.whole_run.first_step = 0;
  r.whole_run.last_step = whole_last;
  r.whole_run.steps = whole_last + 1;
  r.whole_run.step_mean_ms = whole_mean_ms;
  return r;
}

// The default warm-up rule leaves out one step of a run without a cache and a whole epoch of one
// with: the diff leaves out the larger in both, and says which steps each side covers.
TEST(Diff, BothRunsLeaveOutTheSameWarmup) {
  const a::Report naive = run(1, 1564, 1564, 12, 12, "the first step: first calls");
  const a::Report tuned = run(313, 1564, 1564, 3, 4, "epoch 1 fills the input cache");
  const auto common = a::common_warmup(naive, tuned, {});
  ASSERT_TRUE(common.has_value());
  EXPECT_EQ(common->steps, 313);
  EXPECT_EQ(common->why, "B: epoch 1 fills the input cache");
  EXPECT_TRUE(a::takes_common_warmup(naive, *common));
  EXPECT_FALSE(a::takes_common_warmup(tuned, *common));
  // A run no longer than the other's warm-up keeps its own rule.
  EXPECT_FALSE(a::takes_common_warmup(run(1, 99, 99, 12, 12, "first"), *common));
  // One rule given for both: nothing to align.
  a::AnalysisOptions skip;
  skip.skip_warmup = 3;
  EXPECT_FALSE(a::common_warmup(naive, tuned, skip).has_value());
  a::AnalysisOptions steps;
  steps.steps = std::pair<std::int64_t, std::int64_t>{5, 9};
  EXPECT_FALSE(a::common_warmup(naive, tuned, steps).has_value());
  EXPECT_FALSE(a::common_warmup(tuned, tuned, {}).has_value());

  // Re-analysed with the common warm-up, A covers B's steps.
  const a::Report aligned = run(313, 1564, 1564, 12, 12, "the first 313 steps (--skip-warmup)");
  const a::RunDiff d = a::diff(aligned, tuned, common);
  EXPECT_TRUE(d.same_steps());
  EXPECT_EQ(a::headline(d).rfind("B is 4.00× faster than A over steps 313-1564 of both:", 0), 0u)
      << a::headline(d);
  EXPECT_EQ(a::scope_sentence(d),
            "Steps compared: 313-1564 (1252 of 1565 steps) of both runs (each run's first 313 "
            "steps left out as warm-up; B: epoch 1 fills the input cache).");
  // Over every step B is 3× faster, not 4×: both figures are given.
  EXPECT_DOUBLE_EQ(d.whole_speedup, 3.0);
  EXPECT_EQ(a::whole_run_sentence(d),
            "B is 3.00× faster over every step (A 0-1564, B 0-1564): 12.0 ms → 4.00 ms per step; "
            "67 % less machine time: $1.67 saved of every $2.50 machine-hour A rents.");
  const std::string t = a::to_text(d);
  EXPECT_NE(t.find("\nWhole run: B is 3.00× faster over every step"), std::string::npos) << t;
  const auto j = nlohmann::json::parse(a::to_json(d));
  EXPECT_EQ(j["steps_compared"]["a"]["first_step"], 313);
  EXPECT_EQ(j["steps_compared"]["b"]["warmup_steps"], 313);
  EXPECT_EQ(j["steps_compared"]["common_warmup_steps"], 313);
  EXPECT_DOUBLE_EQ(j["whole_run"]["speedup"].get<double>(), 3.0);
}

// Runs that cover different steps (a range held in part, a run shorter than the other's warm-up)
// say so, and name each side's steps.
TEST(Diff, DifferentStepsAreSaid) {
  const a::Report naive = run(1, 1564, 1564, 12, 12, "the first step: first calls");
  const a::Report tuned = run(313, 1564, 1564, 3, 4, "epoch 1 fills the input cache");
  const a::RunDiff d = a::diff(naive, tuned);
  EXPECT_FALSE(d.same_steps());
  EXPECT_EQ(a::headline(d).find("over steps"), std::string::npos) << a::headline(d);
  const std::string scope = a::scope_sentence(d);
  EXPECT_EQ(scope,
            "Steps compared: A 1-1564 (1564 of 1565 steps), B 313-1564 (1252 of 1565 steps) "
            "(A leaves out the first step: first calls; B leaves out epoch 1 fills the input "
            "cache). The runs cover different steps: compare the whole-run line too.");
}

// Money, device time and share changes as every place writes them (figure_format).
TEST(Diff, MoneyAndSharesReadable) {
  namespace fmt = a::fmt;
  EXPECT_EQ(fmt::money(-0.42, "$"), "-$0.42");
  EXPECT_EQ(fmt::money(-0.00042, "$"), "under $0.001");
  EXPECT_EQ(fmt::money(0.00000038, "$"), "under $0.001");
  EXPECT_EQ(fmt::money(0.0028472, "$"), "$0.0028");
  EXPECT_EQ(fmt::money(-12345.5, "€"), "-€12 345.50");
  EXPECT_EQ(fmt::money(0.011, "$"), "$0.011");
  EXPECT_EQ(fmt::money(0, "$"), "$0.00");
  EXPECT_EQ(fmt::money_per_steps(0.42e-3, "$"), "$0.42 per 1 000 steps");
  EXPECT_EQ(fmt::money_per_steps(0.38e-6, "$"), "$0.38 per 1 M steps");
  EXPECT_EQ(fmt::cost_scale(0).name, "1 000 steps");
  EXPECT_EQ(fmt::device_time(2.66e-5), "95.8 ms of device time");
  EXPECT_EQ(fmt::device_time(0.25), "15.0 device-minutes");
  EXPECT_EQ(fmt::device_time(3.5), "3.50 device-hours");
  EXPECT_EQ(fmt::pp(-21.14), "-21.1 pp");
  EXPECT_EQ(fmt::pp(4.25), "+4.2 pp");
  EXPECT_EQ(fmt::pp(-0.01), "0.0 pp");
  for (const double v : {1e-9, 3.8e-7, 2.66e-5, 1e-3, 0.5, 12345.678}) {
    for (const std::string& s : {fmt::money(v, "$"), fmt::money(-v, "$"), fmt::device_time(v)}) {
      EXPECT_FALSE(std::regex_search(s, std::regex("[0-9]e[-+]"))) << s;
      EXPECT_EQ(s.find("$-"), std::string::npos) << s;
    }
  }
}

// The idle cost row has its currency, at a scale where it reads in cents.
TEST(Diff, IdleCostRowHasItsCurrencyAndScale) {
  auto [x, y] = two_runs();
  x.device.has_device = y.device.has_device = true;
  x.idle_cost_per_1000_steps = 0.0004;
  y.idle_cost_per_1000_steps = 0.00001;
  const std::string t = a::to_text(a::diff(x, y));
  EXPECT_NE(t.find("idle cost per 1 M steps"), std::string::npos) << t;
  EXPECT_NE(t.find("$0.40"), std::string::npos) << t;
  EXPECT_NE(t.find("-$0.39"), std::string::npos) << t;
}

}  // namespace

namespace {

a::Lever lever(const char* id, const char* title, double speedup, double saving_hours,
               double saving) {
  a::Lever l;
  l.id = id;
  l.title = title;
  l.confidence = "modelled";
  l.projection.lever = id;
  l.projection.speedup = speedup;
  l.projection.step_time_ms = 10 / speedup;
  l.projection.saving_device_hours = saving_hours;
  l.projection.saving = saving;
  return l;
}

}  // namespace

TEST(Diff, LeversOfEitherRunBySaving) {
  auto [x, y] = two_runs();
  x.levers = {lever("input_pipeline", "Input pipeline", 2.13, 3.0, 7.5),
              lever("optimizer", "Optimizer", 1.2, 0.5, 1.25)};
  y.levers = {lever("optimizer", "Optimizer", 1.05, 0.1, 0.25),
              lever("mixed_precision", "Mixed precision", 1.4, 1.0, 2.5)};
  const a::RunDiff d = a::diff(x, y);
  ASSERT_EQ(d.levers.size(), 3u);
  EXPECT_EQ(d.levers[0].id, "input_pipeline");  // 3 device-hours, only in A
  EXPECT_TRUE(d.levers[0].in_a);
  EXPECT_FALSE(d.levers[0].in_b);
  EXPECT_DOUBLE_EQ(d.levers[0].speedup.a, 2.13);
  EXPECT_DOUBLE_EQ(d.levers[0].speedup.b, 0);
  EXPECT_EQ(d.levers[1].id, "mixed_precision");
  EXPECT_FALSE(d.levers[1].in_a);
  EXPECT_EQ(d.levers[2].id, "optimizer");
  EXPECT_DOUBLE_EQ(d.levers[2].saving.a, 1.25);
  EXPECT_DOUBLE_EQ(d.levers[2].saving.b, 0.25);
  EXPECT_EQ(d.levers[2].confidence_b, "modelled");

  EXPECT_EQ(a::lever_sentence(d.levers[0]), "Input pipeline: 2.13× in A, gone in B");
  EXPECT_EQ(a::lever_sentence(d.levers[1]), "Mixed precision: new in B (1.40×)");
  EXPECT_EQ(a::lever_sentence(d.levers[2]), "Optimizer: 1.20× in A → 1.05× in B");

  const std::string text = a::to_text(d);
  EXPECT_NE(text.find("Input pipeline: 2.13× in A, gone in B; saves " + a::fmt::device_time(3.0) +
                      " ($7.50) → -\n"),
            std::string::npos)
      << text;
  const auto j = nlohmann::json::parse(a::to_json(d));
  ASSERT_EQ(j["levers"].size(), 3u);
  EXPECT_EQ(j["levers"][0]["change"], "gone");
  EXPECT_EQ(j["levers"][1]["change"], "new");
  EXPECT_EQ(j["levers"][2]["change"], "both");
  EXPECT_DOUBLE_EQ(j["levers"][2]["speedup"]["a"].get<double>(), 1.2);
  EXPECT_EQ(j["levers"][2]["confidence"]["a"], "modelled");
}

TEST(Diff, NoLeverInEitherRunIsSaid) {
  const auto [x, y] = two_runs();
  const a::RunDiff d = a::diff(x, y);
  EXPECT_TRUE(d.levers.empty());
  EXPECT_NE(a::to_text(d).find("none in either run"), std::string::npos);
  EXPECT_TRUE(nlohmann::json::parse(a::to_json(d))["levers"].empty());
}
