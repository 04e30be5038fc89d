#include "profiler/analysis/job_overview.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

namespace ts::analysis {

namespace {

double per_step_ms(std::int64_t ns, std::int64_t steps) {
  return steps > 0 ? static_cast<double>(ns) / static_cast<double>(steps) / 1e6 : 0.0;
}

// A rank's own work split into the parts a cause is named from; they sum to its own work.
struct OwnParts {
  static constexpr std::array<std::string_view, 5> kNames = {
      "input", "device compute", "host compute", "synchronisation", "other"};
  std::array<double, kNames.size()> ms{};  // per step
};

OwnParts own_parts(const RankFigures& k) {
  const Breakdown& b = k.breakdown;
  const std::array<std::int64_t, OwnParts::kNames.size()> ns = {
      b[Part::input_wait] + b[Part::h2d],
      b[Part::device_compute] + b[Part::d2h],
      b[Part::host_compute] + b[Part::launch] + b[Part::input_handoff],
      b[Part::sync],
      b[Part::other],
  };
  OwnParts p;
  for (std::size_t i = 0; i < ns.size(); ++i) p.ms[i] = per_step_ms(ns[i], k.steps);
  return p;
}

double percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double at = q * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(at));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  const double frac = at - static_cast<double>(lo);
  return values[lo] * (1 - frac) + values[hi] * frac;
}

JobOverview::Spread spread(const std::vector<JobOverview::RankRow>& rows,
                           double JobOverview::RankRow::*figure) {
  std::vector<double> v;
  v.reserve(rows.size());
  for (const JobOverview::RankRow& row : rows) v.push_back(row.*figure);
  return {percentile(v, 0.5), percentile(v, 0.9), *std::max_element(v.begin(), v.end())};
}

// Most own work first; the longer step, then the lower index, breaks ties.
bool more_own_work(const JobOverview::RankRow& a, const JobOverview::RankRow& b) {
  if (a.own_ms != b.own_ms) return a.own_ms > b.own_ms;
  if (a.step_ms != b.step_ms) return a.step_ms > b.step_ms;
  return a.index < b.index;
}

}  // namespace

std::optional<JobOverview> job_overview(const std::vector<RankFigures>& ranks) {
  std::vector<JobOverview::RankRow> rows;
  JobOverview job;
  bool collectives = false;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const RankFigures& k = ranks[i];
    if (k.steps <= 0) continue;
    JobOverview::RankRow row;
    row.index = static_cast<int>(i);
    row.step_ms = per_step_ms(k.step_time_total_ns, k.steps);
    row.input_ms = per_step_ms(k.breakdown[Part::input_wait] + k.breakdown[Part::h2d], k.steps);
    row.collective_ms = per_step_ms(k.breakdown[Part::collective], k.steps);
    row.own_ms = row.step_ms - row.collective_ms;
    collectives = collectives || k.breakdown[Part::collective] > 0;
    job.device_ms += static_cast<double>(k.step_time_total_ns) / 1e6;
    rows.push_back(row);
  }
  if (rows.size() < 2) return std::nullopt;
  job.ranks = static_cast<int>(rows.size());
  job.step_ms = spread(rows, &JobOverview::RankRow::step_ms);
  job.input_ms = spread(rows, &JobOverview::RankRow::input_ms);
  job.collective_ms = spread(rows, &JobOverview::RankRow::collective_ms);
  job.own_ms = spread(rows, &JobOverview::RankRow::own_ms);

  std::vector<JobOverview::RankRow> by_own = rows;
  std::sort(by_own.begin(), by_own.end(), more_own_work);
  job.worst.assign(by_own.begin(), by_own.begin() + static_cast<std::ptrdiff_t>(
                                                        std::min(kWorstRanks, by_own.size())));
  // by_own runs from the most own work down: the lower middle of the ascending order is the
  // upper middle here.
  const JobOverview::RankRow& median = by_own[by_own.size() / 2];
  job.median_rank = median.index;
  job.threshold_ms = kHoldBackPct / 100.0 * median.step_ms;
  if (!collectives) return job;  // processes that never wait for each other hold nothing back

  const OwnParts median_parts = own_parts(ranks[static_cast<std::size_t>(median.index)]);
  for (const JobOverview::RankRow& row : by_own) {
    const double excess = row.own_ms - median.own_ms;
    if (excess <= job.threshold_ms) break;
    const RankFigures& k = ranks[static_cast<std::size_t>(row.index)];
    JobOverview::HoldingBack h;
    h.index = row.index;
    h.own_ms = row.own_ms;
    h.excess_ms = excess;
    const OwnParts parts = own_parts(k);
    std::size_t top = 0;
    for (std::size_t p = 1; p < parts.ms.size(); ++p)
      if (parts.ms[p] - median_parts.ms[p] > parts.ms[top] - median_parts.ms[top]) top = p;
    h.cause = std::string(OwnParts::kNames[top]);
    h.cause_excess_ms = parts.ms[top] - median_parts.ms[top];
    h.cause_pct = row.step_ms > 0 ? 100.0 * parts.ms[top] / row.step_ms : 0.0;
    for (const JobOverview::RankRow& other : rows) {
      if (other.index == row.index) continue;
      const double wait = std::max(0.0, row.own_ms - std::max(other.own_ms, median.own_ms));
      h.wait_ms_per_step += wait;
      h.wait_ms += wait * static_cast<double>(ranks[static_cast<std::size_t>(other.index)].steps);
    }
    h.wait_pct = job.device_ms > 0 ? 100.0 * h.wait_ms / job.device_ms : 0.0;
    job.holding_back.push_back(std::move(h));
  }
  return job;
}

}  // namespace ts::analysis
