#include "engine/dist/mpi_communicator.hpp"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace ts::dist {

namespace {

// MPI counts are ints: larger buffers go in pieces of at most this many elements.
constexpr std::size_t kMaxCount = std::size_t{1} << 30;

int count_of(std::size_t n) {
  return static_cast<int>(std::min(n, kMaxCount));
}

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator() {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) {
      int provided = 0;
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
      owns_mpi_ = true;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiCommunicator() override {
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (owns_mpi_ && !finalised) {
      wait_all();
      MPI_Finalize();
    }
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backend() const override { return "mpi"; }

  void allreduce(float* data, std::size_t n, float scale) override {
    for (std::size_t done = 0; done < n; done += kMaxCount)
      MPI_Allreduce(MPI_IN_PLACE, data + done, count_of(n - done), MPI_FLOAT, MPI_SUM,
                    MPI_COMM_WORLD);
    if (scale != 1.0f)
      for (std::size_t i = 0; i < n; ++i) data[i] *= scale;
  }

  void allreduce(double* data, std::size_t n) override {
    for (std::size_t done = 0; done < n; done += kMaxCount)
      MPI_Allreduce(MPI_IN_PLACE, data + done, count_of(n - done), MPI_DOUBLE, MPI_SUM,
                    MPI_COMM_WORLD);
  }

  void start_allreduce(float* data, std::size_t n) override {
    for (std::size_t done = 0; done < n; done += kMaxCount) {
      MPI_Request r;
      MPI_Iallreduce(MPI_IN_PLACE, data + done, count_of(n - done), MPI_FLOAT, MPI_SUM,
                     MPI_COMM_WORLD, &r);
      pending_.push_back(r);
    }
  }

  bool progress() override {
    if (pending_.empty()) return true;
    int done = 0;
    MPI_Testall(static_cast<int>(pending_.size()), pending_.data(), &done, MPI_STATUSES_IGNORE);
    if (done) pending_.clear();
    return done != 0;
  }

  void wait_all() override {
    if (pending_.empty()) return;
    MPI_Waitall(static_cast<int>(pending_.size()), pending_.data(), MPI_STATUSES_IGNORE);
    pending_.clear();
  }

  void broadcast(void* data, std::size_t bytes, int root) override {
    auto* p = static_cast<char*>(data);
    for (std::size_t done = 0; done < bytes; done += kMaxCount)
      MPI_Bcast(p + done, count_of(bytes - done), MPI_BYTE, root, MPI_COMM_WORLD);
  }

  void barrier() override { MPI_Barrier(MPI_COMM_WORLD); }

  std::vector<std::string> allgather(const std::string& mine) override {
    if (mine.size() > INT_MAX / 2) throw std::length_error("allgather: message too large");
    const int length = static_cast<int>(mine.size());
    std::vector<int> lengths(static_cast<std::size_t>(size_)), offsets(lengths.size());
    MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD);
    std::int64_t total = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      offsets[r] = static_cast<int>(total);
      total += lengths[r];
      if (total > INT_MAX) throw std::length_error("allgather: messages too large");
    }
    std::string all(static_cast<std::size_t>(total), '\0');
    MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                   MPI_CHAR, MPI_COMM_WORLD);
    std::vector<std::string> out;
    for (std::size_t r = 0; r < lengths.size(); ++r)
      out.push_back(
          all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
    return out;
  }

  void send(const void* data, std::size_t bytes, int to, int tag) override {
    const auto* p = static_cast<const char*>(data);
    std::size_t done = 0;
    do {
      MPI_Send(p + done, count_of(bytes - done), MPI_BYTE, to, tag, MPI_COMM_WORLD);
      done += kMaxCount;
    } while (done < bytes);
  }

  void recv(void* data, std::size_t bytes, int from, int tag) override {
    auto* p = static_cast<char*>(data);
    std::size_t done = 0;
    do {
      MPI_Recv(p + done, count_of(bytes - done), MPI_BYTE, from, tag, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      done += kMaxCount;
    } while (done < bytes);
  }

  [[noreturn]] void abort(int status) override {
    MPI_Abort(MPI_COMM_WORLD, status);
    std::_Exit(status);  // MPI_Abort does not return; this satisfies [[noreturn]]
  }

 private:
  int rank_ = 0, size_ = 1;
  bool owns_mpi_ = false;
  std::vector<MPI_Request> pending_;
};

}  // namespace

std::unique_ptr<Communicator> make_mpi_communicator() {
  return std::make_unique<MpiCommunicator>();
}

}  // namespace ts::dist
