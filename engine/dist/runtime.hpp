// The process's place in a distributed job: whether an MPI launcher started it, and its world
// communicator. A plain run (no mpirun) never initialises MPI and gets a LocalCommunicator.
#pragma once

#include <string>

#include "engine/dist/communicator.hpp"

namespace ts::dist {

// True when this build has the MPI communicator (-DTRAINSCOPE_WITH_MPI=ON).
bool built_with_mpi();

// The launcher's environment variable that says this process is a rank of an MPI job
// (OMPI_COMM_WORLD_SIZE from Open MPI's mpirun, PMIX_RANK from PMIx launchers such as
// srun --mpi=pmix, PMI_SIZE from Hydra/PMI-2), or "" for a plain run.
std::string mpi_launcher_variable();

// The world communicator, created on the first call: MPI's when the process runs under an MPI
// launcher and the build has MPI, else a LocalCommunicator. `notice` receives one sentence when a
// launcher started a build without MPI (every copy then runs alone, as an independent job).
Communicator& world(std::string* notice = nullptr);
// Whether world() was created and has more than one rank.
bool is_distributed();

// Ends MPI (MPI_Finalize) if world() initialised it. Collective: every rank calls it once.
void finalize();

// After an error on this rank that the other ranks do not know of: when the job has other
// ranks, ends them all (MPI_Abort with `status`, so that none waits forever in a collective) and
// does not return. Otherwise returns. `agreed` errors — detected identically by every rank, such
// as a configuration mismatch — return instead, and each rank exits on its own.
void end_job_after_error(int status, bool agreed);

}  // namespace ts::dist
