// The overview of a job of several ranks (JobOverview in report.hpp). With hundreds of ranks a
// list of them says nothing, so each rank's figures per step become a distribution over the
// ranks, and the ranks that make the others wait are named with the part of their work that is
// larger than a typical rank's.
//
//   per rank, per step   step time; input (input wait + exposed h2d); collective (its wait for
//                        the others and the transfer); own work = step time - collective
//   distribution         median, p90 and max over the ranks with steps
//   worst                up to kWorstRanks ranks with the most own work per step (the longest
//                        step breaks ties: without collectives own work is the step time)
//   median rank          the rank in the middle by own work per step (for an even count the
//                        lower of the two middle ones, so that of two ranks it is the faster)
//   holding back         a rank whose own work per step exceeds the median rank's by more than
//                        kHoldBackPct of the median rank's step time, in a job whose ranks meet
//                        in collectives (some collective time); ordered by that excess
//   cause                of its own work's parts (input; device compute + d2h; host compute +
//                        launch + input hand-over; synchronisation; other), the one with the
//                        largest excess over the median rank's same part: a rank late because
//                        of input is named "input" even when most of its step is compute
//   its wait             in a data-parallel step every rank waits in the collective for the
//                        last to arrive. Another rank k is charged the time from when it, or
//                        the median rank if later, is done to when this rank is done:
//                        sum over k of max(0, own - max(own_k, own_median)) per step, and over
//                        the run (times k's steps); as a share of the job's device time (every
//                        rank's summed step time). Each rank's wait is counted as if it were the
//                        only one holding the job back, so the first one's is the job's whole
//                        wait beyond the median rank.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "profiler/analysis/report.hpp"

namespace ts::analysis {

inline constexpr double kHoldBackPct = 5.0;
inline constexpr std::size_t kWorstRanks = 5;

// The overview of `ranks` (Report::ranks); nullopt for fewer than two ranks with steps.
std::optional<JobOverview> job_overview(const std::vector<RankFigures>& ranks);

}  // namespace ts::analysis
