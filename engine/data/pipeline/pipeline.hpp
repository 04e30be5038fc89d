// The input pipeline: source -> load (read, decode) -> cache -> map -> shuffle -> batch ->
// prefetch, with load and map on N worker threads (or on the trainer's thread with 0).
//
// Determinism: an epoch's batches are a function of (source, options.seed, epoch, map) only,
// whatever the number of workers or the prefetch depth: shuffling permutes sample indices
// (epoch_order.hpp), workers write each sample into its fixed row of its batch, and the map
// function must be a pure function of (sample, index, epoch).
//
// Threads: the workers start in the constructor and stop in stop() or the destructor, which
// never hang: a worker blocked on a full buffer wakes on stop. An exception thrown while loading
// or mapping a sample stops the epoch and is rethrown by next() as a DatasetError naming the
// sample index and its file; with skip_bad, DatasetErrors skip the sample instead (counted).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/data/batcher.hpp"
#include "engine/data/pipeline/autotune.hpp"
#include "engine/data/pipeline/pipeline_options.hpp"
#include "engine/data/pipeline/sample_cache.hpp"
#include "engine/data/pipeline/sample_source.hpp"

namespace ts {

struct PipelineStats {
  int parallel = 0, prefetch = 0;         // values in use now (chosen by autotune when "auto")
  std::int64_t samples_loaded = 0;        // loaded from the source (read + decode)
  std::int64_t cache_hits = 0;            // served from the cache
  std::int64_t skipped_bad = 0;           // distinct samples skipped with skip_bad
  double wait_seconds = 0;                // time next() blocked the caller
  std::vector<std::string> autotune_log;  // one line per change autotune made
  std::string cache;                      // "none", "memory", "file PATH (reused)"
};

class Pipeline {
 public:
  // Throws std::invalid_argument for bad options, DatasetError when the cache file cannot be
  // made. The source must not be empty.
  Pipeline(std::shared_ptr<const SampleSource> source, PipelineOptions options, SampleMap map = {});
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  std::int64_t sample_count() const { return count_; }
  SampleShape shape() const { return shape_; }
  std::int64_t batch_size() const { return batch_; }
  // ceil(count / batch_size); with skip_bad, a batch holding bad samples is smaller. In a shard
  // (options.shard_count > 1): the job's steps per epoch, ceil(count / (shard_count·batch_size));
  // next() returns false once this shard's batches are used up, which may be a step early.
  std::int64_t batches_per_epoch() const { return steps_; }
  // In a shard: the samples of step `step` over all shards (the last step's may be fewer).
  std::int64_t step_samples(std::int64_t step) const;
  const PipelineOptions& options() const { return options_; }
  const SampleSource& source() const { return *source_; }

  // Starts epoch `epoch` (abandoning what is left of the previous one).
  void start_epoch(int epoch);
  // The next batch of the epoch: images [size, h, w, c], labels [size]. `batch`'s storage is
  // swapped with the pipeline's, so no sample data is copied. Returns false at the end of the
  // epoch. Rethrows a failed sample's error.
  bool next(HostBatch& batch);
  // Stops and joins the workers; next() returns false afterwards. Idempotent.
  void stop() noexcept;

  PipelineStats stats() const;

 private:
  struct Slot {
    std::int64_t batch = -1;  // batch index of this epoch held here, -1 if none
    std::int64_t size = 0, done = 0;
    HostBatch data;
    std::vector<std::uint8_t> bad;  // [size]: 1 = row skipped
  };
  struct WorkerScratch {
    SourceScratch source;
    std::vector<float> map;
  };

  void worker_loop(int id);
  bool claimable() const;      // requires mu_
  std::int64_t limit() const;  // requires mu_: batches workers may work on: [taken_, limit)
  Slot& slot_of(std::int64_t batch) {
    return slots_[static_cast<std::size_t>(batch) % slots_.size()];
  }
  void init_slot(Slot& s, std::int64_t batch);  // requires mu_
  // Loads + maps the sample at epoch position `pos` into row `row` of `slot`; returns false when
  // it was skipped as bad.
  bool produce(std::int64_t pos, Slot& slot, std::int64_t row, WorkerScratch& scratch, int epoch);
  bool next_inline(HostBatch& batch);
  void hand_over(Slot& s, HostBatch& batch);  // compacts bad rows and swaps storage
  void maybe_autotune(double now_s);

  std::shared_ptr<const SampleSource> source_;
  PipelineOptions options_;
  SampleMap map_;
  SampleShape shape_;
  // count_: samples in the source; epoch_len_: positions of an epoch this pipeline visits (count_,
  // or its shard's); batches_: its batches; steps_: the job's steps per epoch.
  std::int64_t count_ = 0, epoch_len_ = 0, batch_ = 0, batches_ = 0, steps_ = 0, numel_ = 0;
  bool keep_empty_ = false;  // hand out batches emptied by skip_bad (shards)
  std::unique_ptr<SampleCache> cache_;
  Autotuner autotuner_;

  mutable std::mutex mu_;
  std::condition_variable work_cv_;   // workers: something became claimable, or stop
  std::condition_variable ready_cv_;  // trainer: a batch completed, an error, or idle workers
  std::vector<Slot> slots_;
  std::vector<std::int64_t> order_;  // [epoch_len_] sample index at each epoch position
  int epoch_ = 0;
  bool open_ = false;  // workers may claim
  bool stopping_ = false;
  bool wanted_ = false;  // the trainer waits for batch taken_
  std::int64_t next_pos_ = 0, taken_ = 0, ready_ = 0;
  int inflight_ = 0;
  int active_ = 0, prefetch_ = 0;  // workers allowed to claim; batches prepared ahead
  std::exception_ptr error_;
  std::vector<std::thread> workers_;
  WorkerScratch inline_scratch_;
  std::vector<std::uint8_t> skipped_;  // [count] skip_bad: 1 once counted

  // Statistics (atomics: written by workers without the lock).
  std::atomic<std::int64_t> loaded_{0}, cache_hits_{0}, skipped_bad_{0};
  std::atomic<std::int64_t> busy_ns_{0};
  double wait_s_ = 0;
  std::vector<std::string> autotune_log_;
  // Autotune window.
  double window_start_s_ = -1, window_wait_s_ = 0, window_ready_sum_ = 0;
  std::int64_t window_busy_ns_ = 0, window_batches_ = 0, window_empty_ = 0;
};

}  // namespace ts
