// The packed per-step figures: every step reads back exactly as it was put in (extreme values,
// a share that is not the one its times give, every flag), in any chunk; set() and update()
// change steps in place; iterators work with the standard algorithms; and a step of an ordinary
// trace costs tens of bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "profiler/analysis/step_table.hpp"

namespace {

namespace a = ts::analysis;

a::StepSummary varied(std::mt19937_64& rng, std::int64_t i) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  const std::int64_t extremes[] = {0, 1, -1, kMax, kMin, 1'000'000'007, -42};
  auto any = [&] {
    return rng() % 3 == 0 ? extremes[rng() % std::size(extremes)]
                          : static_cast<std::int64_t>(rng() >> (rng() % 64));
  };
  a::StepSummary s;
  s.step = i % 17 == 0 ? any() : i;
  s.start_ns = any();
  s.dur_ns = any();
  for (auto& p : s.parts.ns) p = rng() % 2 ? any() : 0;
  s.input_ns = any();
  s.input_pct = rng() % 4 == 0   ? std::nan("")
                : rng() % 3 == 0 ? -0.0
                : rng() % 2 == 0 ? static_cast<double>(any()) / 3
                                 : 100.0 * static_cast<double>(s.input_ns) /
                                       static_cast<double>(std::max<std::int64_t>(1, s.dur_ns));
  s.device_busy_ns = any();
  for (auto& c : s.idle_by_cause_ns) c = rng() % 2 ? any() : 0;
  s.h2d_all_ns = any();
  s.input_wait_all_ns = any();
  s.input_work_in_wait_ns = any();
  s.rank_index = static_cast<int>(any());
  s.epoch = static_cast<int>(any());
  s.input_bound = rng() % 2;
  s.input_verdict = static_cast<a::Verdict>(rng() % 3);
  s.warmup = rng() % 2;
  s.device_sampled = rng() % 2;
  return s;
}

void expect_same(const a::StepSummary& g, const a::StepSummary& w) {
  EXPECT_EQ(g.step, w.step);
  EXPECT_EQ(g.start_ns, w.start_ns);
  EXPECT_EQ(g.dur_ns, w.dur_ns);
  EXPECT_EQ(g.parts.ns, w.parts.ns);
  EXPECT_EQ(g.input_ns, w.input_ns);
  EXPECT_EQ(std::memcmp(&g.input_pct, &w.input_pct, sizeof g.input_pct), 0)
      << g.input_pct << " against " << w.input_pct;
  EXPECT_EQ(g.device_busy_ns, w.device_busy_ns);
  EXPECT_EQ(g.idle_by_cause_ns, w.idle_by_cause_ns);
  EXPECT_EQ(g.h2d_all_ns, w.h2d_all_ns);
  EXPECT_EQ(g.input_wait_all_ns, w.input_wait_all_ns);
  EXPECT_EQ(g.input_work_in_wait_ns, w.input_work_in_wait_ns);
  EXPECT_EQ(g.rank_index, w.rank_index);
  EXPECT_EQ(g.epoch, w.epoch);
  EXPECT_EQ(g.input_bound, w.input_bound);
  EXPECT_EQ(g.input_verdict, w.input_verdict);
  EXPECT_EQ(g.warmup, w.warmup);
  EXPECT_EQ(g.device_sampled, w.device_sampled);
}

TEST(StepTable, EveryStepReadsBackExactly) {
  std::mt19937_64 rng(7);
  std::vector<a::StepSummary> steps;
  for (std::int64_t i = 0; i < 1000; ++i) steps.push_back(varied(rng, i));
  const a::StepTable table(steps);
  ASSERT_EQ(table.size(), steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) expect_same(table[i], steps[i]);
  std::size_t i = 0;
  for (const a::StepSummary& s : table) expect_same(s, steps[i++]);
  EXPECT_EQ(i, steps.size());
  expect_same(table.back(), steps.back());
  EXPECT_THROW((void)table.at(steps.size()), std::out_of_range);
}

TEST(StepTable, SetAndUpdateChangeStepsInPlace) {
  std::mt19937_64 rng(11);
  std::vector<a::StepSummary> steps;
  for (std::int64_t i = 0; i < 300; ++i) steps.push_back(varied(rng, i));
  a::StepTable table(steps);
  // Longer and shorter codes than the step had, at a chunk's first step and inside one.
  for (const std::size_t i :
       {std::size_t{0}, std::size_t{63}, std::size_t{64}, std::size_t{150}, std::size_t{299}}) {
    a::StepSummary s = varied(rng, static_cast<std::int64_t>(i));
    table.set(i, s);
    steps[i] = s;
    a::StepSummary zero;
    zero.step = static_cast<std::int64_t>(i);
    table.set((i + 1) % steps.size(), zero);
    steps[(i + 1) % steps.size()] = zero;
  }
  for (std::size_t i = 0; i < steps.size(); ++i) expect_same(table[i], steps[i]);

  table.update([](a::StepSummary& s) {
    s.warmup = !s.warmup;
    s.epoch = 3;
  });
  for (a::StepSummary& s : steps) s.warmup = !s.warmup, s.epoch = 3;
  for (std::size_t i = 0; i < steps.size(); ++i) expect_same(table[i], steps[i]);
  EXPECT_TRUE(table == a::StepTable(steps));
  table.set(5, steps[6]);
  EXPECT_FALSE(table == a::StepTable(steps));
}

TEST(StepTable, AppendsAndWorksWithTheStandardAlgorithms) {
  a::StepTable first, later;
  std::int64_t longest = 0;
  for (std::int64_t i = 0; i < 100; ++i) {
    a::StepSummary s;
    s.step = i;
    s.start_ns = 1'700'000'000'000'000'000 + i * 1'000'000;
    s.dur_ns = 900'000 + (i * 7919) % 1000;
    longest = std::max(longest, s.dur_ns);
    (i < 70 ? first : later).push_back(s);
  }
  first.append(later);
  ASSERT_EQ(first.size(), 100u);
  EXPECT_EQ(first[99].step, 99);
  const auto slowest = std::max_element(
      first.begin(), first.end(),
      [](const a::StepSummary& x, const a::StepSummary& y) { return x.dur_ns < y.dur_ns; });
  EXPECT_EQ(slowest->dur_ns, longest);
  const auto at = std::partition_point(first.begin(), first.end(),
                                       [](const a::StepSummary& s) { return s.step < 42; });
  EXPECT_EQ(at - first.begin(), 42);
  EXPECT_EQ(std::count_if(first.begin(), first.end(),
                          [](const a::StepSummary& s) { return s.step % 10 == 0; }),
            10);
  EXPECT_EQ(first.to_vector().size(), 100u);
}

TEST(StepTable, AnOrdinaryStepCostsTensOfBytes) {
  // Steps of about 50 ms, their input share and device figures as an analysis makes them.
  a::StepTable table;
  const std::int64_t n = 100'000;
  for (std::int64_t i = 0; i < n; ++i) {
    a::StepSummary s;
    s.step = i;
    s.start_ns = 1'700'000'000'000'000'000 + i * 50'000'000;
    s.dur_ns = 49'000'000 + (i * 7919) % 1'000'000;
    s.parts[a::Part::device_compute] = 30'000'000 + i % 1000;
    s.parts[a::Part::input_wait] = 5'000'000 + i % 777;
    s.parts[a::Part::other] =
        s.dur_ns - s.parts[a::Part::device_compute] - s.parts[a::Part::input_wait];
    s.input_ns = s.parts[a::Part::input_wait];
    s.input_pct = 100.0 * static_cast<double>(s.input_ns) / static_cast<double>(s.dur_ns);
    s.device_busy_ns = s.parts[a::Part::device_compute];
    s.idle_by_cause_ns[static_cast<int>(a::IdleCause::input)] = s.parts[a::Part::input_wait];
    s.idle_by_cause_ns[static_cast<int>(a::IdleCause::other)] = s.parts[a::Part::other];
    s.input_wait_all_ns = s.input_ns;
    s.epoch = 1 + static_cast<int>(i / 1000);
    table.push_back(s);
  }
  table.shrink_to_fit();
  const double per_step = static_cast<double>(table.memory_bytes()) / static_cast<double>(n);
  EXPECT_LT(per_step, 40.0);
  EXPECT_GT(per_step, 10.0);
  EXPECT_EQ(table[n - 1].epoch, 100);
}

}  // namespace
