// The trace of a data-parallel job (`mpirun -np N trainscope train ... --trace PATH`): every
// rank captures its own timeline into its part, PATH.rank<r>.part beside PATH, tagged with the
// job in its meta (dist.*); at the end rank 0 merges the parts into PATH, one process per rank
// (profiler/store/job_merge.hpp), and removes them. A part rank 0 cannot read (another host's
// disk) is sent to it over MPI first. When the job ends early (a rank killed, or failing and
// aborting the job), the parts stay and `trainscope merge PATH` merges what exists.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cli/dist_job.hpp"

namespace ts::cli {

// The file this rank captures into: `trace` itself for a single process, else its part.
std::string capture_path(const JobInfo& job, const std::string& trace);

// The meta keys of this rank's part (empty for a single process).
std::vector<std::pair<std::string, std::string>> part_meta(const JobInfo& job);

// Collective, while capturing: measures every rank's clock offset to rank 0 (MPI ping-pong) and
// records this rank's in its part's meta, dist.clock.* (at_end: dist.clock.end_*).
void record_clock_offsets(const JobInfo& job, bool at_end);

// Under an MPI launcher, with a trace: a thread that takes SIGTERM (what mpirun sends the other
// ranks when one fails or dies) and commits this rank's capture, marked dist.terminated_ns,
// before exiting with status 143, so that a survivor's part holds everything up to that moment.
// Call before any other thread starts (it blocks SIGTERM in the threads started after it).
void watch_for_termination();

// After an error on this rank, before the job is aborted: records it in the part
// (dist.failed) and commits what was captured.
void mark_part_failed(const std::string& message);

// Collective, after training: stops this rank's capture and, in a job of several ranks, has
// rank 0 merge the parts into `trace`. Returns what rank 0 has to say about it ("" elsewhere);
// problems (parts left out, a failed merge) go to `warnings`.
std::string finish_job_trace(const JobInfo& job, const std::string& trace,
                             std::vector<std::string>& warnings);

}  // namespace ts::cli
