#include "engine/backend/cpu/cpu_thread_pool.hpp"

#include <algorithm>
#include <chrono>
#include <trainscope/trace.hpp>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TS_CPU_PAUSE() _mm_pause()
#else
#define TS_CPU_PAUSE() std::this_thread::yield()
#endif

namespace ts::cpu {
namespace {

using Clock = std::chrono::steady_clock;
// Helpers poll for the next job with pause for this long, then with yield (giving the core to
// other runnable threads, such as the input pipeline), then sleep until woken.
constexpr auto kSpinPause = std::chrono::microseconds(30);
constexpr auto kSpinYield = std::chrono::microseconds(300);

std::uint32_t generation_of(std::uint64_t state) {
  return static_cast<std::uint32_t>(state >> 32);
}

}  // namespace

ThreadPool::ThreadPool(int threads) : threads_(threads < 1 ? 1 : threads) {
  helpers_.reserve(static_cast<std::size_t>(threads_ - 1));
  for (int w = 1; w < threads_; ++w) helpers_.emplace_back([this, w] { helper_main(w); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true);
  announce_.fetch_add(1);
  announce_.notify_all();
  for (auto& t : helpers_) t.join();
}

void ThreadPool::run_erased(std::int64_t chunks, Fn fn, void* ctx) {
  if (chunks <= 0) return;
  if (threads_ == 1 || chunks == 1) {
    for (std::int64_t c = 0; c < chunks; ++c) fn(ctx, c, 0);
    return;
  }
  for (std::int64_t base = 0; base < chunks; base += kMaxBatch)
    run_batch(base, std::min<std::int64_t>(kMaxBatch, chunks - base), fn, ctx);
}

void ThreadPool::run_batch(std::int64_t base, std::int64_t count, Fn fn, void* ctx) {
  std::uint64_t state = 0;
  {
    // Handing work to the helper threads is this backend's kernel launch.
    TS_ZONE("hand job to pool", launch);
    // Publish the job: fields first, then the state that makes it claimable (release).
    fn_.store(fn, std::memory_order_relaxed);
    ctx_.store(ctx, std::memory_order_relaxed);
    base_.store(base, std::memory_order_relaxed);
    done_.store(0, std::memory_order_relaxed);
    state = (static_cast<std::uint64_t>(++generation_) << 32) | static_cast<std::uint64_t>(count);
    state_.store(state, std::memory_order_release);
    announce_.fetch_add(1);
    if (sleepers_.load() > 0) announce_.notify_all();
  }

  work(state, 0);
  // Every chunk is claimed; wait only for those a helper is still running.
  for (int spins = 0; done_.load(std::memory_order_acquire) < count; ++spins) {
    if (spins < 4096) {
      TS_CPU_PAUSE();
    } else {
      std::this_thread::yield();
    }
  }
}

void ThreadPool::work(std::uint64_t seen, int worker) {
  // The fields read here belong to the job of `seen` whenever a claim below succeeds: a claim
  // only succeeds while that job has unclaimed chunks, and the next job's fields are written
  // only after every chunk of this one has finished. (The chunk count is part of the state
  // itself, so a claim is never checked against a newer job's count.)
  const Fn fn = fn_.load(std::memory_order_relaxed);
  void* const ctx = ctx_.load(std::memory_order_relaxed);
  const std::int64_t base = base_.load(std::memory_order_relaxed);
  std::uint64_t s = seen;
  while (generation_of(s) == generation_of(seen)) {
    const std::uint64_t next = (s >> 16) & kMaxBatch, count = s & kMaxBatch;
    if (next >= count) return;
    if (state_.compare_exchange_weak(s, s + (std::uint64_t{1} << 16), std::memory_order_acquire,
                                     std::memory_order_acquire)) {
      fn(ctx, base + static_cast<std::int64_t>(next), worker);
      done_.fetch_add(1, std::memory_order_release);
      s += std::uint64_t{1} << 16;
    }
  }
}

void ThreadPool::helper_main(int worker) {
  std::uint32_t seen_generation = 0;
  while (!stop_.load(std::memory_order_relaxed)) {
    const auto start = Clock::now();
    std::uint64_t s = state_.load(std::memory_order_acquire);
    for (int spins = 0; generation_of(s) == seen_generation; ++spins) {
      if (stop_.load(std::memory_order_relaxed)) return;
      if ((spins & 63) == 63) {
        const auto waited = Clock::now() - start;
        if (waited > kSpinYield) break;
        if (waited > kSpinPause) std::this_thread::yield();
      }
      TS_CPU_PAUSE();
      s = state_.load(std::memory_order_acquire);
    }
    if (generation_of(s) == seen_generation) {  // idle: sleep until a job is announced
      const std::uint32_t announced = announce_.load();
      sleepers_.fetch_add(1);
      if (generation_of(state_.load()) == seen_generation && !stop_.load())
        announce_.wait(announced);
      sleepers_.fetch_sub(1);
      continue;
    }
    seen_generation = generation_of(s);
    work(s, worker);
  }
}

}  // namespace ts::cpu
