// The Communicator over MPI_COMM_WORLD. Only built with TRAINSCOPE_WITH_MPI; its header keeps
// <mpi.h> out of every other file.
#pragma once

#include <memory>

#include "engine/dist/communicator.hpp"

namespace ts::dist {

// Initialises MPI (MPI_Init_thread, funneled: only the trainer thread calls MPI) and returns the
// world communicator; MPI_Finalize runs when it is destroyed. Call at most once per process.
std::unique_ptr<Communicator> make_mpi_communicator();

}  // namespace ts::dist
