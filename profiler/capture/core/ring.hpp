// A bounded single-producer single-consumer queue of 32-byte events. The producer (the traced
// thread) never blocks and never allocates: when the ring is full the event is dropped and
// counted. The consumer is the session's writer thread (one at a time).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "profiler/capture/core/event.hpp"

namespace ts::trace::core {

class SpscRing {
 public:
  explicit SpscRing(std::uint32_t capacity);  // rounded up to a power of two, at least 8
  SpscRing(const SpscRing&) = delete;
  SpscRing& operator=(const SpscRing&) = delete;

  std::uint64_t capacity() const noexcept { return mask_ + 1; }

  // Producer side.
  bool push(const Event& e) noexcept {
    const std::uint64_t h = head_.load(std::memory_order_relaxed);
    if (!has_room(h, 1)) return false;
    slots_[h & mask_] = e;
    head_.store(h + 1, std::memory_order_release);
    return true;
  }
  bool push(const Event& e, const ArgsRecord& args) noexcept {
    const std::uint64_t h = head_.load(std::memory_order_relaxed);
    if (!has_room(h, 2)) return false;
    slots_[h & mask_] = e;
    slots_[(h + 1) & mask_] = as_slot(args);
    head_.store(h + 2, std::memory_order_release);
    return true;
  }

  // Any thread.
  std::uint64_t dropped() const noexcept { return dropped_.load(std::memory_order_relaxed); }
  std::uint64_t size() const noexcept {
    return head_.load(std::memory_order_acquire) - tail_.load(std::memory_order_relaxed);
  }

  // Consumer side: calls fn(event, args) for each queued event (args is null when it has
  // none) and frees their slots. Returns the number of events.
  template <class Fn>
  std::size_t drain(Fn&& fn) {
    const std::uint64_t h = head_.load(std::memory_order_acquire);
    std::uint64_t t = tail_.load(std::memory_order_relaxed);
    std::size_t n = 0;
    while (t < h) {
      const Event& e = slots_[t & mask_];
      if ((e.flags & kHasArgs) != 0 && t + 1 < h) {
        const ArgsRecord a = as_args(slots_[(t + 1) & mask_]);
        fn(e, &a);
        t += 2;
      } else {
        fn(e, static_cast<const ArgsRecord*>(nullptr));
        t += 1;
      }
      ++n;
    }
    tail_.store(t, std::memory_order_release);
    return n;
  }
  // Consumer side: forgets everything queued (stale events of an earlier session).
  void discard() noexcept {
    tail_.store(head_.load(std::memory_order_acquire), std::memory_order_release);
  }

 private:
  bool has_room(std::uint64_t h, std::uint64_t n) noexcept {
    if (h + n - tail_cache_ <= capacity()) return true;
    tail_cache_ = tail_.load(std::memory_order_acquire);
    if (h + n - tail_cache_ <= capacity()) return true;
    // Only the producer writes dropped_: a relaxed load and store, no locked instruction.
    dropped_.store(dropped_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    return false;
  }

  // Producer-owned line.
  alignas(64) std::atomic<std::uint64_t> head_{0};
  std::uint64_t tail_cache_ = 0;  // the producer's last look at tail_
  std::atomic<std::uint64_t> dropped_{0};
  // Consumer-owned line.
  alignas(64) std::atomic<std::uint64_t> tail_{0};
  alignas(64) const std::uint64_t mask_;
  std::unique_ptr<Event[]> slots_;
};

}  // namespace ts::trace::core
