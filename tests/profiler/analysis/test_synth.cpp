// The synthetic trace generator: consistent timestamps (events inside their steps, no overlap on
// a queue, zones nested on threads), deterministic, and analysed as built (the steps made to
// wait for input are exactly the input-bound ones; a split pass changes nothing).
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "profiler/analysis/report.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/synth/synth.hpp"
#include "tests/profiler/test_util.hpp"

namespace {

namespace a = ts::analysis;
namespace synth = ts::synth;

TEST(Synth, TimestampsAreConsistent) {
  ts::test::TempDir dir;
  const std::string path = dir.file("synth.db");
  synth::SynthOptions o;
  o.target_events = 20'000;
  o.seed = 3;
  const synth::SynthResult res = synth::write_synthetic_trace(path, o);
  EXPECT_GE(res.events, o.target_events);
  EXPECT_LT(res.events, o.target_events + synth::events_per_step(o));
  EXPECT_EQ(res.events, res.steps * synth::events_per_step(o));

  const ts::store::Reader reader(path);
  EXPECT_EQ(reader.event_count(), res.events);
  const auto steps = reader.steps();
  ASSERT_EQ(static_cast<std::int64_t>(steps.size()), res.steps);
  std::map<std::int64_t, ts::store::Step> by_number;
  for (const auto& s : steps) by_number[s.step] = s;

  std::map<std::uint32_t, std::vector<std::pair<std::int64_t, std::int64_t>>> open;  // per track
  std::int64_t checked = 0;
  for (const ts::store::Event& e : reader.events(res.start_ns, res.end_ns + 1)) {
    ASSERT_GT(e.dur_ns, 0);
    if (e.step != ts::store::kNull) {
      const auto& s = by_number.at(e.step);
      ASSERT_GE(e.start_ns, s.start_ns) << reader.name(e);
      ASSERT_LE(e.end_ns(), s.start_ns + s.dur_ns) << reader.name(e);
    }
    // On every track an event either starts after the previous ones ended or nests in them;
    // device queues never nest.
    auto& stack = open[e.track];
    while (!stack.empty() && stack.back().second <= e.start_ns) stack.pop_back();
    if (!stack.empty()) {
      ASSERT_NE(e.track, synth::kComputeTrack) << "kernels overlap";
      ASSERT_NE(e.track, synth::kCopyTrack) << "copies overlap";
      ASSERT_LE(e.end_ns(), stack.back().second) << reader.name(e) << " crosses its parent";
    }
    stack.push_back({e.start_ns, e.end_ns()});
    ++checked;
  }
  EXPECT_EQ(checked, res.events);
  const auto fill = reader.counter(synth::kFillTrack, res.start_ns, res.end_ns + 1);
  ASSERT_FALSE(fill.empty());
  for (const auto& c : fill) {
    EXPECT_GE(c.value, 0);
    EXPECT_LE(c.value, o.prefetch);
  }
}

TEST(Synth, AnalysisFindsWhatWasBuilt) {
  ts::test::TempDir dir;
  const std::string path = dir.file("synth.db");
  synth::SynthOptions o;
  o.target_events = 30'000;
  o.seed = 11;
  o.input_bound_fraction = 0.4;
  const synth::SynthResult res = synth::write_synthetic_trace(path, o);
  ASSERT_GT(res.input_bound_steps, 0);
  ASSERT_LT(res.input_bound_steps, res.steps);

  const ts::store::Reader reader(path);
  a::AnalysisOptions one;
  one.threads = 1;
  one.skip_warmup = 0;  // the generator's figures cover every step
  const a::Report r = a::analyse(reader, one);
  EXPECT_EQ(r.steps, res.steps);
  EXPECT_EQ(r.events, res.events);
  EXPECT_EQ(r.input_bound_steps, res.input_bound_steps);
  EXPECT_EQ(r.verdict, a::Verdict::high);  // 40 % of the steps spend 19-50 % on input
  EXPECT_EQ(r.pipeline.bottleneck_stage, "decode");
  EXPECT_EQ(r.pipeline.workers, o.workers);
  ASSERT_EQ(r.pipeline.stages.size(), 4u);
  EXPECT_EQ(r.pipeline.stages[1].threads, o.workers);
  EXPECT_EQ(r.kernels.size(), 9u);  // distinct names of the 12 kernels of a step
  std::int64_t launches = 0;
  for (const auto& k : r.kernels) launches += k.count;
  EXPECT_EQ(launches, res.steps * synth::kKernelsPerStep);
  EXPECT_TRUE(r.device.has_device);
  EXPECT_GT(r.device.idle_by_cause_ns[static_cast<int>(a::IdleCause::input)], 0);
  EXPECT_GT(r.device.idle_by_cause_ns[static_cast<int>(a::IdleCause::host)], 0);

  // Split passes (cut inside worker zones, with kernels and waits reaching across the cuts)
  // give the same report, gaps and per-step figures included.
  for (int threads : {2, 3, 4}) {
    a::AnalysisOptions split;
    split.threads = threads;
    split.skip_warmup = 0;
    const a::Report s = a::analyse(reader, split);
    EXPECT_EQ(a::to_json(r), a::to_json(s)) << threads;
    ASSERT_EQ(s.device.gaps.size(), r.device.gaps.size()) << threads;
    for (std::size_t i = 0; i < r.device.gaps.size(); ++i) {
      ASSERT_EQ(s.device.gaps[i].start_ns, r.device.gaps[i].start_ns) << threads << " " << i;
      ASSERT_EQ(s.device.gaps[i].cause, r.device.gaps[i].cause) << threads << " " << i;
    }
    ASSERT_EQ(s.per_step.size(), r.per_step.size());
    for (std::size_t i = 0; i < r.per_step.size(); ++i)
      ASSERT_EQ(s.per_step[i].parts.ns, r.per_step[i].parts.ns) << threads << " " << i;
  }
}

TEST(Synth, WithoutSlowBatchesNothingIsInputBound) {
  ts::test::TempDir dir;
  synth::SynthOptions o;
  o.target_events = 10'000;
  o.input_bound_fraction = 0;
  const synth::SynthResult res = synth::write_synthetic_trace(dir.file("t.db"), o);
  EXPECT_EQ(res.input_bound_steps, 0);
  const a::Report r = a::analyse(ts::store::Reader(dir.file("t.db")));
  EXPECT_EQ(r.input_bound_steps, 0);
  EXPECT_EQ(r.verdict, a::Verdict::none);
  EXPECT_LT(r.input_pct, 3.0);
}

TEST(Synth, DeterministicForASeed) {
  ts::test::TempDir dir;
  synth::SynthOptions o;
  o.target_events = 5'000;
  o.seed = 5;
  synth::write_synthetic_trace(dir.file("a.db"), o);
  synth::write_synthetic_trace(dir.file("b.db"), o);
  o.seed = 6;
  synth::write_synthetic_trace(dir.file("c.db"), o);
  const std::string ja = a::to_json(a::analyse(ts::store::Reader(dir.file("a.db"))));
  EXPECT_EQ(ja, a::to_json(a::analyse(ts::store::Reader(dir.file("b.db")))));
  EXPECT_NE(ja, a::to_json(a::analyse(ts::store::Reader(dir.file("c.db")))));
}

TEST(Synth, RejectsBadOptions) {
  ts::test::TempDir dir;
  synth::SynthOptions o;
  o.workers = 0;
  EXPECT_THROW(synth::write_synthetic_trace(dir.file("x.db"), o), std::invalid_argument);
  o = {};
  o.input_bound_fraction = 1.5;
  EXPECT_THROW(synth::write_synthetic_trace(dir.file("x.db"), o), std::invalid_argument);
}

}  // namespace
