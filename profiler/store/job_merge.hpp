// A distributed job's trace: each rank captures into its own part, PATH.rank<r>.part, and the
// parts are merged into PATH (merge.hpp), one process per rank, on one clock. The parts carry
// what the merge needs in their meta (written by `trainscope train` under mpirun):
//   dist.rank, dist.world_size, dist.job_id, dist.backend, dist.host, dist.boot_id,
//   dist.clock.offset_ns / .error_ns / .at_ns          (this rank's clock minus rank 0's, at start)
//   dist.clock.end_offset_ns / .end_error_ns / .end_at_ns  (the same, measured again at the end)
// and process.pid, capture.end_ns (absent when the capture was killed) from the capture.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "profiler/store/merge.hpp"

namespace ts::store {

// "job.db" -> "job.db.rank1.part".
std::string part_path(const std::string& trace, int rank);
// The part files that exist for `trace`, ordered by rank.
std::vector<std::string> find_parts(const std::string& trace);

// The highest rank a part may name, plus one: a rank and the world size stay ints.
inline constexpr std::int64_t kRankLimit = 2147483647;

// Ranks as sorted, disjoint runs, so that a part claiming a world of a billion ranks costs one run
// rather than a billion entries.
struct RankRange {
  std::int64_t first = 0, last = 0;  // inclusive
  bool operator==(const RankRange&) const = default;
};
// "1", "1,2", "1-4,7" (a run of three or more ranks written first-last), joined by `separator`.
std::string format_ranks(std::span<const RankRange> ranges, std::string_view separator = ",");
// The ranks in [0, world_size) that are not in `present` (sorted): at most present.size() + 1 runs.
std::vector<RankRange> ranks_absent(std::span<const int> present, std::int64_t world_size);

struct JobMerge {
  int world_size = 0;
  std::vector<int> merged;        // ranks whose part is in the merged trace
  std::vector<RankRange> absent;  // ranks with no readable part
  // Ranks killed (SIGKILL, a crash): the capture never stopped nor committed on SIGTERM or on an
  // error, so its data ends at its last commit (at most 100 ms before the end).
  std::vector<int> cut_short;
  std::vector<int> recovered;         // parts whose staged events were indexed in place first
  std::string alignment;              // "monotonic" (one host) or "mpi_ping_pong"
  std::vector<std::string> warnings;  // parts left out (another job, unreadable), one sentence each
  MergeResult result;
};

// Merges the parts of one job into `out`. A part whose dist.rank is not in [0, kRankLimit) is
// left out with a warning; a dist.world_size out of that range is ignored (the highest rank
// merged decides it). A part left by a killed capture has its staged events
// indexed in place first (as store::recover does). Parts of another job (dist.job_id differing
// from the lowest rank's) and unreadable parts are left out with a warning. Ranks on rank 0's
// host (same host name and boot id) share its CLOCK_MONOTONIC and are merged as they are; the
// others are moved onto rank 0's clock by their measured offset (and the drift between the start
// and end measurements). Meta: dist.world_size, dist.backend, dist.ranks, dist.missing_ranks
// (absent or cut short, "1,3"; "" when none), dist.absent_ranks, dist.cut_short_ranks,
// clock.alignment, clock.rank.<r>.offset_ns (applied), .measured_offset_ns, .error_ns,
// .drift_ppm, and per rank rank.<r>.dist.state: complete, terminated (committed on the SIGTERM
// with which the launcher ended the job, rank.<r>.dist.terminated_ns), failed (rank.<r>.dist.failed
// says why) or killed. Throws Error when no part can be merged or `out` cannot be written.
JobMerge merge_job(const std::vector<std::string>& parts, const std::string& out);

}  // namespace ts::store
