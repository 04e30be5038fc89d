#include "engine/data/pipeline/pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <trainscope/trace.hpp>

#include "engine/data/pipeline/epoch_order.hpp"

namespace ts {
namespace {

// Samples a worker claims at once: few enough that the workers share a batch, enough to make
// the lock rare.
constexpr std::int64_t kClaimChunk = 4;

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::int64_t ns_now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int hardware_threads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

std::string fingerprint(const SampleSource& s) {
  const SampleShape sh = s.shape();
  return s.description() + "|" + std::to_string(s.count()) + "|" + std::to_string(sh.height) + "x" +
         std::to_string(sh.width) + "x" + std::to_string(sh.channels);
}

}  // namespace

Pipeline::Pipeline(std::shared_ptr<const SampleSource> source, PipelineOptions options,
                   SampleMap map)
    : source_(std::move(source)),
      options_(std::move(options)),
      map_(std::move(map)),
      autotuner_(false, false, 1, 1) {  // configured below, once the sample size is known
  if (!source_) throw std::invalid_argument("the input pipeline needs a source");
  if (options_.batch_size < 1) throw std::invalid_argument("batch size must be at least 1");
  if (options_.parallel < kAutotune || options_.prefetch < kAutotune)
    throw std::invalid_argument("parallel and prefetch must be >= 0 or auto");
  shape_ = source_->shape();
  count_ = source_->count();
  if (count_ < 1) throw std::invalid_argument("the input pipeline's source holds no samples");
  batch_ = options_.batch_size;
  if (options_.shard_count < 1 || options_.shard_index < 0 ||
      options_.shard_index >= options_.shard_count)
    throw std::invalid_argument("shard " + std::to_string(options_.shard_index) + " of " +
                                std::to_string(options_.shard_count) + " does not exist");
  epoch_len_ = shard_length(count_, batch_, options_.shard_index, options_.shard_count);
  batches_ = (epoch_len_ + batch_ - 1) / batch_;
  const std::int64_t global_batch = batch_ * options_.shard_count;
  steps_ = (count_ + global_batch - 1) / global_batch;
  keep_empty_ = options_.shard_count > 1;
  numel_ = shape_.numel();

  // A source already in memory has nothing to decode: caching it would only copy it.
  if (options_.cache == CacheMode::memory && !source_->in_memory())
    cache_ = SampleCache::in_memory(count_, numel_);
  else if (options_.cache == CacheMode::file)
    cache_ = SampleCache::in_file(options_.cache_path, count_, numel_, fingerprint(*source_));
  skipped_.assign(static_cast<std::size_t>(count_), 0);

  // Prefetch depth bounded by the memory budget (one batch of f32 samples each).
  const std::int64_t batch_bytes = std::max<std::int64_t>(1, batch_ * numel_ * 4);
  const int budget_batches = static_cast<int>(
      std::clamp<std::int64_t>(options_.memory_budget / batch_bytes, 1, options_.max_prefetch));
  const int max_workers = options_.max_parallel > 0 ? options_.max_parallel : hardware_threads();
  int threads = 0;
  if (options_.parallel == kAutotune) {
    threads = max_workers;
    active_ = 1;
  } else {
    threads = active_ = options_.parallel;
  }
  // Prefetching without parallelism still needs one background thread to fill the buffer.
  if (threads == 0 && options_.prefetch != 0) threads = active_ = 1;
  if (options_.prefetch == kAutotune)
    prefetch_ = std::min(2, budget_batches);
  else
    prefetch_ = std::min(options_.prefetch, budget_batches);
  autotuner_ = Autotuner(options_.parallel == kAutotune, options_.prefetch == kAutotune,
                         max_workers, options_.prefetch == kAutotune ? budget_batches : prefetch_);
  // Slots for every batch that may be in the works: the deepest prefetch, or the one asked for.
  const int max_depth = options_.prefetch == kAutotune ? budget_batches : prefetch_;
  slots_.resize(static_cast<std::size_t>(std::max(1, max_depth)) + 1);
  for (int i = 0; i < threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
  start_epoch(0);
}

Pipeline::~Pipeline() {
  stop();
}

void Pipeline::stop() noexcept {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    open_ = false;
  }
  work_cv_.notify_all();
  ready_cv_.notify_all();
  for (auto& t : workers_)
    if (t.joinable()) t.join();
}

std::int64_t Pipeline::limit() const {
  const std::int64_t ahead = std::max<std::int64_t>(prefetch_, wanted_ ? 1 : 0);
  return std::min(batches_, taken_ + ahead);
}

bool Pipeline::claimable() const {
  return open_ && !error_ && next_pos_ < epoch_len_ && next_pos_ / batch_ < limit();
}

void Pipeline::init_slot(Slot& s, std::int64_t batch) {
  s.batch = batch;
  s.size = std::min(batch_, epoch_len_ - batch * batch_);
  s.done = 0;
  s.data.size = s.size;
  s.data.images.resize(static_cast<std::size_t>(s.size * numel_));
  s.data.labels.resize(static_cast<std::size_t>(s.size));
  s.bad.assign(static_cast<std::size_t>(s.size), 0);
}

void Pipeline::start_epoch(int epoch) {
  std::vector<std::int64_t> order =
      shard_order(epoch_order(count_, options_.shuffle_buffer, options_.seed, epoch), batch_,
                  options_.shard_index, options_.shard_count);
  std::unique_lock<std::mutex> lock(mu_);
  if (stopping_) return;
  // Starting the epoch that is already prefetching (the constructor starts epoch 0) keeps the
  // work done so far.
  if (open_ && epoch == epoch_ && taken_ == 0 && !error_) return;
  open_ = false;
  ready_cv_.wait(lock, [&] { return inflight_ == 0; });  // no worker still writes a slot
  order_ = std::move(order);
  for (Slot& s : slots_) s.batch = -1;
  epoch_ = epoch;
  next_pos_ = taken_ = ready_ = 0;
  wanted_ = false;
  error_ = nullptr;
  open_ = true;
  lock.unlock();
  work_cv_.notify_all();
}

bool Pipeline::produce(std::int64_t pos, Slot& slot, std::int64_t row, WorkerScratch& scratch,
                       int epoch) {
  const std::int64_t index = order_[static_cast<std::size_t>(pos)];
  float* out = slot.data.images.data() + row * numel_;
  slot.data.labels[static_cast<std::size_t>(row)] = source_->label(index);
  const auto where = [&] {
    return "input pipeline: sample " + std::to_string(index) + " (" + source_->describe(index) +
           ")";
  };
  const SampleCache::State cached = cache_ ? cache_->state(index) : SampleCache::State::empty;
  if (cached == SampleCache::State::bad) return false;
  if (cached == SampleCache::State::filled) {
    cache_->read(index, out);  // a cache file error names the file; it is never skipped
    cache_hits_.fetch_add(1, std::memory_order_relaxed);
  } else {
    try {
      source_->load(index, scratch.source, out);
    } catch (const DatasetError& e) {
      if (!options_.skip_bad) throw DatasetError(where() + ": " + e.what());
      if (cache_) cache_->mark_bad(index);
      return false;
    }
    loaded_.fetch_add(1, std::memory_order_relaxed);
    if (cache_) cache_->write(index, out);
  }
  if (map_) {
    try {
      map_(out, index, epoch, scratch.map);
    } catch (const std::exception& e) {
      throw DatasetError(where() + " failed in a transform: " + e.what());
    }
  }
  return true;
}

void Pipeline::worker_loop(int id) {
  TS_THREAD_NAME("input worker " + std::to_string(id + 1));
  WorkerScratch scratch;
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [&] { return stopping_ || (id < active_ && claimable()); });
    if (stopping_) return;
    const std::int64_t pos = next_pos_;
    const std::int64_t batch = pos / batch_;
    Slot& slot = slot_of(batch);
    if (slot.batch != batch) init_slot(slot, batch);
    const std::int64_t end = std::min({pos + kClaimChunk, (batch + 1) * batch_, epoch_len_});
    next_pos_ = end;
    ++inflight_;
    const int epoch = epoch_;
    lock.unlock();

    const std::int64_t t0 = ns_now();
    // One zone per claimed chunk (reading it from the source or the cache, and mapping it);
    // per-sample zones would cost more than copying a cached sample.
    TS_ZONE("load samples", input_read);
    std::exception_ptr failure;
    std::vector<std::int64_t> bad_rows;
    for (std::int64_t p = pos; p < end && !failure; ++p) {
      try {
        if (!produce(p, slot, p - batch * batch_, scratch, epoch))
          bad_rows.push_back(p - batch * batch_);
      } catch (...) {
        failure = std::current_exception();
      }
    }
    busy_ns_.fetch_add(ns_now() - t0, std::memory_order_relaxed);

    lock.lock();
    --inflight_;
    for (std::int64_t r : bad_rows) slot.bad[static_cast<std::size_t>(r)] = 1;
    if (failure && !error_) error_ = failure;
    slot.done += end - pos;
    if (slot.done == slot.size && !failure) {
      ++ready_;
      TS_COUNTER("prefetch buffer fill", ready_);
    }
    ready_cv_.notify_all();
  }
}

void Pipeline::hand_over(Slot& s, HostBatch& batch) {
  std::int64_t kept = 0;
  for (std::int64_t r = 0; r < s.size; ++r) {
    if (s.bad[static_cast<std::size_t>(r)]) {
      const std::int64_t index = order_[static_cast<std::size_t>(s.batch * batch_ + r)];
      if (!skipped_[static_cast<std::size_t>(index)]) {
        skipped_[static_cast<std::size_t>(index)] = 1;
        skipped_bad_.fetch_add(1, std::memory_order_relaxed);
      }
      continue;
    }
    if (kept != r) {
      std::memcpy(s.data.images.data() + kept * numel_, s.data.images.data() + r * numel_,
                  static_cast<std::size_t>(numel_) * sizeof(float));
      s.data.labels[static_cast<std::size_t>(kept)] = s.data.labels[static_cast<std::size_t>(r)];
    }
    ++kept;
  }
  s.data.size = kept;
  s.data.images.resize(static_cast<std::size_t>(kept * numel_));
  s.data.labels.resize(static_cast<std::size_t>(kept));
  std::swap(s.data, batch);
  s.batch = -1;
}

bool Pipeline::next_inline(HostBatch& batch) {
  for (;;) {
    if (stopping_ || taken_ >= batches_) return false;
    TS_ZONE("batch", input_batch);
    Slot& s = slots_[0];
    std::swap(s.data, batch);  // reuse the caller's storage
    init_slot(s, taken_);
    for (std::int64_t r = 0; r < s.size; ++r)
      if (!produce(taken_ * batch_ + r, s, r, inline_scratch_, epoch_))
        s.bad[static_cast<std::size_t>(r)] = 1;
    ++taken_;
    hand_over(s, batch);
    if (batch.size > 0 || keep_empty_) return true;  // a batch of only bad samples is skipped
  }
}

// The trace's input wait is the time `wait_seconds` counts and nothing else: the zone "wait for
// batch" covers the trainer making a batch itself (no workers) or blocking until a worker has
// made it. The rest of taking a batch (the lock, the hand-over, waking the workers) lies in the
// caller's input_handoff zone; a contended lock gets a zone of its own.
bool Pipeline::next(HostBatch& batch) {
  if (workers_.empty()) {
    TS_ZONE("wait for batch", input_wait);
    const std::int64_t t0 = ns_now();
    const bool got = next_inline(batch);
    wait_s_ += static_cast<double>(ns_now() - t0) * 1e-9;
    if (!got && cache_) cache_->seal();
    return got;
  }
  for (;;) {
    std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
    if (!lock.owns_lock()) {
      TS_ZONE("wait for the input pipeline's lock", input_handoff);
      lock.lock();
    }
    if (stopping_ || taken_ >= batches_) {
      lock.unlock();
      if (cache_ && !stopping_) cache_->seal();
      return false;
    }
    const std::int64_t t0 = ns_now();
    const double ready_now = static_cast<double>(ready_);
    Slot& s = slot_of(taken_);
    if (!(s.batch == taken_ && s.done == s.size) && !error_) {
      TS_ZONE("wait for batch", input_wait);
      ++window_empty_;
      wanted_ = true;  // lets the workers start this batch even without prefetch
      work_cv_.notify_all();
      ready_cv_.wait(
          lock, [&] { return stopping_ || error_ || (s.batch == taken_ && s.done == s.size); });
      wanted_ = false;
    }
    const double waited = static_cast<double>(ns_now() - t0) * 1e-9;
    wait_s_ += waited;
    window_wait_s_ += waited;
    window_ready_sum_ += ready_now;
    ++window_batches_;
    if (error_) {
      std::exception_ptr e = error_;
      open_ = false;
      lock.unlock();
      std::rethrow_exception(e);
    }
    if (stopping_) return false;
    --ready_;
    ++taken_;
    {
      // A worker made this batch: handing it over is not input work on the trainer.
      TS_ZONE("hand over batch", input_handoff);
      hand_over(s, batch);
    }
    TS_COUNTER("prefetch buffer fill", ready_);
    maybe_autotune(seconds_now());
    lock.unlock();
    {
      // A futex wake when a worker sleeps: on a busy host the woken worker can take the
      // trainer's core here.
      TS_ZONE("wake input workers", input_handoff);
      work_cv_.notify_all();  // the buffer has room again
    }
    if (batch.size > 0 || keep_empty_) return true;
  }
}

void Pipeline::maybe_autotune(double now_s) {
  if (options_.parallel != kAutotune && options_.prefetch != kAutotune) return;
  if (window_start_s_ < 0) {
    window_start_s_ = now_s;
    window_busy_ns_ = busy_ns_.load();
    return;
  }
  const double wall = now_s - window_start_s_;
  if (wall < 0.1 || window_batches_ < 8) return;
  const std::int64_t busy = busy_ns_.load();
  AutotuneWindow w;
  w.wall_s = wall;
  w.wait_s = window_wait_s_;
  w.worker_busy_s = static_cast<double>(busy - window_busy_ns_) * 1e-9;
  w.workers = active_;
  w.mean_ready = window_ready_sum_ / static_cast<double>(window_batches_);
  w.empty_share = static_cast<double>(window_empty_) / static_cast<double>(window_batches_);
  const AutotuneDecision d = autotuner_.observe(w, active_, prefetch_);
  if (!d.reason.empty()) {
    active_ = d.parallel;
    prefetch_ = std::min<int>(d.prefetch, static_cast<int>(slots_.size()) - 1);
    autotune_log_.push_back(d.reason);
  }
  window_start_s_ = now_s;
  window_busy_ns_ = busy;
  window_wait_s_ = window_ready_sum_ = 0;
  window_batches_ = window_empty_ = 0;
}

std::int64_t Pipeline::step_samples(std::int64_t step) const {
  const std::int64_t global_batch = batch_ * options_.shard_count;
  return std::clamp<std::int64_t>(count_ - step * global_batch, 0, global_batch);
}

PipelineStats Pipeline::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  PipelineStats s;
  s.parallel = active_;
  s.prefetch = prefetch_;
  s.samples_loaded = loaded_.load();
  s.cache_hits = cache_hits_.load();
  s.skipped_bad = skipped_bad_.load();
  s.wait_seconds = wait_s_;
  s.autotune_log = autotune_log_;
  s.cache = cache_ ? cache_->describe() : "none";
  return s;
}

}  // namespace ts
