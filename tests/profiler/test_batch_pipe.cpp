// BatchPipe and BatchProducer (batch_pipe.hpp): every item reaches the consumer once, in order,
// whatever the batch size; the producer's failure reaches the consumer after the batches before
// it; a consumer that stops early stops the producer; and the batches are reused, not made anew.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "profiler/store/batch_pipe.hpp"

namespace ts::store {
namespace {

TEST(BatchPipe, EveryItemArrivesOnceInOrder) {
  for (const std::size_t batch : {1u, 3u, 64u, 1000u}) {
    BatchProducer<int> producer(
        [](BatchPipe<int>& pipe) {
          for (int i = 0; i < 10007; ++i) pipe.push(i);
        },
        batch);
    std::vector<int> got, b;
    while (producer.next(b)) got.insert(got.end(), b.begin(), b.end());
    ASSERT_EQ(got.size(), 10007u) << batch;
    for (int i = 0; i < 10007; ++i) ASSERT_EQ(got[static_cast<std::size_t>(i)], i) << batch;
  }
}

TEST(BatchPipe, TheProducersFailureComesAfterTheBatchesBeforeIt) {
  BatchProducer<int> producer(
      [](BatchPipe<int>& pipe) {
        for (int i = 0; i < 100; ++i) pipe.push(i);
        throw std::runtime_error("disk full");
      },
      10);
  std::vector<int> b;
  int items = 0;
  try {
    while (producer.next(b)) items += static_cast<int>(b.size());
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "disk full");
  }
  EXPECT_EQ(items, 100);
}

TEST(BatchPipe, AConsumerStoppingEarlyStopsTheProducer) {
  int pushed = 0;
  {
    BatchProducer<int> producer(
        [&](BatchPipe<int>& pipe) {
          for (int i = 0; i < 1000000; ++i, ++pushed) pipe.push(i);
        },
        100);
    std::vector<int> b;
    ASSERT_TRUE(producer.next(b));
  }  // destroyed: cancels and joins
  EXPECT_LT(pushed, 1000000);
}

TEST(BatchPipe, BatchesAreReusedNotMadeAnew) {
  BatchProducer<int> producer(
      [](BatchPipe<int>& pipe) {
        for (int i = 0; i < 100000; ++i) pipe.push(i);
      },
      100);
  std::vector<int> b;
  int batches = 0;
  while (producer.next(b)) ++batches;
  EXPECT_EQ(batches, 1000);
  // The batch being filled, two waiting, the consumer's and two handed back, at most.
  EXPECT_LE(producer.batches_made(), 6u);
}

}  // namespace
}  // namespace ts::store
