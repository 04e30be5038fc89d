// analyse() on a trace written with the store Writer: two steps laid out by hand (one
// input-bound, one not), every figure computed by hand.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <span>

#include "profiler/analysis/kept_report.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/analysis/steps.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/writer.hpp"
#include "tests/profiler/store_fixture.hpp"
#include "tests/profiler/test_util.hpp"

namespace {

namespace a = ts::analysis;
using a::IdleCause;
using a::Part;
using ts::store::EventRow;
using ts::store::kNull;
using ts::trace::Category;
using ts::trace::TrackKind;

constexpr std::int64_t kT = 1'000'000'000;  // trace origin
constexpr std::int64_t us(double v) {
  return static_cast<std::int64_t>(v * 1000);
}

enum Track : std::uint32_t { kMain = 1, kCompute, kCopy, kWorker, kFill };
enum Label : std::uint32_t {
  kStep = 1,
  kWait,
  kRead,
  kDecode,
  kUpload,
  kGemm,
  kRelu,
  kLaunch,
  kSync,
  kOpt
};

// Step 0 [0,100) µs — input-bound:
//   main: wait [1,41) launch [41,45) sync [46,90) optimizer [90,98)
//   copy: upload [45,55) (nothing else runs: exposed)   compute: gemm [55,85)
// Step 1 [100,200) µs:
//   main: wait [101,102) launch [102,104) sync [104,195)
//   copy: upload [104,106) (under relu: hidden)        compute: relu [104,150) gemm [150,190)
// Worker: read [-50,-10) ⊃ decode [-40,-20); read [50,90) ⊃ decode [60,85).
// Prefetch fill: 2 from 0 µs, 0 from 100 µs.
// killed: written as a capture writes (staged), and returned as a SIGKILL leaves it: committed,
// its events still staged.
std::string write_trace(const ts::test::TempDir& dir,
                        const std::vector<std::pair<std::string, std::string>>& extra_meta = {},
                        bool killed = false) {
  const std::string path = dir.file("hand.db");
  ts::store::WriterOptions options;
  options.staged = killed;
  ts::store::Writer w(path, options);
  ts::test::put_labels(w, {
                              {kStep, "step", Category::step},
                              {kWait, "wait for batch", Category::input_wait},
                              {kRead, "load", Category::input_read},
                              {kDecode, "decode", Category::input_decode},
                              {kUpload, "upload", Category::h2d},
                              {kGemm, "gemm", Category::kernel},
                              {kRelu, "relu", Category::kernel},
                              {kLaunch, "enqueue", Category::launch},
                              {kSync, "wait", Category::sync},
                              {kOpt, "adam", Category::optimizer},
                          });
  w.put_track(kMain, "main", TrackKind::thread);
  w.put_track(kCompute, "gpu compute", TrackKind::device_queue);
  w.put_track(kCopy, "gpu copy", TrackKind::device_queue);
  w.put_track(kWorker, "input worker 1", TrackKind::thread);
  w.put_track(kFill, "prefetch buffer fill", TrackKind::counter);
  w.put_meta("engine.batch", "4");
  w.put_meta("engine.model", "mlp");
  w.put_meta("engine.backend", "cpu");
  w.put_meta("engine.device", "test device");
  w.put_meta("pipeline.parallel", "1");
  w.put_meta("pipeline.prefetch", "2");
  w.put_meta("pipeline.cache", "none");
  w.put_meta("dropped_events", "0");
  for (const auto& [key, value] : extra_meta) w.put_meta(key, value);
  auto ev = [](double start, double end, Track track, Label label, std::int64_t step,
               std::int64_t bytes = kNull) {
    return EventRow{kT + us(start), us(end - start), track, label, step, bytes};
  };
  std::vector<EventRow> rows = {
      ev(-50, -10, kWorker, kRead, kNull), ev(-40, -20, kWorker, kDecode, kNull),
      ev(0, 100, kMain, kStep, 0),         ev(1, 41, kMain, kWait, 0),
      ev(41, 45, kMain, kLaunch, 0),       ev(45, 55, kCopy, kUpload, 0, 4096),
      ev(46, 90, kMain, kSync, 0),         ev(50, 90, kWorker, kRead, kNull),
      ev(55, 85, kCompute, kGemm, 0),      ev(60, 85, kWorker, kDecode, kNull),
      ev(90, 98, kMain, kOpt, 0),          ev(100, 200, kMain, kStep, 1),
      ev(101, 102, kMain, kWait, 1),       ev(102, 104, kMain, kLaunch, 1),
      ev(104, 150, kCompute, kRelu, 1),    ev(104, 106, kCopy, kUpload, 1, 4096),
      ev(104, 195, kMain, kSync, 1),       ev(150, 190, kCompute, kGemm, 1),
  };
  w.append(std::span<const EventRow>(rows));
  const ts::store::CounterRow fill[] = {{kFill, kT, 2}, {kFill, kT + us(100), 0}};
  w.append(std::span<const ts::store::CounterRow>(fill));
  if (!killed) {
    w.finish();
    return path;
  }
  w.commit();
  const std::string copy = dir.file("killed.db");
  std::filesystem::copy_file(path, copy);
  std::filesystem::copy_file(path + "-wal", copy + "-wal");
  return copy;
}

double ms(double micro) {
  return micro / 1000;
}

TEST(AnalyseTrace, HandBuiltTraceGivesHandComputedFigures) {
  ts::test::TempDir dir;
  const ts::store::Reader reader(write_trace(dir));
  const a::Report r = a::analyse(reader);

  EXPECT_EQ(r.steps, 2);
  EXPECT_EQ(r.events, 18);
  EXPECT_EQ(r.step_time_total_ns, us(200));
  EXPECT_DOUBLE_EQ(r.step_time.mean_ms, ms(100));
  // Breakdown (µs): device compute 30 + 86; h2d 10 (step 1's copy is hidden); input 40 + 1;
  // launch 4 + 2; sync 5 + 5; optimizer 8; other 3 + 6.
  EXPECT_EQ(r.breakdown[Part::device_compute], us(116));
  EXPECT_EQ(r.breakdown[Part::d2h], 0);
  EXPECT_EQ(r.breakdown[Part::h2d], us(10));
  EXPECT_EQ(r.breakdown[Part::input_wait], us(41));
  EXPECT_EQ(r.breakdown[Part::launch], us(6));
  EXPECT_EQ(r.breakdown[Part::sync], us(10));
  EXPECT_EQ(r.breakdown[Part::host_compute], us(8));
  EXPECT_EQ(r.breakdown[Part::other], us(9));
  EXPECT_EQ(r.breakdown.total(), us(200));
  EXPECT_EQ(r.h2d_total_ns, us(12));

  ASSERT_EQ(r.per_step.size(), 2u);
  EXPECT_EQ(r.per_step[0].input_ns, us(50));
  EXPECT_DOUBLE_EQ(r.per_step[0].input_pct, 50.0);
  EXPECT_TRUE(r.per_step[0].input_bound);
  EXPECT_DOUBLE_EQ(r.per_step[1].input_pct, 1.0);
  EXPECT_FALSE(r.per_step[1].input_bound);
  EXPECT_EQ(r.per_step[1].parts.total(), r.per_step[1].dur_ns);
  EXPECT_DOUBLE_EQ(r.input_pct, 25.5);  // 51 of 200 µs: summed, not a mean of 50 % and 1 %
  EXPECT_EQ(r.verdict, a::Verdict::high);
  EXPECT_EQ(r.input_bound_steps, 1);

  ASSERT_TRUE(r.device.has_device);
  EXPECT_EQ(r.device.busy_ns, us(40 + 86));
  EXPECT_EQ(r.device.idle_ns, us(74));
  EXPECT_DOUBLE_EQ(r.device.idle_pct, 37.0);
  EXPECT_EQ(r.device.idle_by_cause_ns[static_cast<int>(IdleCause::input)], us(41));
  EXPECT_EQ(r.device.idle_by_cause_ns[static_cast<int>(IdleCause::host)], us(4 + 8 + 2));
  EXPECT_EQ(r.device.idle_by_cause_ns[static_cast<int>(IdleCause::sync)], us(5 + 5));
  EXPECT_EQ(r.device.idle_by_cause_ns[static_cast<int>(IdleCause::other)], us(3 + 6));
  EXPECT_EQ(r.device.gaps.front().start_ns, kT);
  EXPECT_EQ(r.device.gaps.front().cause, IdleCause::other);
  EXPECT_EQ(r.device.gaps[1].cause, IdleCause::input);
  EXPECT_EQ(r.device.gaps[1].end_ns, kT + us(41));

  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].name, "gemm");
  EXPECT_EQ(r.kernels[0].count, 2);
  EXPECT_EQ(r.kernels[0].total_ns, us(70));
  EXPECT_EQ(r.kernels[0].max_ns, us(40));
  EXPECT_NEAR(r.kernels[0].share_pct, 100.0 * 70 / 116, 1e-9);
  EXPECT_EQ(r.kernels[1].name, "relu");

  // Pipeline: samples = batch 4 × 2 steps (no batch zones); read self 20 + 15, decode 20 + 25.
  EXPECT_EQ(r.pipeline.samples, 8);
  ASSERT_EQ(r.pipeline.stages.size(), 2u);
  EXPECT_EQ(r.pipeline.stages[0].total_ns, us(35));
  EXPECT_EQ(r.pipeline.stages[1].total_ns, us(45));
  EXPECT_DOUBLE_EQ(r.pipeline.stages[1].ns_per_sample, us(45) / 8.0);
  EXPECT_DOUBLE_EQ(r.pipeline.stages[1].utilisation_pct, 100.0 * 45 / 250);  // of -50..200 µs
  // The worker read and decoded before the trainer's waits ([1,41) and [101,102) µs), never
  // during them: no stage explains the waits, so none is named the bottleneck.
  ASSERT_TRUE(r.pipeline.busy_during_waits_pct.has_value());
  EXPECT_DOUBLE_EQ(*r.pipeline.busy_during_waits_pct, 0.0);
  EXPECT_FALSE(r.pipeline.bottleneck_stage.has_value());
  EXPECT_EQ(r.pipeline.workers, 1);
  EXPECT_EQ(r.pipeline.prefetch, 2);
  ASSERT_TRUE(r.pipeline.prefetch_fill_mean.has_value());
  EXPECT_DOUBLE_EQ(*r.pipeline.prefetch_fill_mean, 1.0);  // 2 for 100 µs, 0 for 100 µs

  EXPECT_EQ(r.batch, 4);
  EXPECT_DOUBLE_EQ(r.samples_per_s, 8 / 200e-6);
  EXPECT_EQ(r.model, "mlp");
  EXPECT_EQ(r.backend, "cpu");
  EXPECT_EQ(r.device_name, "test device");
  // 37 µs idle per step: 37 ms per 1 000 steps at $2.50 an hour.
  EXPECT_NEAR(r.idle_cost_per_1000_steps, 0.037 / 3600 * 2.5, 1e-12);
  ASSERT_GE(r.recommendations.size(), 3u);
  EXPECT_NE(r.recommendations[0].find("Input is 25.5 % of step time"), std::string::npos);

  const std::string json = a::to_json(r);
  EXPECT_TRUE(nlohmann::json::accept(json)) << json;
  EXPECT_NE(json.find("\"verdict\": \"high\""), std::string::npos);
  EXPECT_NE(json.find("\"input_pct\": 25.5"), std::string::npos);
  EXPECT_EQ(a::to_text(r).rfind("Highly input-bound: 25.5 %", 0), 0u);
}

TEST(AnalyseTrace, OptionsSetTheStepThresholdPriceAndListedGaps) {
  ts::test::TempDir dir;
  const ts::store::Reader reader(write_trace(dir));
  a::AnalysisOptions o;
  o.step_input_bound_pct = 0.5;  // step 1's 1 % now counts
  o.gpu_hour_price = 10;
  o.min_listed_gap_ns = us(5);
  const a::Report r = a::analyse(reader, o);
  EXPECT_EQ(r.input_bound_steps, 2);
  EXPECT_NEAR(r.idle_cost_per_1000_steps, 0.037 / 3600 * 10, 1e-12);
  for (const a::IdleGap& g : r.device.gaps) EXPECT_GE(g.end_ns - g.start_ns, us(5));
  EXPECT_EQ(r.device.idle_ns, us(74));  // short gaps still count
}

// Three 100 µs steps whose trainer waits for input 3, 10 and 30 µs of them (the rest on the
// host): input 3 %, 10 %, 30 %.
std::string write_input_shares(const ts::test::TempDir& dir) {
  const std::string path = dir.file("shares.db");
  ts::store::Writer w(path);
  w.put_string(kStep, "step");
  w.put_label(kStep, kStep, Category::step);
  w.put_string(kWait, "wait for batch");
  w.put_label(kWait, kWait, Category::input_wait);
  w.put_string(kOpt, "forward");
  w.put_label(kOpt, kOpt, Category::host_compute);
  w.put_track(kMain, "main", TrackKind::thread);
  std::vector<EventRow> rows;
  const double waits[] = {3, 10, 30};
  for (std::int64_t i = 0; i < 3; ++i) {
    const double t = 100.0 * static_cast<double>(i), wait = waits[i];
    rows.push_back({kT + us(t), us(100), kMain, kStep, i, kNull});
    rows.push_back({kT + us(t + 0.5), us(wait), kMain, kWait, i, kNull});
    rows.push_back({kT + us(t + 0.5 + wait), us(99.5 - wait), kMain, kOpt, i, kNull});
  }
  w.append(std::span<const EventRow>(rows));
  w.finish();
  return path;
}

// A step is classed by the verdict's thresholds (XProf's split): >= 20 % input highly,
// >= 5 % moderately input-bound; both are counted apart in the report, its JSON and its text.
TEST(AnalyseTrace, StepsAreClassedHighlyAndModeratelyInputBound) {
  ts::test::TempDir dir;
  const ts::store::Reader reader(write_input_shares(dir));
  const a::Report r = a::analyse(reader);
  ASSERT_EQ(r.per_step.size(), 3u);
  EXPECT_EQ(r.steps, 3);
  const a::Verdict want[] = {a::Verdict::none, a::Verdict::moderate, a::Verdict::high};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(r.per_step[i].input_verdict, want[i]) << i;
    EXPECT_EQ(r.per_step[i].input_bound, want[i] != a::Verdict::none) << i;
  }
  EXPECT_EQ(r.input_bound_steps, 2);
  EXPECT_EQ(r.input_bound_steps_high, 1);

  const nlohmann::json j = nlohmann::json::parse(a::to_json(r));
  EXPECT_EQ(j["input_bound_steps"], 2);  // at or above the moderate threshold, as always
  EXPECT_EQ(j["input_bound_steps_high"], 1);
  EXPECT_EQ(j["input_bound_steps_moderate"], 1);
  EXPECT_EQ(j["step_input_thresholds_pct"]["moderate"], 5.0);
  EXPECT_EQ(j["step_input_thresholds_pct"]["high"], 20.0);

  const std::string text = a::to_text(r);
  // The text as one line: the report wraps its lines at a width.
  const auto unwrapped = [](const std::string& t) {
    std::string out;
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (t[i] != '\n') {
        out += t[i];
        continue;
      }
      out += ' ';
      while (i + 1 < t.size() && t[i + 1] == ' ') ++i;
    }
    return out;
  };
  EXPECT_NE(unwrapped(text).find(
                "2 of 3 steps input-bound: 1 highly (input ≥ 20 %), 1 moderately (≥ 5 %)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  highly input-bound: step 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  moderately input-bound: step 1\n"), std::string::npos) << text;

  // The thresholds are options, and a report kept for one set is not read for another.
  a::AnalysisOptions o;
  o.step_input_high_pct = 40;
  const a::Report higher = a::analyse(reader, o);
  EXPECT_EQ(higher.input_bound_steps, 2);
  EXPECT_EQ(higher.input_bound_steps_high, 0);
  EXPECT_EQ(higher.per_step[2].input_verdict, a::Verdict::moderate);
  EXPECT_NE(unwrapped(a::to_text(higher)).find("0 highly (input ≥ 40 %), 2 moderately (≥ 5 %)"),
            std::string::npos);
  o = {};
  o.step_input_bound_pct = 2;
  const a::Report lower = a::analyse(reader, o);
  EXPECT_EQ(lower.input_bound_steps, 3);
  EXPECT_EQ(lower.input_bound_steps_high, 1);
  // A moderate threshold above the high one: no step is highly input-bound below it.
  o.step_input_bound_pct = 50;
  o.step_input_high_pct = 20;
  const a::Report odd = a::analyse(reader, o);
  EXPECT_EQ(odd.input_bound_steps, 0);
  EXPECT_EQ(odd.input_bound_steps_high, 0);
  a::AnalysisOptions high_at_40;
  high_at_40.step_input_high_pct = 40;
  EXPECT_NE(a::kept_report_key(a::AnalysisOptions{}), a::kept_report_key(high_at_40));
}

// Without the list of gaps (what report, check and diff ask for) every figure is the same and
// the gaps are still counted.
TEST(AnalyseTrace, GapsCountedWithoutBeingKept) {
  ts::test::TempDir dir;
  const ts::store::Reader reader(write_trace(dir));
  a::AnalysisOptions kept, counted;
  counted.keep_gaps = false;
  const a::Report with = a::analyse(reader, kept);
  const a::Report without = a::analyse(reader, counted);
  ASSERT_FALSE(with.device.gaps.empty());
  EXPECT_EQ(with.device.listed_gaps, static_cast<std::int64_t>(with.device.gaps.size()));
  EXPECT_TRUE(without.device.gaps.empty());
  EXPECT_EQ(without.device.listed_gaps, with.device.listed_gaps);
  EXPECT_EQ(a::to_json(without), a::to_json(with));
}

TEST(AnalyseTrace, SplitPassesGiveTheSameReport) {
  ts::test::TempDir dir;
  const ts::store::Reader reader(write_trace(dir));
  a::AnalysisOptions one, two;
  one.threads = 1;
  two.threads = 2;  // two parts, cut at step 1's start
  EXPECT_EQ(a::to_json(a::analyse(reader, one)), a::to_json(a::analyse(reader, two)));
}

// A killed capture's staged events are indexed by the reader in memory; the second part reads a
// snapshot of that, and the report is the finished trace's.
TEST(AnalyseTrace, SplitPassesOfAKilledCaptureGiveTheSameReport) {
  ts::test::TempDir finished_dir, killed_dir;
  const ts::store::Reader finished(write_trace(finished_dir));
  const ts::store::Reader killed(write_trace(killed_dir, {}, true));
  ASSERT_TRUE(killed.staged_events_indexed());
  a::AnalysisOptions one, two;
  one.threads = 1;
  two.threads = 2;
  const std::string expected = a::to_json(a::analyse(finished, one));
  // The killed trace's report warns that its capture did not stop; the figures are the same.
  const auto figures = [](std::string json) {
    auto j = nlohmann::json::parse(json);
    j.erase("warnings");
    j.erase("trace");
    return j.dump();
  };
  EXPECT_EQ(figures(a::to_json(a::analyse(killed, two))), figures(expected));
  EXPECT_EQ(figures(a::to_json(a::analyse(killed, one))), figures(expected));
}

TEST(AnalyseTrace, ACompleteTraceHasNoWarnings) {
  ts::test::TempDir dir;
  const a::Report r = a::analyse(
      ts::store::Reader(write_trace(dir, {{"capture.ring_events", "8"}, {"capture.end_ns", "1"}})));
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_NE(a::to_json(r).find("\"warnings\": []"), std::string::npos);
  EXPECT_EQ(a::to_text(r).find("warning"), std::string::npos);
}

// Each way a trace can lack data gives one warning naming it, printed under the verdict.
TEST(AnalyseTrace, EachGapInTheDataIsOneWarning) {
  const std::vector<std::pair<std::vector<std::pair<std::string, std::string>>, std::string>>
      cases = {
          {{{"dropped_events", "12"}}, "12 events were dropped"},
          {{{"capture.write_error", "disk full"}, {"capture.events_lost", "340"}},
           "after an error (disk full): 340 events are missing"},
          {{{"capture.ring_events", "8"}}, "the capture did not stop"},
          {{{"dist.missing_ranks", "3"}, {"dist.absent_ranks", "3"}}, "rank(s) 3 of the job"},
          {{{"import.skipped.truncated_file", "1"}}, "cut off mid-write"},
          {{{"import.error", "b.json: bad token"}}, "stopped reading a file early: b.json"},
      };
  for (const auto& [meta, expected] : cases) {
    ts::test::TempDir dir;
    const a::Report r = a::analyse(ts::store::Reader(write_trace(dir, meta)));
    ASSERT_EQ(r.warnings.size(), 1u) << expected;
    EXPECT_NE(r.warnings[0].find(expected), std::string::npos) << r.warnings[0];
    const std::string text = a::to_text(r);
    const std::size_t second_line = text.find('\n') + 1;
    EXPECT_EQ(text.compare(second_line, 12, "warning     "), 0) << text;
    const std::string json = a::to_json(r);
    EXPECT_TRUE(nlohmann::json::accept(json));
    const std::size_t warnings = json.find("\"warnings\": [");
    ASSERT_NE(warnings, std::string::npos) << json;
    EXPECT_NE(json.find(expected, warnings), std::string::npos) << json;
  }
}

// Times the analysis has to clamp (durations over 2^61 ns) are counted in one warning; a trace
// without them has none (ACompleteTraceHasNoWarnings). A negative duration never reaches the
// analysis: the store writes it as 0.
TEST(AnalyseTrace, ClampedTimesAreCountedInAWarning) {
  ts::test::TempDir dir;
  const std::string path = dir.file("clamped.db");
  {
    ts::store::Writer w(path);
    w.put_string(kStep, "step");
    w.put_label(kStep, kStep, Category::step);
    w.put_string(kGemm, "gemm");
    w.put_label(kGemm, kGemm, Category::kernel);
    w.put_track(kMain, "main", TrackKind::thread);
    w.put_track(kCompute, "gpu compute", TrackKind::device_queue);
    const std::vector<EventRow> rows = {
        {kT, us(100), kMain, kStep, 0, kNull},
        {kT + us(10), -us(5), kCompute, kGemm, 0, kNull},
        {kT + us(20), std::int64_t{1} << 62, kCompute, kGemm, 0, kNull},
        {kT + us(25), (std::int64_t{1} << 61) + 1, kCompute, kGemm, 0, kNull},
        {kT + us(30), us(5), kCompute, kGemm, 0, kNull},
    };
    w.append(std::span<const EventRow>(rows));
    w.finish();
  }
  const a::Report r = a::analyse(ts::store::Reader(path));
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].rfind("2 events have an impossible time", 0), 0u) << r.warnings[0];
  EXPECT_NE(a::to_text(r).find("warning     2 events have an impossible time"), std::string::npos)
      << a::to_text(r);
}

TEST(AnalyseTrace, AnEmptyTraceIsNotAnError) {
  ts::test::TempDir dir;
  const std::string path = dir.file("empty.db");
  {
    ts::store::Writer w(path);
    w.finish();
  }
  const ts::store::Reader reader(path);
  const a::Report r = a::analyse(reader);
  EXPECT_EQ(r.steps, 0);
  EXPECT_EQ(r.events, 0);
  EXPECT_FALSE(r.device.has_device);
  EXPECT_FALSE(r.pipeline.bottleneck_stage.has_value());
  EXPECT_TRUE(nlohmann::json::accept(a::to_json(r)));
  EXPECT_EQ(a::verdict_sentence(r), "No training steps recorded: there is nothing to analyse.");
}

// No step markers: main launches [10,20) µs and computes [20,40); the compute queue runs a
// kernel [50,80); a worker reads [0,5). The whole window [0,80) µs is the one step, on the
// thread with the most events (main).
TEST(AnalyseTrace, ATraceWithoutStepsIsOneWholeWindowStep) {
  ts::test::TempDir dir;
  const std::string path = dir.file("no_steps.db");
  {
    ts::store::Writer w(path);
    const std::vector<std::pair<std::string, Category>> labels = {
        {"cudaLaunchKernel", Category::launch},
        {"aten::mm", Category::host_compute},
        {"gemm", Category::kernel},
        {"read", Category::input_read}};
    for (std::uint32_t i = 0; i < labels.size(); ++i) {
      w.put_string(i + 1, labels[i].first);
      w.put_label(i + 1, i + 1, labels[i].second);
    }
    w.put_track(kMain, "main", TrackKind::thread);
    w.put_track(kCompute, "gpu compute", TrackKind::device_queue);
    w.put_track(kWorker, "worker", TrackKind::thread);
    w.put_meta("steps.source", "none: no ProfilerStep markers");
    const std::vector<EventRow> rows = {{kT, us(5), kWorker, 4, kNull, kNull},
                                        {kT + us(10), us(10), kMain, 1, kNull, kNull},
                                        {kT + us(20), us(20), kMain, 2, kNull, kNull},
                                        {kT + us(50), us(30), kCompute, 3, kNull, kNull}};
    w.append(std::span<const EventRow>(rows));
    w.finish();
  }
  const ts::store::Reader reader(path);
  const std::optional<ts::store::Step> whole = a::whole_window_step(reader);
  ASSERT_TRUE(whole.has_value());
  EXPECT_EQ(whole->start_ns, kT);
  EXPECT_EQ(whole->dur_ns, us(80));
  EXPECT_EQ(whole->track, kMain);

  a::AnalysisOptions o;
  o.keep_gaps = false;
  const a::Report r = a::analyse_or_reuse(reader, o, 0);
  ASSERT_EQ(r.steps, 1);
  EXPECT_TRUE(r.whole_window);
  EXPECT_EQ(r.steps_source,
            std::string(a::kWholeWindowSource) + " (none: no ProfilerStep markers)");
  EXPECT_EQ(r.per_step[0].dur_ns, us(80));
  EXPECT_EQ(r.breakdown[Part::launch], us(10));
  EXPECT_EQ(r.breakdown[Part::host_compute], us(20));
  EXPECT_EQ(r.breakdown[Part::device_compute], us(30));
  EXPECT_EQ(r.breakdown[Part::other], us(20));  // [0,10) and [40,50): nothing on main or device
  EXPECT_TRUE(r.device.has_device);
  EXPECT_EQ(r.device.busy_ns, us(30));
  EXPECT_NE(a::to_text(r).find("steps from  no step markers: the figures cover the whole "
                               "profiled window as one step"),
            std::string::npos)
      << a::to_text(r);
  const nlohmann::json j = nlohmann::json::parse(a::to_json(r));
  EXPECT_EQ(j["source"]["whole_window"], true);
  EXPECT_EQ(j["steps"], 1);
  // 25 % unrecorded: the lever names the gaps ([0,10) and [40,50)) and the missing markers.
  const auto gap = std::find_if(r.levers.begin(), r.levers.end(),
                                [](const a::Lever& l) { return l.id == "unrecorded_time"; });
  ASSERT_NE(gap, r.levers.end()) << a::to_text(r);
  const std::string evidence = nlohmann::json(gap->evidence).dump();
  EXPECT_NE(evidence.find("10.0 µs at +0 ns in step 0; 10.0 µs at +40.0 µs in step 0"),
            std::string::npos)
      << evidence;
  EXPECT_NE(evidence.find("no step markers"), std::string::npos) << evidence;

  // Kept in the trace and read back, it is still one whole-window step.
  const ts::store::Reader again(path);
  a::KeptUse use;
  const a::Report kept = a::analyse_or_reuse(again, o, 0, &use);
  EXPECT_EQ(use.outcome, a::KeptUse::Outcome::reused);
  EXPECT_TRUE(kept.whole_window);
  EXPECT_EQ(a::to_json(kept), a::to_json(r));
}

TEST(AnalyseTrace, ATraceWithStepsIsNotAWholeWindow) {
  ts::test::TempDir dir;
  const std::string path = write_trace(dir);
  const ts::store::Reader reader(path);
  EXPECT_FALSE(a::whole_window_step(reader).has_value());
  const a::Report r = a::analyse(reader);
  EXPECT_FALSE(r.whole_window);
  EXPECT_EQ(r.steps_source.find("no step markers"), std::string::npos);
}

}  // namespace
