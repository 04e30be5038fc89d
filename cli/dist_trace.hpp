// The trace of a data-parallel job (`mpirun -np N trainscope train ... --trace PATH`): every
// rank captures its own timeline into its part, PATH.rank<r>.part beside PATH, tagged with the
// job in its meta (dist.*); at the end rank 0 merges the parts into PATH, one process per rank
// (profiler/store/job_merge.hpp), and removes them. A part rank 0 cannot read (another host's
// disk) is sent to it over MPI first; one that cannot be read in full or stored is left out of
// the merge and stays where it was. When the job ends early (a rank killed, or failing and
// aborting the job), the parts stay and `trainscope merge PATH` merges what exists.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cli/dist_job.hpp"
#include "engine/dist/communicator.hpp"

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

// A file sent from one rank to another (a part rank 0 cannot read where it is): send_file sends
// the file at `path` to rank `to`, its size and then its bytes in announced chunks; a chunk it
// cannot read in full (an I/O error, a file that shrank) is announced as missing and ends the
// transfer. Returns "" or why the file could not be sent (or opened). A missing or empty file
// sends only its size, as nothing.
std::string send_file(dist::Communicator& comm, const std::string& path, int to);
// Takes what send_file on rank `from` sends and stores it at `path`, replacing the file there
// (and its -wal, -shm and -journal) only once all of it has been written beside it
// (`path`.recv). Returns "" when stored or when the sender had nothing to send; otherwise why
// not, and nothing is stored: a file the sender could not read in full never reaches `path`.
std::string receive_file(dist::Communicator& comm, const std::string& path, int from);

// Collective, after training: stops this rank's capture and, in a job of several ranks, has
// rank 0 merge the parts into `trace`. Returns what rank 0 has to say about it ("" elsewhere);
// problems (parts left out, a part that could not be sent, a failed merge) go to `warnings` on
// the rank that saw them.
std::string finish_job_trace(const JobInfo& job, const std::string& trace,
                             std::vector<std::string>& warnings);

}  // namespace ts::cli
