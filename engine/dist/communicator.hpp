// The ranks of a data-parallel job and the collectives training needs. The fit loop and the CLI
// talk to this interface only; mpi_communicator.cpp is the one file that includes <mpi.h>.
// Every call is collective over all ranks (all must make it, in the same order) unless it says
// otherwise, and is made from one thread (the trainer's).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace ts::dist {

// An error that every rank of the job detects identically and at the same point (ranks that
// disagree on the model or the data, weights that diverged): each rank reports it and exits on
// its own, with no need to abort the others.
class AgreedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  // "mpi", or "local" for the single process of a run without mpirun.
  virtual std::string backend() const = 0;

  // Sums data[0, n) over the ranks in place, then multiplies every element by `scale`.
  virtual void allreduce(float* data, std::size_t n, float scale) = 0;
  // Sums data[0, n) over the ranks in place (statistics, counts).
  virtual void allreduce(double* data, std::size_t n) = 0;

  // Non-blocking sums in place: start_allreduce returns at once; the data must not be touched
  // until wait_all() returns. progress() lets started sums advance (MPI progresses non-blocking
  // collectives inside MPI calls) and returns true when none is outstanding.
  virtual void start_allreduce(float* data, std::size_t n) = 0;
  virtual bool progress() = 0;
  virtual void wait_all() = 0;

  // Copies `bytes` bytes at data from rank `root` to every other rank.
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
  virtual void barrier() = 0;
  // Every rank's `mine`, in rank order (descriptors, host names, checksums).
  virtual std::vector<std::string> allgather(const std::string& mine) = 0;

  // Point to point, not collective: the clock ping-pong and shipping trace parts.
  virtual void send(const void* data, std::size_t bytes, int to, int tag) = 0;
  virtual void recv(void* data, std::size_t bytes, int from, int tag) = 0;

  // Ends every rank of the job with `status` (MPI_Abort); the caller has printed why. A single
  // process just exits.
  [[noreturn]] virtual void abort(int status) = 0;
};

// The communicator of a run without MPI (or of one rank alone): rank 0 of 1. Collectives only
// scale; point to point has no peer and throws std::logic_error.
class LocalCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string backend() const override { return "local"; }
  void allreduce(float* data, std::size_t n, float scale) override;
  void allreduce(double*, std::size_t) override {}
  void start_allreduce(float*, std::size_t) override {}
  bool progress() override { return true; }
  void wait_all() override {}
  void broadcast(void*, std::size_t, int) override {}
  void barrier() override {}
  std::vector<std::string> allgather(const std::string& mine) override { return {mine}; }
  void send(const void*, std::size_t, int, int) override;
  void recv(void*, std::size_t, int, int) override;
  [[noreturn]] void abort(int status) override;
};

}  // namespace ts::dist
