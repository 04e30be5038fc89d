// Per-thread event buffers and the registry the writer drains them through.
//
// Ownership: a buffer is created by its thread on first use. When the thread exits it is only
// marked retired; the consumer (the session's writer) drains it a last time and frees it. With
// no consumer running, the exiting thread frees its own buffer.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "profiler/capture/core/ring.hpp"
#include "profiler/capture/core/tables.hpp"

namespace ts::trace::core {

struct ThreadBuffer {
  std::uint32_t track = 0;
  std::int64_t os_tid = 0;
  std::atomic<SpscRing*> ring{nullptr};  // created by the owning thread on its first event
  bool retired = false;                  // guarded by the registry's mutex
  ~ThreadBuffer() { delete ring.load(std::memory_order_relaxed); }
};

using DrainFn = std::function<void(const ThreadBuffer&, const Event&, const ArgsRecord*)>;

class ThreadRegistry {
 public:
  explicit ThreadRegistry(TrackTable& tracks) : tracks_(tracks) {}

  // The calling thread's buffer (created with its track on first call); null while the thread
  // is exiting.
  ThreadBuffer* current();
  // The calling thread's ring, created with `capacity` slots on first call.
  SpscRing* current_ring(std::uint32_t capacity);

  // Consumer side. begin_consuming() forgets stale events of an earlier session.
  void begin_consuming();
  std::vector<ThreadBuffer*> buffers();  // valid until the next reap()/end_consuming()
  void reap(const DrainFn& drain);       // drains retired buffers a last time, frees them
  void end_consuming(const DrainFn& drain);
  // Events dropped because a ring was full, per track, since the process started.
  std::map<std::uint32_t, std::uint64_t> dropped_by_track();

  void retire(ThreadBuffer* b);  // called by the exiting thread

 private:
  void reap_locked(const DrainFn& drain);
  TrackTable& tracks_;
  std::mutex mu_;
  std::vector<ThreadBuffer*> buffers_;
  std::map<std::uint32_t, std::uint64_t> dropped_freed_;  // of buffers already freed
  bool consuming_ = false;
};

}  // namespace ts::trace::core
