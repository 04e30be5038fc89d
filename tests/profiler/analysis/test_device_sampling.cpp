// analyse() on a capture that recorded device events on one step in four (meta
// capture.device_event_every = 4): the device figures come from the steps holding device events,
// extrapolated to the analysed steps, never diluted by the steps that hold none.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <span>

#include "profiler/analysis/report.hpp"
#include "profiler/analysis/report_codec.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/writer.hpp"
#include "tests/profiler/test_util.hpp"

namespace {

namespace a = ts::analysis;
using a::Part;
using ts::store::EventRow;
using ts::trace::Category;
using ts::trace::TrackKind;

constexpr std::int64_t kT = 1'000'000'000;
constexpr std::int64_t us(std::int64_t v) {
  return v * 1000;
}
enum : std::uint32_t { kMain = 1, kCompute = 2 };
enum : std::uint32_t { kStep = 1, kSync = 2, kGemm = 3 };

// 12 steps back to back. Steps 0, 4 and 8 hold device events and last 1200 us (their events'
// cost); the others last 1000 us. Every step: a sync zone from 100 us to 100 us before its end.
// Kernels: step 0 one of 500 us at 200 us; step 4 two of 300 us from 200 us; step 8 two of
// 200 us from 200 us.
std::string write_sampled_trace(const ts::test::TempDir& dir, bool sampled_meta) {
  const std::string path = dir.file(sampled_meta ? "sampled.db" : "unmarked.db");
  ts::store::Writer w(path);
  w.put_string(kStep, "step");
  w.put_label(kStep, kStep, Category::step);
  w.put_string(kSync, "wait for download");
  w.put_label(kSync, kSync, Category::sync);
  w.put_string(kGemm, "gemm");
  w.put_label(kGemm, kGemm, Category::kernel);
  w.put_track(kMain, "main", TrackKind::thread);
  w.put_track(kCompute, "gpu compute", TrackKind::device_queue);
  w.put_meta("engine.batch", "8");
  if (sampled_meta) w.put_meta("capture.device_event_every", "4");
  std::vector<EventRow> rows;
  std::int64_t t = kT;
  for (std::int64_t s = 0; s < 12; ++s) {
    const bool sampled = s % 4 == 0;
    const std::int64_t dur = sampled ? us(1200) : us(1000);
    rows.push_back({t, dur, kMain, kStep, s});
    rows.push_back({t + us(100), dur - us(200), kMain, kSync, s});
    const auto kernel = [&](std::int64_t from_us, std::int64_t len_us) {
      rows.push_back({t + us(from_us), us(len_us), kCompute, kGemm, s});
    };
    if (s == 0) kernel(200, 500);
    if (s == 4) kernel(200, 300), kernel(500, 300);
    if (s == 8) kernel(200, 200), kernel(400, 200);
    t += dur;
  }
  w.append(std::span<const EventRow>(rows));
  w.finish();
  return path;
}

TEST(DeviceSamplingAnalysis, DeviceFiguresComeFromTheSampledStepsOnly) {
  ts::test::TempDir dir;
  const ts::store::Reader reader(write_sampled_trace(dir, true));
  const a::Report r = a::analyse(reader);

  // Step 0 is the warm-up; steps 1-11 are analysed: 2 x 1200 + 9 x 1000 us.
  ASSERT_EQ(r.steps, 11);
  EXPECT_EQ(r.step_time_total_ns, us(11'400));
  ASSERT_TRUE(r.device_sampling.has_value());
  EXPECT_EQ(r.device_sampling->every, 4);
  EXPECT_EQ(r.device_sampling->sampled_steps, 2);  // 4 and 8
  EXPECT_EQ(r.device_sampling->steps, 11);
  for (const a::StepSummary& s : r.per_step) EXPECT_EQ(s.device_sampled, s.step % 4 == 0) << s.step;

  // Busy: the sampled steps' mean busy time (600 and 400 us: 500 us) on each of the 11 steps,
  // 5500 us of 11400 (not the 1000 us the kernels of two steps make over all eleven: 8.8 %).
  EXPECT_EQ(r.device.busy_ns, us(5'500));
  EXPECT_EQ(r.device.idle_ns, us(5'900));
  EXPECT_NEAR(r.device.busy_pct, 100.0 * 5'500 / 11'400, 1e-9);
  std::int64_t by_cause = 0;
  for (const std::int64_t ns : r.device.idle_by_cause_ns) by_cause += ns;
  EXPECT_NEAR(static_cast<double>(by_cause), static_cast<double>(r.device.idle_ns), 10);
  // Idle gaps are listed in the steps holding device events only (an unsampled step is not one
  // idle gap), counted alike whether they are kept or not.
  ASSERT_FALSE(r.device.gaps.empty());
  for (const a::IdleGap& g : r.device.gaps) EXPECT_EQ(g.step % 4, 0) << g.step;
  EXPECT_EQ(r.device.listed_gaps, static_cast<std::int64_t>(r.device.gaps.size()));
  a::AnalysisOptions counted;
  counted.keep_gaps = false;
  EXPECT_EQ(a::analyse(reader, counted).device.listed_gaps, r.device.listed_gaps);

  // The breakdown: the sampled steps' shares (device 1000, sync 1000, other 400 of 2400 us)
  // of the analysed steps' 11400 us.
  EXPECT_EQ(r.breakdown[Part::device_compute], us(4'750));
  EXPECT_EQ(r.breakdown[Part::sync], us(4'750));
  EXPECT_EQ(r.breakdown[Part::other], us(1'900));
  EXPECT_EQ(r.breakdown.total(), r.step_time_total_ns);

  // The kernel table: 4 kernels and 1000 us measured on 2 steps, extrapolated to 11.
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].count, 22);
  EXPECT_EQ(r.kernels[0].total_ns, us(5'500));
  EXPECT_EQ(r.kernels[0].mean_ns, us(250));

  // The whole run (12 steps): mean busy 500 us of each step's time: idle 12600 - 6000 us.
  EXPECT_NEAR(r.whole_run.device_idle_pct, 100.0 * 6'600 / 12'600, 1e-9);

  const std::string text = a::to_text(r);
  EXPECT_NE(text.find("device figures from 1 step in 4 (2 of 11 steps) — sampled"),
            std::string::npos)
      << text;
  const nlohmann::json j = nlohmann::json::parse(a::to_json(r));
  EXPECT_EQ(j["device"]["sampled"]["every"], 4);
  EXPECT_EQ(j["device"]["sampled"]["sampled_steps"], 2);
  EXPECT_EQ(j["device"]["sampled"]["steps"], 11);

  // A kept report (the binary codec) says the same.
  a::ReportDecoder decoder;
  std::uint64_t all = 0;
  const std::vector<std::string> parts = a::encode_report(r);
  for (const std::string& p : parts) all += p.size();
  for (const std::string& p : parts) ASSERT_TRUE(decoder.add(p, all));
  const std::optional<a::Report> kept = decoder.finish();
  ASSERT_TRUE(kept.has_value());
  ASSERT_TRUE(kept->device_sampling.has_value());
  EXPECT_EQ(kept->device_sampling->sampled_steps, 2);
  ASSERT_EQ(kept->per_step.size(), r.per_step.size());
  for (std::size_t i = 0; i < r.per_step.size(); ++i)
    EXPECT_EQ(kept->per_step[i].device_sampled, r.per_step[i].device_sampled) << i;
}

TEST(DeviceSamplingAnalysis, WithoutTheMetaKeyEveryStepCountsAsRecorded) {
  // The same events in a trace that does not say it sampled: the steps without kernels are
  // steps whose device idled (an input-bound run looks so), and count that way.
  ts::test::TempDir dir;
  const ts::store::Reader reader(write_sampled_trace(dir, false));
  const a::Report r = a::analyse(reader);
  EXPECT_FALSE(r.device_sampling.has_value());
  EXPECT_EQ(r.device.busy_ns, us(1'000));
  EXPECT_EQ(r.device.idle_ns, us(10'400));
  EXPECT_EQ(r.kernels.at(0).count, 4);
  EXPECT_EQ(a::to_text(r).find("device figures from"), std::string::npos);
}

}  // namespace
