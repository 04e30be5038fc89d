// Distributed runs (a trace of several ranks): how much of every step goes to communication, and
// which rank holds the others back. Data-parallel ranks meet in a collective every step; a rank
// with more work of its own (input, compute) arrives last, and the others wait for it inside the
// collective.
//
//   communication share  collective time / step time over every rank's steps; XProf's
//                        thresholds for collectives: >= 15 % high, >= 3 % moderate
//   job overview         the ranks as a distribution and the ranks holding the job back, with
//                        their cause and the others' wait for them (job_overview.hpp)
//   straggler            the first rank holding the job back (the most own work over the
//                        median rank's); wait_ms_per_step = its wait, as the job overview
//                        counts it, divided by the number of other ranks
//   load imbalance       (max - min) / mean of the ranks' own work per step (step time minus
//                        collective time), in percent
//   overlap              of the collective kernels' time (their union on a rank's device
//                        queues), the share a compute kernel ran beside them (HTA's
//                        communication-computation overlap), per rank and over all
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "profiler/analysis/lever_facts.hpp"
#include "profiler/analysis/report.hpp"

namespace ts::analysis {

inline constexpr double kHighCommunicationPct = 15.0;
inline constexpr double kModerateCommunicationPct = 3.0;
// Sentences list the ranks' values up to this many ranks, and give their range above.
inline constexpr std::size_t kListedRanks = 8;

// Fills Report::communication_pct, communication_verdict, job, straggler and load_imbalance_pct
// from Report::ranks (nothing for a trace of one process).
void analyse_ranks(Report& report);

// "rank 3" ("process 2" without a rank number).
std::string rank_name(const RankFigures& k);

// One figure of the ranks in a sentence: "rank 0 6.5 %, rank 1 7.0 %" for up to kListedRanks
// ranks, else "256 ranks from 6.5 % (rank 0) to 18.4 % (rank 2), median 6.5 %" (a job of hundreds
// of ranks reads as its range, not a list). Ranks without a value are left out; empty when none
// has one.
std::string per_rank_text(const Report& r,
                          const std::function<std::optional<double>(const RankFigures&)>& value,
                          const std::function<std::string(double)>& format);

// Fills Report::communication_overlap_pct and each rank's from the lever facts' collective
// kernel time and its overlap with compute kernels (nothing without collective kernels).
void communication_overlap(const LeverFacts& facts, Report& report);

}  // namespace ts::analysis
