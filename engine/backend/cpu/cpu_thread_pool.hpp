// A small persistent thread pool for the CPU backend, built so that a busy machine cannot stall
// an op: the calling thread always works too, helpers claim chunks only if they are running,
// and the caller never waits for a helper that has not started a chunk. (A fork-join team with
// a barrier, as in OpenMP, waits for every member; with another process on the second core,
// that turned 0.2 ms Adam updates into 8 ms.) Helpers spin briefly between jobs, then sleep.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace ts::cpu {

class ThreadPool {
 public:
  // threads >= 1: the calling thread plus threads - 1 helpers, started here.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return threads_; }

  // Calls f(chunk, worker) once for every chunk in [0, chunks), on the calling thread (worker
  // 0) and on helpers (workers 1..threads-1) that are free; returns when all calls are done.
  // f must not throw. Not reentrant: one run at a time, from one thread.
  template <class F>
  void run(std::int64_t chunks, F&& f) {
    using Fn = std::remove_reference_t<F>;
    run_erased(
        chunks,
        [](void* ctx, std::int64_t chunk, int worker) noexcept {
          (*static_cast<Fn*>(ctx))(chunk, worker);
        },
        const_cast<void*>(static_cast<const void*>(&f)));
  }

 private:
  using Fn = void (*)(void*, std::int64_t, int);
  static constexpr std::uint64_t kMaxBatch = 0xffff;  // chunks per published job
  void run_erased(std::int64_t chunks, Fn fn, void* ctx);
  // Publishes chunks [base, base + count) as one job, works on it, waits for its end.
  void run_batch(std::int64_t base, std::int64_t count, Fn fn, void* ctx);
  // Claims and runs chunks of the job published with state `seen` until none are left.
  void work(std::uint64_t seen, int worker);
  void helper_main(int worker);

  int threads_;
  std::uint32_t generation_ = 0;  // of the latest job; written by the calling thread only
  // (generation << 32) | (next unclaimed chunk << 16) | chunk count. Workers claim chunks with
  // compare-exchange on the whole word, so a helper that wakes up late can neither take a
  // chunk of a newer job nor check a claim against a newer job's count.
  std::atomic<std::uint64_t> state_{0};
  std::atomic<Fn> fn_{nullptr};
  std::atomic<void*> ctx_{nullptr};
  std::atomic<std::int64_t> base_{0};       // first chunk index of the published batch
  std::atomic<std::int64_t> done_{0};       // chunks of the current job completed
  std::atomic<std::uint32_t> announce_{0};  // futex word helpers sleep on
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
  std::vector<std::thread> helpers_;
};

}  // namespace ts::cpu
