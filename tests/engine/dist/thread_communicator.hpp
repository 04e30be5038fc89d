// A Communicator whose ranks are threads of one process: the data-parallel fit loop tested
// without MPI. Every collective meets at a barrier; rank 0 sums in rank order, so every rank
// gets bit-identical results, as from MPI.
#pragma once

#include <barrier>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/dist/communicator.hpp"

namespace ts::test {

class ThreadGroup {
 public:
  explicit ThreadGroup(int ranks)
      : ranks_(ranks),
        barrier_(ranks),
        floats_(ranks),
        doubles_(ranks),
        bytes_(ranks),
        strings_(ranks) {}
  int ranks() const { return ranks_; }

 private:
  friend class ThreadCommunicator;
  int ranks_;
  std::barrier<> barrier_;
  std::vector<float*> floats_;
  std::vector<double*> doubles_;
  std::vector<void*> bytes_;
  std::vector<std::string> strings_;
  std::vector<float> fsum_;
  std::vector<double> dsum_;
};

class ThreadCommunicator final : public dist::Communicator {
 public:
  ThreadCommunicator(ThreadGroup& group, int rank) : g_(group), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return g_.ranks_; }
  std::string backend() const override { return "threads"; }

  void allreduce(float* data, std::size_t n, float scale) override {
    g_.floats_[rank_] = data;
    sync();
    if (rank_ == 0) {
      g_.fsum_.assign(n, 0.0f);
      for (float* p : g_.floats_)
        for (std::size_t i = 0; i < n; ++i) g_.fsum_[i] += p[i];
    }
    sync();
    for (std::size_t i = 0; i < n; ++i) data[i] = g_.fsum_[i] * scale;
    sync();
  }
  void allreduce(double* data, std::size_t n) override {
    g_.doubles_[rank_] = data;
    sync();
    if (rank_ == 0) {
      g_.dsum_.assign(n, 0.0);
      for (double* p : g_.doubles_)
        for (std::size_t i = 0; i < n; ++i) g_.dsum_[i] += p[i];
    }
    sync();
    std::memcpy(data, g_.dsum_.data(), n * sizeof(double));
    sync();
  }
  // Every rank starts its buckets at the same points, so summing at once is a valid schedule.
  void start_allreduce(float* data, std::size_t n) override {
    ++started_;
    allreduce(data, n, 1.0f);
  }
  bool progress() override { return true; }
  void wait_all() override {}
  void broadcast(void* data, std::size_t bytes, int root) override {
    g_.bytes_[rank_] = data;
    sync();
    if (rank_ != root) std::memcpy(data, g_.bytes_[root], bytes);
    sync();
  }
  void barrier() override { sync(); }
  std::vector<std::string> allgather(const std::string& mine) override {
    g_.strings_[rank_] = mine;
    sync();
    std::vector<std::string> all = g_.strings_;
    sync();
    return all;
  }
  void send(const void*, std::size_t, int, int) override { throw std::logic_error("no send"); }
  void recv(void*, std::size_t, int, int) override { throw std::logic_error("no recv"); }
  [[noreturn]] void abort(int) override { std::abort(); }

  int started() const { return started_; }

 private:
  void sync() { g_.barrier_.arrive_and_wait(); }
  ThreadGroup& g_;
  int rank_;
  int started_ = 0;
};

}  // namespace ts::test
