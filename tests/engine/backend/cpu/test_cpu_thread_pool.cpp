// The CPU backend's thread pool: every chunk runs exactly once, on valid workers, across many
// back-to-back jobs, after helpers have gone to sleep, and with a single thread.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "engine/backend/cpu/cpu_parallel.hpp"
#include "engine/backend/cpu/cpu_thread_pool.hpp"

namespace ts::cpu {
namespace {

void expect_each_chunk_once(ThreadPool& pool, std::int64_t chunks) {
  std::vector<std::atomic<int>> hits(static_cast<std::size_t>(chunks));
  std::atomic<bool> bad_worker{false}, bad_chunk{false};
  pool.run(chunks, [&](std::int64_t c, int worker) {
    if (worker < 0 || worker >= pool.threads()) bad_worker = true;
    if (c < 0 || c >= chunks) {  // e.g. a late helper claiming against a newer job's count
      bad_chunk = true;
      return;
    }
    hits[static_cast<std::size_t>(c)].fetch_add(1);
  });
  ASSERT_FALSE(bad_chunk.load());
  for (std::int64_t c = 0; c < chunks; ++c) ASSERT_EQ(hits[c].load(), 1) << "chunk " << c;
  EXPECT_FALSE(bad_worker.load());
}

TEST(ThreadPool, RunsEveryChunkOnceAcrossManyJobs) {
  ThreadPool pool(4);  // more threads than this machine may have cores: still correct
  EXPECT_EQ(pool.threads(), 4);
  // Many short jobs back to back: the window in which a helper that saw the end of one job
  // could act on the next one recurs constantly.
  for (int job = 0; job < 20000; ++job) expect_each_chunk_once(pool, 1 + job % 37);
  expect_each_chunk_once(pool, 0);
  expect_each_chunk_once(pool, 70000);  // more chunks than one published batch holds
}

TEST(ThreadPool, WakesSleepingHelpers) {
  ThreadPool pool(2);
  for (int round = 0; round < 3; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // helpers go to sleep
    expect_each_chunk_once(pool, 9);
  }
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one core: helpers may never run";
  // A woken helper takes part in long jobs (retried: on a busy machine it may be late).
  std::atomic<int> helper_chunks{0};
  for (int attempt = 0; attempt < 50 && helper_chunks.load() == 0; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    pool.run(32, [&](std::int64_t, int worker) {
      if (worker != 0) helper_chunks.fetch_add(1);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    });
  }
  EXPECT_GT(helper_chunks.load(), 0);
}

TEST(ThreadPool, SingleThreadRunsInline) {
  ThreadPool pool(1);
  const auto caller = std::this_thread::get_id();
  pool.run(5, [&](std::int64_t, int worker) {
    EXPECT_EQ(worker, 0);
    EXPECT_EQ(std::this_thread::get_id(), caller);
  });
}

TEST(ParallelFor, CoversTheRangeInAlignedDisjointPieces) {
  ThreadPool pool(3);
  for (std::int64_t n : {0, 1, 15, 17, 1000, 100003}) {
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
    std::atomic<bool> misaligned{false};
    parallel_for(pool, n, 100, [&](std::int64_t begin, std::int64_t end) {
      if (begin % 16 != 0) misaligned = true;
      for (std::int64_t i = begin; i < end; ++i) hits[static_cast<std::size_t>(i)].fetch_add(1);
    });
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "n " << n << " i " << i;
    EXPECT_FALSE(misaligned.load());
  }
}

}  // namespace
}  // namespace ts::cpu
