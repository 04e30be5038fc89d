#include "profiler/analysis/ranks.hpp"

#include <algorithm>

#include "profiler/analysis/figure_format.hpp"
#include "profiler/analysis/step_breakdown.hpp"

namespace ts::analysis {

namespace {

double per_step_ms(std::int64_t ns, std::int64_t steps) {
  return steps > 0 ? static_cast<double>(ns) / static_cast<double>(steps) / 1e6 : 0.0;
}

// The largest part of a rank's own step time (everything but collectives), as a cause.
std::string own_cause(const RankFigures& k, double* pct) {
  struct Candidate {
    const char* cause;
    std::int64_t ns;
  };
  const Breakdown& b = k.breakdown;
  const Candidate candidates[] = {
      {"input", b[Part::input_wait] + b[Part::h2d]},
      {"device compute", b[Part::device_compute] + b[Part::d2h]},
      {"host compute", b[Part::host_compute] + b[Part::launch] + b[Part::input_handoff]},
      {"synchronisation", b[Part::sync]},
  };
  const Candidate* top = &candidates[0];
  for (const Candidate& c : candidates)
    if (c.ns > top->ns) top = &c;
  *pct = percent(top->ns, k.step_time_total_ns);
  return top->cause;
}

std::string rank_name(const RankFigures& k) {
  return k.rank ? "rank " + std::to_string(*k.rank) : "process " + std::to_string(k.process);
}

}  // namespace

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

  // Own work and collective wait per step, per rank.
  double own_min = 0, own_max = 0, own_sum = 0;
  const RankFigures* least = nullptr;
  double least_wait = 0, step_sum = 0;
  for (const RankFigures& k : r.ranks) {
    if (k.steps <= 0) continue;
    const double wait = per_step_ms(k.breakdown[Part::collective], k.steps);
    const double own = per_step_ms(k.step_time_total_ns, k.steps) - wait;
    if (least == nullptr || wait < least_wait) {
      least = &k;
      least_wait = wait;
    }
    own_min = own_sum == 0 ? own : std::min(own_min, own);
    own_max = std::max(own_max, own);
    own_sum += own;
    step_sum += per_step_ms(k.step_time_total_ns, k.steps);
  }
  if (least == nullptr) return;
  const double ranks = static_cast<double>(r.ranks.size());
  r.load_imbalance_pct = own_sum > 0 ? 100.0 * (own_max - own_min) / (own_sum / ranks) : 0.0;

  double others_wait = 0;
  int others = 0;
  for (const RankFigures& k : r.ranks) {
    if (&k == least || k.steps <= 0) continue;
    others_wait += per_step_ms(k.breakdown[Part::collective], k.steps) - least_wait;
    ++others;
  }
  if (others == 0) return;
  const double wait = others_wait / others;
  const double mean_step = step_sum / ranks;
  if (mean_step <= 0 || 100.0 * wait / mean_step < kStragglerWaitPct) return;
  Report::Straggler s;
  s.rank = least->rank.value_or(least->process);
  double pct = 0;
  s.cause = own_cause(*least, &pct);
  s.cause_pct = pct;
  s.wait_ms_per_step = wait;
  s.sentence = rank_name(*least) +
               (s.cause == "input" ? " is input-bound" : " is slowest in " + s.cause) + " (" +
               fmt::pct(pct) + " of its step time): the other " +
               (least->rank ? "ranks" : "processes") + " wait " + fmt::ms(wait) +
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
