// The levers of the input pipeline (tf.data's): parallel map, cache, shuffle, batch, prefetch
// and prefetch-to-device, and the two presets `naive` and `tuned`.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ts {

// `parallel` / `prefetch` value meaning "tune while running" (tf.data's AUTOTUNE).
inline constexpr int kAutotune = -1;
// `shuffle_buffer` value meaning "a buffer as large as the dataset": a uniform permutation.
inline constexpr std::int64_t kFullShuffle = -1;

enum class CacheMode { none, memory, file };

// The per-sample map function applied after the cache, every epoch: sample [h, w, c] f32 in
// place. Must be a pure function of (sample, index, epoch) so that results do not depend on which
// worker runs it; `scratch` is per-thread reusable memory. Runs on worker threads concurrently.
using SampleMap =
    std::function<void(float* sample, std::int64_t index, int epoch, std::vector<float>& scratch)>;

struct PipelineOptions {
  std::int64_t batch_size = 32;
  // Worker threads running load + map; 0 runs them on the thread that asks for the batch (what a
  // first training script does). kAutotune: start at 1, add workers while the trainer waits.
  int parallel = 0;
  // Batches prepared ahead of the trainer; 0 prepares a batch only when it is asked for.
  // kAutotune: grown while the trainer waits although workers are idle.
  int prefetch = 0;
  CacheMode cache = CacheMode::none;
  std::string cache_path;  // CacheMode::file: where the decoded samples are kept across runs
  // Shuffle buffer in samples: 0 = no shuffling, kFullShuffle = uniform permutation per epoch.
  std::int64_t shuffle_buffer = kFullShuffle;
  // Copy the next batch to the device on a second queue while the current one computes
  // (read by the training loop, not by the host pipeline).
  bool prefetch_to_device = false;
  // Skip samples that fail to load (counted) instead of stopping with an error.
  bool skip_bad = false;
  std::uint64_t seed = 1;  // shuffling; the map function gets its own seed from its creator
  // Data parallelism: this pipeline feeds rank shard_index of shard_count. Every rank shuffles
  // the same epoch order; step k of an epoch covers positions [k·G, (k+1)·G) of it, G =
  // shard_count·batch_size, and rank r takes the batch_size positions from k·G + r·batch_size:
  // the ranks' batches of a step are together the batch a single process at batch G would take.
  // The last step's batches may be smaller, or empty; with shard_count > 1 the pipeline hands
  // out empty batches (after skip_bad too) instead of skipping them, so every rank takes every
  // step.
  int shard_index = 0;
  int shard_count = 1;
  // Autotune bounds: at most max_parallel workers (0 = the machine's hardware threads) and at
  // most memory_budget bytes of prepared batches.
  int max_parallel = 0;
  std::int64_t memory_budget = 256ll << 20;
  int max_prefetch = 64;
};

// The `naive` preset: no parallelism, no prefetch, no cache (what a first training script does).
PipelineOptions naive_pipeline(std::int64_t batch_size);
// The `tuned` preset: autotuned parallelism and prefetch, cache after decode, prefetch to device.
PipelineOptions tuned_pipeline(std::int64_t batch_size);

// One line for the user: "parallel 2 (auto), prefetch 4 (auto), cache memory, shuffle full, ..."
std::string describe(const PipelineOptions& options);

}  // namespace ts
