// Distributed runs (a trace of several ranks): how much of every step goes to communication, and
// which rank holds the others back. Data-parallel ranks meet in a collective every step; a rank
// with more work of its own (input, compute) arrives last, and the others wait for it inside the
// collective. So the straggler is the rank that spends the least time in collectives while the
// others spend much more, and its cause is the largest part of its own step time.
//
//   communication share  collective time / step time over every rank's steps; XProf's
//                        thresholds for collectives: >= 15 % high, >= 3 % moderate
//   straggler            the rank with the least collective time per step, when another rank
//                        waits at least kStragglerWaitPct of the mean step longer in
//                        collectives; wait_ms_per_step = the mean over the other ranks of their
//                        collective time per step minus the straggler's
//   load imbalance       (max - min) / mean of the ranks' own work per step (step time minus
//                        collective time), in percent
//   overlap              of the collective kernels' time (their union on a rank's device
//                        queues), the share a compute kernel ran beside them (HTA's
//                        communication-computation overlap), per rank and over all
#pragma once

#include "profiler/analysis/lever_facts.hpp"
#include "profiler/analysis/report.hpp"

namespace ts::analysis {

inline constexpr double kHighCommunicationPct = 15.0;
inline constexpr double kModerateCommunicationPct = 3.0;
inline constexpr double kStragglerWaitPct = 5.0;

// Fills Report::communication_pct, communication_verdict, straggler and load_imbalance_pct from
// Report::ranks (nothing for a trace of one process).
void analyse_ranks(Report& report);

// Fills Report::communication_overlap_pct and each rank's from the lever facts' collective
// kernel time and its overlap with compute kernels (nothing without collective kernels).
void communication_overlap(const LeverFacts& facts, Report& report);

}  // namespace ts::analysis
