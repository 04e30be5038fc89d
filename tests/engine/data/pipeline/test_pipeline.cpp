#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "engine/core/rng.hpp"
#include "engine/data/pipeline/pipeline.hpp"
#include "fake_source.hpp"

namespace ts {
namespace {

using test::FakeSource;

PipelineOptions options(int parallel, int prefetch, std::int64_t batch = 8) {
  PipelineOptions o;
  o.batch_size = batch;
  o.parallel = parallel;
  o.prefetch = prefetch;
  o.seed = 5;
  o.max_parallel = 4;
  return o;
}

// A seeded per-sample transform: adds hash noise that depends on (index, epoch, pixel).
void noisy_map(float* sample, std::int64_t index, int epoch, std::vector<float>&) {
  for (int p = 0; p < 16; ++p)
    sample[p] += hash_uniform(static_cast<std::uint32_t>(epoch * 7919 + index),
                              static_cast<std::uint32_t>(p));
}

std::vector<HostBatch> run_epoch(Pipeline& pipeline, int epoch) {
  pipeline.start_epoch(epoch);
  std::vector<HostBatch> batches;
  HostBatch b;
  while (pipeline.next(b)) batches.push_back(b);
  return batches;
}

void expect_same_batches(const std::vector<HostBatch>& a, const std::vector<HostBatch>& b,
                         const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].size, b[i].size) << what << " batch " << i;
    EXPECT_EQ(a[i].labels, b[i].labels) << what << " batch " << i;
    EXPECT_EQ(a[i].images, b[i].images) << what << " batch " << i;
  }
}

TEST(Pipeline, SameSeedGivesTheSameBatchesWhateverTheWorkersAndPrefetch) {
  auto source = std::make_shared<FakeSource>(203);
  Pipeline reference(source, options(0, 0), noisy_map);
  const auto ref0 = run_epoch(reference, 0), ref1 = run_epoch(reference, 1);
  ASSERT_EQ(ref0.size(), 26u);  // ceil(203 / 8)
  EXPECT_EQ(ref0.back().size, 3);
  for (int parallel : {0, 1, 2, 4, kAutotune})
    for (int prefetch : {0, 1, 3, kAutotune}) {
      Pipeline p(source, options(parallel, prefetch), noisy_map);
      const std::string what =
          "parallel " + std::to_string(parallel) + " prefetch " + std::to_string(prefetch);
      expect_same_batches(run_epoch(p, 0), ref0, what);
      expect_same_batches(run_epoch(p, 1), ref1, what);
    }
}

TEST(Pipeline, EveryEpochVisitsEverySampleOnceWithItsLabelAndPixels) {
  auto source = std::make_shared<FakeSource>(100);
  Pipeline p(source, options(2, 2));
  for (int epoch = 0; epoch < 3; ++epoch) {
    std::vector<int> seen(100, 0);
    for (const HostBatch& b : run_epoch(p, epoch)) {
      for (std::int64_t r = 0; r < b.size; ++r) {
        // Recover the index from the first pixel and check the whole sample and label.
        std::int64_t index = -1;
        for (std::int64_t i = 0; i < 100; ++i)
          if (FakeSource::value(i, 0) == b.images[static_cast<std::size_t>(r * 16)] &&
              FakeSource::value(i, 1) == b.images[static_cast<std::size_t>(r * 16 + 1)])
            index = i;
        ASSERT_GE(index, 0);
        ++seen[static_cast<std::size_t>(index)];
        EXPECT_EQ(b.labels[static_cast<std::size_t>(r)], index % 10);
        for (int px = 0; px < 16; ++px)
          EXPECT_EQ(b.images[static_cast<std::size_t>(r * 16 + px)], FakeSource::value(index, px));
      }
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 100) << "epoch " << epoch;
  }
}

TEST(Pipeline, ShuffleOffKeepsSourceOrder) {
  auto source = std::make_shared<FakeSource>(20);
  PipelineOptions o = options(2, 1, 6);
  o.shuffle_buffer = 0;
  Pipeline p(source, o);
  std::vector<std::int32_t> labels;
  for (const HostBatch& b : run_epoch(p, 0))
    labels.insert(labels.end(), b.labels.begin(), b.labels.end());
  ASSERT_EQ(labels.size(), 20u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(labels[static_cast<std::size_t>(i)], i % 10);
}

TEST(Pipeline, ACorruptSampleStopsTheEpochWithAnErrorNamingIndexAndFile) {
  for (int parallel : {0, 2}) {
    auto source = std::make_shared<FakeSource>(64);
    source->bad_ = {37};
    Pipeline p(source, options(parallel, 2));
    HostBatch b;
    try {
      while (p.next(b)) {
      }
      FAIL() << "no error with parallel " << parallel;
    } catch (const DatasetError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("sample 37"), std::string::npos) << msg;
      EXPECT_NE(msg.find("fake/37.png"), std::string::npos) << msg;
    }
    // The pipeline can start another epoch afterwards (and fails the same way).
    p.start_epoch(1);
    EXPECT_THROW(
        {
          while (p.next(b)) {
          }
        },
        DatasetError);
  }
}

TEST(Pipeline, SkipBadDropsAndCountsCorruptSamples) {
  for (int parallel : {0, 3}) {
    auto source = std::make_shared<FakeSource>(64);
    source->bad_ = {0, 37, 63};
    PipelineOptions o = options(parallel, 2);
    o.skip_bad = true;
    o.cache = CacheMode::memory;
    Pipeline p(source, o);
    for (int epoch = 0; epoch < 2; ++epoch) {
      std::int64_t samples = 0;
      for (const HostBatch& b : run_epoch(p, epoch)) samples += b.size;
      EXPECT_EQ(samples, 61) << "epoch " << epoch;
    }
    EXPECT_EQ(p.stats().skipped_bad, 3);
    // Bad samples are remembered by the cache, not read again.
    EXPECT_EQ(source->loads_.load(), 64);
  }
}

TEST(Pipeline, AnExceptionInATransformNamesTheSample) {
  auto source = std::make_shared<FakeSource>(40);
  Pipeline p(source, options(2, 2), [](float*, std::int64_t index, int, std::vector<float>&) {
    if (index == 11) throw std::runtime_error("crop larger than the image");
  });
  HostBatch b;
  try {
    while (p.next(b)) {
    }
    FAIL();
  } catch (const DatasetError& e) {
    EXPECT_NE(std::string(e.what()).find("sample 11"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("crop larger than the image"), std::string::npos);
  }
}

TEST(Pipeline, StoppingEarlyNeverHangs) {
  // Workers blocked on a full prefetch buffer, workers in the middle of slow samples, and a
  // trainer blocked in next() must all come back when the pipeline stops.
  auto source = std::make_shared<FakeSource>(10000);
  source->cost_ = std::chrono::microseconds(200);
  {
    Pipeline p(source, options(3, 4));
    HostBatch b;
    ASSERT_TRUE(p.next(b));
  }  // destroyed with the buffer filling
  {
    Pipeline p(source, options(2, 0));
    std::thread stopper([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      p.stop();
    });
    HostBatch b;
    while (p.next(b)) {
    }
    stopper.join();
    EXPECT_FALSE(p.next(b));
  }
  {
    Pipeline p(source, options(2, 2));
    HostBatch b;
    ASSERT_TRUE(p.next(b));
    p.start_epoch(1);  // abandons epoch 0 mid-way
    ASSERT_TRUE(p.next(b));
  }
}

TEST(Pipeline, PrefetchFillsTheBufferAheadOfTheTrainer) {
  auto source = std::make_shared<FakeSource>(400);
  Pipeline p(source, options(1, 5));
  HostBatch b;
  ASSERT_TRUE(p.next(b));
  // Without asking for more, the worker prepares up to 5 batches (40 samples) beyond the one
  // taken, and no more.
  for (int i = 0; i < 2000 && source->loads_.load() < 48; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(source->loads_.load(), 48);
}

TEST(Pipeline, WithoutPrefetchNothingIsPreparedAhead) {
  auto source = std::make_shared<FakeSource>(400);
  Pipeline p(source, options(2, 0));
  HostBatch b;
  ASSERT_TRUE(p.next(b));
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_EQ(source->loads_.load(), 8);
}

TEST(Pipeline, AutotuneAddsWorkersWhenTheTrainerStarves) {
  auto source = std::make_shared<FakeSource>(4000);
  source->cost_ = std::chrono::microseconds(300);
  PipelineOptions o = options(kAutotune, kAutotune);
  o.max_parallel = 3;
  Pipeline p(source, o);
  EXPECT_EQ(p.stats().parallel, 1);
  HostBatch b;
  for (int i = 0; i < 400 && p.next(b); ++i) {
  }
  const PipelineStats s = p.stats();
  EXPECT_EQ(s.parallel, 3) << "log lines: " << s.autotune_log.size();
  ASSERT_FALSE(s.autotune_log.empty());
  EXPECT_NE(s.autotune_log.front().find("parallel 2"), std::string::npos);
}

TEST(Pipeline, RejectsBadOptions) {
  auto source = std::make_shared<FakeSource>(10);
  EXPECT_THROW(Pipeline(source, options(0, 0, 0)), std::invalid_argument);
  EXPECT_THROW(Pipeline(nullptr, options(0, 0)), std::invalid_argument);
  EXPECT_THROW(Pipeline(std::make_shared<FakeSource>(0), options(0, 0)), std::invalid_argument);
}

}  // namespace
}  // namespace ts
