// The per-thread SPSC ring: order, bounded memory, drop counting, two-slot events, concurrency.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "profiler/capture/core/ring.hpp"

namespace {

using ts::trace::core::ArgsRecord;
using ts::trace::core::Event;
using ts::trace::core::EventKind;
using ts::trace::core::kHasArgs;
using ts::trace::core::SpscRing;

Event ev(std::uint64_t seq) {
  return Event{seq, seq + 1, 0, 0, 0, EventKind::zone, 0};
}

std::vector<std::uint64_t> drain_seqs(SpscRing& r) {
  std::vector<std::uint64_t> out;
  r.drain([&](const Event& e, const ArgsRecord*) { out.push_back(e.t0); });
  return out;
}

TEST(Ring, CapacityIsAPowerOfTwo) {
  EXPECT_EQ(SpscRing(1).capacity(), 8u);
  EXPECT_EQ(SpscRing(100).capacity(), 128u);
  EXPECT_EQ(SpscRing(1024).capacity(), 1024u);
}

TEST(Ring, DrainsInPushOrder) {
  SpscRing r(8);
  for (std::uint64_t i = 0; i < 5; ++i) ASSERT_TRUE(r.push(ev(i)));
  EXPECT_EQ(r.size(), 5u);
  EXPECT_EQ(drain_seqs(r), (std::vector<std::uint64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(r.size(), 0u);
  EXPECT_TRUE(drain_seqs(r).empty());
}

TEST(Ring, FullRingDropsAndCountsWithoutGrowing) {
  SpscRing r(8);
  int accepted = 0;
  for (std::uint64_t i = 0; i < 20; ++i) accepted += r.push(ev(i)) ? 1 : 0;
  EXPECT_EQ(accepted, 8);
  EXPECT_EQ(r.dropped(), 12u);
  EXPECT_EQ(r.capacity(), 8u);
  // The oldest events are kept; space frees up once drained.
  EXPECT_EQ(drain_seqs(r), (std::vector<std::uint64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_TRUE(r.push(ev(99)));
  EXPECT_EQ(r.dropped(), 12u);
}

TEST(Ring, EventsWithArgumentsTakeTwoSlotsAndAreNeverSplit) {
  SpscRing r(8);
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(r.push(ev(i)));
  Event e = ev(100);
  e.flags = kHasArgs;
  EXPECT_FALSE(r.push(e, ArgsRecord{4096, 0, 7, 0}));  // one slot left: the pair is dropped
  EXPECT_EQ(r.dropped(), 1u);
  drain_seqs(r);
  ASSERT_TRUE(r.push(e, ArgsRecord{4096, 64, 7, 0}));
  ASSERT_TRUE(r.push(ev(101)));
  std::vector<std::pair<std::uint64_t, std::uint64_t>> got;
  r.drain([&](const Event& x, const ArgsRecord* a) {
    got.emplace_back(x.t0, a != nullptr ? a->bytes + a->work_size + a->correlation : 0);
  });
  EXPECT_EQ(got, (std::vector<std::pair<std::uint64_t, std::uint64_t>>{{100, 4167}, {101, 0}}));
}

TEST(Ring, WrapsAroundManyTimes) {
  SpscRing r(32);  // a round pushes at most 13 events in 18 slots
  std::uint64_t next = 0, expect = 0;
  for (int round = 0; round < 1000; ++round) {
    for (int i = 0; i < 1 + round % 13; ++i) {
      Event e = ev(next);
      if (next % 3 == 0) {
        e.flags = kHasArgs;
        ASSERT_TRUE(r.push(e, ArgsRecord{next, 0, 0, 0}));
      } else {
        ASSERT_TRUE(r.push(e));
      }
      ++next;
    }
    r.drain([&](const Event& e, const ArgsRecord* a) {
      EXPECT_EQ(e.t0, expect);
      if (expect % 3 == 0) {
        ASSERT_NE(a, nullptr);
        EXPECT_EQ(a->bytes, expect);
      }
      ++expect;
    });
  }
  EXPECT_EQ(expect, next);
  EXPECT_EQ(r.dropped(), 0u);
}

// One producer, one consumer, concurrently (the shape of a traced thread and the writer).
// Every event either arrives, in order, or is counted as dropped.
TEST(Ring, ConcurrentProducerAndConsumerLoseNothingSilently) {
  SpscRing r(256);
  constexpr std::uint64_t kEvents = 200000;
  std::atomic<bool> done{false};
  std::thread producer([&] {
    for (std::uint64_t i = 0; i < kEvents; ++i) {
      Event e = ev(i);
      if (i % 5 == 0) {
        e.flags = kHasArgs;
        r.push(e, ArgsRecord{i * 2, 0, 0, 0});
      } else {
        r.push(e);
      }
    }
    done.store(true, std::memory_order_release);
  });
  std::uint64_t received = 0, last = 0;
  bool first = true, ordered = true, args_ok = true;
  auto consume = [&](const Event& e, const ArgsRecord* a) {
    if (!first && e.t0 <= last) ordered = false;
    if ((e.t0 % 5 == 0) != (a != nullptr) || (a != nullptr && a->bytes != e.t0 * 2))
      args_ok = false;
    first = false;
    last = e.t0;
    ++received;
  };
  while (!done.load(std::memory_order_acquire)) r.drain(consume);
  producer.join();
  r.drain(consume);
  EXPECT_TRUE(ordered);
  EXPECT_TRUE(args_ok);
  EXPECT_EQ(received + r.dropped(), kEvents);
}

}  // namespace
