// Averages a training step's gradients over the ranks (data parallelism), blocking or bucketed.
//
// blocking: one allreduce of the whole gradient buffer after backward.
// bucketed (PyTorch DDP's scheme): backward produces gradients from the last layer to the first,
// and the buffer holds them in layer order, so after layer l's backward everything from layer
// l's first parameter to the end is final. Each time at least `bucket_bytes` of final gradients
// have accumulated, a non-blocking allreduce of them starts while earlier layers' backward runs;
// finish() starts the rest and waits.
//
// The buffer is host memory (the CPU backend's own gradient buffer, or a host copy of a device's).
// Every rank's trainer thread calls begin/ready/finish in the same order with the same `n`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/dist/communicator.hpp"

namespace ts::dist {

enum class AllreduceMode { blocking, bucketed };

// "blocking" | "bucketed"; throws std::invalid_argument for anything else.
AllreduceMode parse_allreduce_mode(const std::string& text);
const char* mode_name(AllreduceMode mode);

struct ReduceStats {
  std::int64_t steps = 0;
  std::int64_t buckets = 0;     // allreduce operations started (blocking: one per step)
  std::int64_t bytes = 0;       // gradient bytes reduced, all steps
  std::int64_t exposed_ns = 0;  // time the trainer spent in the reducer's calls, all steps
};

class GradientReducer {
 public:
  static constexpr std::size_t kDefaultBucketBytes = 256 << 10;

  GradientReducer(Communicator& comm, AllreduceMode mode,
                  std::size_t bucket_bytes = kDefaultBucketBytes);

  AllreduceMode mode() const { return mode_; }
  // Whether ready() wants to be called after every layer's backward (bucketed).
  bool per_layer() const { return mode_ == AllreduceMode::bucketed; }

  // A step's gradients will be at data[0, n), valid until finish() returns. pre_scale multiplies
  // this rank's gradients before the sum (its share of the step's samples, when shares differ);
  // post_scale multiplies the sum (1 / ranks).
  void begin(float* data, std::size_t n, float pre_scale, float post_scale);
  // data[from, n) is final. Bucketed: starts an allreduce of the final gradients not yet started
  // once they reach the bucket size, and lets started ones progress.
  void ready(std::size_t from);
  // Completes the sum of data[0, n) and scales it.
  void finish();

  const ReduceStats& stats() const { return stats_; }

 private:
  void start(std::size_t from, std::size_t to);

  Communicator& comm_;
  AllreduceMode mode_;
  std::size_t bucket_floats_;
  float* data_ = nullptr;
  std::size_t n_ = 0;
  std::size_t unstarted_end_ = 0;  // data[unstarted_end_, n) is being reduced
  float pre_scale_ = 1.0f, post_scale_ = 1.0f;
  ReduceStats stats_;
};

}  // namespace ts::dist
