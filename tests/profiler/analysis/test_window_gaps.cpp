// idle_gaps_in(): the gaps of the steps overlapping a window are exactly the ones analyse() lists
// for those steps, on a synthetic trace of one process and on two of them merged as two ranks.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>
#include <vector>

#include "profiler/analysis/report.hpp"
#include "profiler/analysis/step_groups.hpp"
#include "profiler/analysis/steps.hpp"
#include "profiler/analysis/window_gaps.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/synth/synth.hpp"
#include "tests/profiler/analysis/synth_ranks.hpp"
#include "tests/profiler/test_util.hpp"

namespace {

namespace a = ts::analysis;
using Gap = std::tuple<std::int64_t, std::int64_t, std::int64_t, int>;

std::vector<Gap> as_tuples(const std::vector<a::IdleGap>& gaps) {
  std::vector<Gap> out;
  for (const a::IdleGap& g : gaps)
    out.emplace_back(g.start_ns, g.end_ns, g.step, static_cast<int>(g.cause));
  return out;
}

// The gaps of `all` whose step (of the steps listed in `report`) overlaps [t0, t1).
std::vector<Gap> expected_in(const a::Report& report, const std::vector<a::IdleGap>& all,
                             std::int64_t t0, std::int64_t t1) {
  std::set<std::pair<int, std::int64_t>> steps;  // (rank, step number) overlapping the window
  for (const a::StepSummary& s : report.per_step)
    if (s.start_ns < t1 && s.start_ns + s.dur_ns > t0) steps.emplace(s.rank_index, s.step);
  std::vector<a::IdleGap> in;
  for (const a::IdleGap& g : all) {
    // A gap lies inside its step: it overlaps the window's steps when its step does.
    for (const a::StepSummary& s : report.per_step) {
      if (s.step != g.step || g.start_ns < s.start_ns || g.end_ns > s.start_ns + s.dur_ns) continue;
      if (steps.contains({s.rank_index, s.step})) in.push_back(g);
      break;
    }
  }
  return as_tuples(in);
}

void expect_windows_match(const std::string& path) {
  const ts::store::Reader reader(path);
  const a::Report report = a::analyse(reader, {});
  ASSERT_TRUE(report.device.has_device);
  ASSERT_GT(report.device.gaps.size(), 100u);
  const std::int64_t begin = report.per_step.front().start_ns;
  const std::int64_t end = report.per_step.back().start_ns + report.per_step.back().dur_ns;
  // The whole trace: every gap, in the report's order.
  EXPECT_EQ(as_tuples(a::idle_gaps_in(reader, {INT64_MIN / 4, INT64_MAX / 4}, {})),
            as_tuples(report.device.gaps));
  const a::GapContext context = a::gap_context(reader);
  EXPECT_EQ(context.steps_in_file, report.ranks.empty());  // one process: no steps held
  EXPECT_EQ(context.groups.size(), report.ranks.empty() ? 0u : report.ranks.size());
  // The same trace's steps held, grouped as analyse() groups them.
  a::GapContext held;
  const std::vector<ts::store::Step> steps = reader.steps();
  held.groups = a::step_groups(reader, steps);
  held.tracks =
      a::group_track_table(reader, held.groups, a::trainer_tracks(reader, a::step_tracks(steps)));
  // Windows at a few places and of a few lengths, cutting through steps.
  const std::int64_t span = end - begin;
  for (const auto& [from, length] :
       {std::pair{0.0, 0.01}, {0.37, 0.002}, {0.5, 0.2}, {0.999, 0.5}, {-0.1, 0.1001}}) {
    const auto t0 = begin + static_cast<std::int64_t>(from * static_cast<double>(span));
    const auto t1 = t0 + static_cast<std::int64_t>(length * static_cast<double>(span)) + 1;
    const auto got = as_tuples(a::idle_gaps_in(reader, {t0, t1}, {}));
    EXPECT_EQ(got, expected_in(report, report.device.gaps, t0, t1)) << from << " " << length;
    // The same from a context read once (a viewer's), and from one holding the steps.
    EXPECT_EQ(as_tuples(a::idle_gaps_in(reader, context, {t0, t1}, {})), got);
    EXPECT_EQ(as_tuples(a::idle_gaps_in(reader, held, {t0, t1}, {})), got);
  }
  // Windows whose edges fall exactly on steps' edges: a step ending at the window's start is
  // not in it, one starting at its end is not either.
  for (std::size_t i : {std::size_t{1}, steps.size() / 2, steps.size() - 2}) {
    const ts::store::Step& s = steps[i];
    const a::Interval w{s.start_ns + s.dur_ns, steps[i + 1].start_ns + 1};
    EXPECT_EQ(as_tuples(a::idle_gaps_in(reader, context, w, {})),
              as_tuples(a::idle_gaps_in(reader, held, w, {})))
        << i;
    const a::Interval exact{s.start_ns, s.start_ns + s.dur_ns};
    const auto got = as_tuples(a::idle_gaps_in(reader, context, exact, {}));
    EXPECT_EQ(got, as_tuples(a::idle_gaps_in(reader, held, exact, {}))) << i;
    // (expected_in() cannot tell apart two ranks' steps of one number that overlap.)
    if (report.ranks.empty()) {
      EXPECT_EQ(got, expected_in(report, report.device.gaps, exact.start, exact.end)) << i;
    }
  }
  EXPECT_TRUE(a::idle_gaps_in(reader, {end + 1, end + 1000}, {}).empty());
  // The listed gaps' threshold applies as analyse() applies it.
  a::AnalysisOptions longer;
  longer.min_listed_gap_ns = 2000;
  EXPECT_EQ(as_tuples(a::idle_gaps_in(reader, {begin, end}, longer)),
            as_tuples(a::analyse(reader, longer).device.gaps));
}

TEST(WindowGaps, AWindowsGapsAreThoseTheAnalysisListsForItsSteps) {
  ts::test::TempDir dir;
  ts::synth::SynthOptions options;
  options.target_events = 30'000;
  const std::string path = dir.file("synth.db");
  ts::synth::write_synthetic_trace(path, options);
  expect_windows_match(path);
}

// Two ranks: each rank's steps get the gaps of its own device queues.
TEST(WindowGaps, EachRanksGapsComeFromItsOwnTracks) {
  ts::test::TempDir dir;
  const std::string job = ts::test::merged_synth_ranks(dir, 15'000, {0.1, 0.6});
  expect_windows_match(job);
}

}  // namespace
