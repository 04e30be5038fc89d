#include "profiler/analysis/ranks.hpp"

#include <algorithm>

#include "profiler/analysis/figure_format.hpp"
#include "profiler/analysis/job_overview.hpp"
#include "profiler/analysis/step_breakdown.hpp"

namespace ts::analysis {

namespace {

double per_step_ms(std::int64_t ns, std::int64_t steps) {
  return steps > 0 ? static_cast<double>(ns) / static_cast<double>(steps) / 1e6 : 0.0;
}

// How the straggler sentence names its cause: "rank 3 is input-bound (...)".
std::string held_back_by(const std::string& cause) {
  if (cause == "input") return " is input-bound";
  if (cause == "other") return " has more time with nothing recorded";
  return " is slow in " + cause;
}

}  // namespace

std::string rank_name(const RankFigures& k) {
  return k.rank ? "rank " + std::to_string(*k.rank) : "process " + std::to_string(k.process);
}

std::string per_rank_text(const Report& r,
                          const std::function<std::optional<double>(const RankFigures&)>& value,
                          const std::function<std::string(double)>& format) {
  std::vector<std::pair<double, const RankFigures*>> with;
  for (const RankFigures& k : r.ranks)
    if (const std::optional<double> v = value(k)) with.emplace_back(*v, &k);
  std::string text;
  if (with.size() <= kListedRanks) {
    for (const auto& [v, k] : with)
      text += (text.empty() ? "" : ", ") + rank_name(*k) + " " + format(v);
    return text;
  }
  const auto by_value = [](const auto& a, const auto& b) { return a.first < b.first; };
  const auto [low, high] = std::minmax_element(with.begin(), with.end(), by_value);
  const std::string low_text = format(low->first) + " (" + rank_name(*low->second) + ")";
  const std::string high_text = format(high->first) + " (" + rank_name(*high->second) + ")";
  std::vector<double> values;
  values.reserve(with.size());
  for (const auto& w : with) values.push_back(w.first);
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  const bool processes = std::none_of(with.begin(), with.end(),
                                      [](const auto& w) { return w.second->rank.has_value(); });
  return fmt::count(static_cast<std::int64_t>(with.size())) +
         (processes ? " processes from " : " ranks from ") + low_text + " to " + high_text +
         ", median " + format(*middle);
}

void analyse_ranks(Report& r) {
  if (r.ranks.size() < 2) return;
  std::int64_t collective = 0, total = 0;
  for (const RankFigures& k : r.ranks) {
    collective += k.breakdown[Part::collective];
    total += k.step_time_total_ns;
  }
  r.communication_pct = percent(collective, total);
  r.communication_verdict = r.communication_pct >= kHighCommunicationPct       ? Verdict::high
                            : r.communication_pct >= kModerateCommunicationPct ? Verdict::moderate
                                                                               : Verdict::none;

  // Own work per step, per rank.
  double own_min = 0, own_max = 0, own_sum = 0;
  int with_steps = 0;
  for (const RankFigures& k : r.ranks) {
    if (k.steps <= 0) continue;
    const double own = per_step_ms(k.step_time_total_ns - k.breakdown[Part::collective], k.steps);
    own_min = with_steps == 0 ? own : std::min(own_min, own);
    own_max = std::max(own_max, own);
    own_sum += own;
    ++with_steps;
  }
  if (with_steps == 0) return;
  const double ranks = static_cast<double>(r.ranks.size());
  r.load_imbalance_pct = own_sum > 0 ? 100.0 * (own_max - own_min) / (own_sum / ranks) : 0.0;

  r.job = job_overview(r.ranks);
  if (!r.job || r.job->holding_back.empty()) return;
  // The straggler is the rank holding the job back the most.
  const JobOverview::HoldingBack& h = r.job->holding_back.front();
  const RankFigures& k = r.ranks[static_cast<std::size_t>(h.index)];
  Report::Straggler s;
  s.rank = k.rank.value_or(k.process);
  s.cause = h.cause;
  s.cause_pct = h.cause_pct;
  s.wait_ms_per_step = h.wait_ms_per_step / (r.job->ranks - 1);
  s.sentence = rank_name(k) + held_back_by(s.cause) + " (" + fmt::pct(s.cause_pct) +
               " of its step time, " + fmt::ms(h.cause_excess_ms) +
               " per step more than the median rank's): the other " +
               (k.rank ? "ranks" : "processes") + " wait " + fmt::ms(s.wait_ms_per_step) +
               " per step for it in collectives";
  r.straggler = s;
}

void communication_overlap(const LeverFacts& f, Report& r) {
  double collective = 0, overlapped = 0;
  for (std::size_t k = 0; k < f.collective_kernel_ns_per_step.size(); ++k) {
    const double c = f.collective_kernel_ns_per_step[k], o = f.overlapped_ns_per_step[k];
    collective += c;
    overlapped += o;
    if (c > 0 && k < r.ranks.size()) r.ranks[k].communication_overlap_pct = 100.0 * o / c;
  }
  if (collective > 0) r.communication_overlap_pct = 100.0 * overlapped / collective;
}

}  // namespace ts::analysis
