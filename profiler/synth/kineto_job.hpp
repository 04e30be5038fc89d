// Synthetic PyTorch profiler (Kineto) traces of a data-parallel job: one JSON file per rank, as
// `torch.profiler` writes them on N GPUs (distributedInfo, deviceProperties, ProfilerStep#k
// annotations, DataLoader iterations, operators launching kernels with correlation ids, NCCL
// all-reduce kernels on a stream of their own, an Adam step with a multi_tensor_apply kernel), for
// benchmarks and tests of job-scale import and of the job overview. Three ranks are planted:
//
//   straggler        its forward and backward kernels take kStragglerScale times as long, so
//                    every other rank waits for it in the step's all-reduce
//   slow input       its DataLoader takes kSlowInputScale times as long (its device idles first)
//   more collectives twice the all-reduce buckets per step
//
// A step ends for every rank at once (the all-reduce synchronises them): the all-reduce kernels of
// a rank start when its backward ends and last until the slowest rank's backward ended plus the
// transfer. Deterministic for a seed: each rank's durations come from a hash of (seed, rank,
// step), so ranks are written in parallel without talking to each other.
#pragma once

#include <cstdint>
#include <string>

namespace ts::synth {

struct KinetoJobOptions {
  int ranks = 8;
  std::int64_t steps = 20;        // per rank; 0: as many as `rank_bytes` needs
  std::int64_t rank_bytes = 0;    // target size of one rank's file (with steps = 0)
  int kernels_per_step = 72;      // forward and backward, 1:2
  int straggler_rank = 1;         // -1: none (each of these must be < ranks to be planted)
  int slow_input_rank = 2;        // -1: none
  int more_collectives_rank = 3;  // -1: none
  bool gzip = false;              // write rank-R.json.gz
  std::uint64_t seed = 1;
  int threads = 0;  // 0: one per core
};
inline constexpr double kStragglerScale = 1.35;
inline constexpr double kSlowInputScale = 3.0;

struct KinetoJobResult {
  std::int64_t steps = 0;      // per rank
  std::int64_t bytes = 0;      // all files, as written (compressed when gzip)
  std::int64_t raw_bytes = 0;  // all files' JSON
  std::int64_t events = 0;     // all ranks
};

// Writes `dir`/rank-R.json (or .json.gz) for every rank, creating `dir`. Throws
// std::runtime_error naming the file when one cannot be written.
KinetoJobResult write_kineto_job(const std::string& dir, const KinetoJobOptions& options);

}  // namespace ts::synth
