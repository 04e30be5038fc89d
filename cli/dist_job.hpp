// `trainscope train` as one rank of a data-parallel job (mpirun -np N trainscope train ...):
// joining the job, what every rank must agree on, per-rank file names, and ending the job after
// an error. A plain run is a job of one rank and behaves exactly as without MPI.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/dist/communicator.hpp"

namespace ts::cli {

struct JobInfo {
  dist::Communicator* comm = nullptr;
  int rank = 0, size = 1;
  std::string host, boot_id;  // this host's name and boot id (/proc/sys/kernel/random/boot_id)
  int ranks_on_host = 1;      // ranks sharing this host (same name and boot id)
  std::string job_id;         // rank 0's random id, the same on every rank
  bool distributed() const { return size > 1; }
};

// Joins the job: initialises MPI when an MPI launcher started the process (engine/dist's
// world()), learns the ranks' hosts and the job id (collective). A notice (a launcher started a
// build without MPI) goes to `notice`.
JobInfo join_job(std::string& notice);

// The file a rank writes for `path`: `path` itself on rank 0, else `path` with ".rank<r>" before
// its extension ("run.json" -> "run.rank1.json", "run" -> "run.rank1").
std::string rank_path(const std::string& path, int rank);

// Collective: every rank gives the same keys in the same order (its training configuration);
// throws dist::AgreedError, the same sentence on every rank, naming each key on which ranks
// differ and their values ("ranks disagree on --batch: rank 0 has 32, rank 1 has 64").
void check_agreement(const JobInfo& job,
                     const std::vector<std::pair<std::string, std::string>>& config);

}  // namespace ts::cli
