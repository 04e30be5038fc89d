#include "profiler/capture/core/threads.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "profiler/capture/core/runtime.hpp"

namespace ts::trace::core {

namespace {

// Destroyed at thread exit (for the main thread: at exit(), before atexit handlers run).
struct ExitGuard {
  ThreadBuffer* buffer = nullptr;
  ~ExitGuard();
};

thread_local ThreadBuffer* tl_buffer = nullptr;
thread_local bool tl_exiting = false;
thread_local ExitGuard tl_guard;

ExitGuard::~ExitGuard() {
  tl_exiting = true;
  tl_ring = nullptr;
  tl_buffer = nullptr;
  if (buffer != nullptr) runtime().threads.retire(buffer);
}

std::int64_t os_thread_id() {
  return static_cast<std::int64_t>(::syscall(SYS_gettid));
}

void drop_count(const ThreadBuffer& b, std::map<std::uint32_t, std::uint64_t>& out) {
  if (const SpscRing* r = b.ring.load(std::memory_order_acquire)) out[b.track] += r->dropped();
}

}  // namespace

ThreadBuffer* ThreadRegistry::current() {
  if (tl_buffer != nullptr) return tl_buffer;
  if (tl_exiting) return nullptr;
  auto* b = new ThreadBuffer;
  b->os_tid = os_thread_id();
  const bool main_thread = b->os_tid == static_cast<std::int64_t>(::getpid());
  b->track =
      tracks_.add_thread(main_thread ? "main" : "thread " + std::to_string(b->os_tid), b->os_tid);
  {
    std::lock_guard lock(mu_);
    buffers_.push_back(b);
  }
  tl_buffer = b;
  tl_guard.buffer = b;
  return b;
}

SpscRing* ThreadRegistry::current_ring(std::uint32_t capacity) {
  ThreadBuffer* b = current();
  if (b == nullptr) return nullptr;
  SpscRing* r = b->ring.load(std::memory_order_relaxed);
  if (r == nullptr) {
    r = new SpscRing(capacity);
    std::lock_guard lock(mu_);  // the consumer may be looking at the buffer list
    b->ring.store(r, std::memory_order_release);
  }
  return r;
}

void ThreadRegistry::retire(ThreadBuffer* b) {
  std::lock_guard lock(mu_);
  if (consuming_) {
    b->retired = true;  // the consumer drains and frees it
    return;
  }
  drop_count(*b, dropped_freed_);
  buffers_.erase(std::remove(buffers_.begin(), buffers_.end(), b), buffers_.end());
  delete b;
}

void ThreadRegistry::begin_consuming() {
  std::lock_guard lock(mu_);
  consuming_ = true;
  for (ThreadBuffer* b : buffers_)
    if (SpscRing* r = b->ring.load(std::memory_order_acquire)) r->discard();
}

std::vector<ThreadBuffer*> ThreadRegistry::buffers() {
  std::lock_guard lock(mu_);
  return buffers_;
}

void ThreadRegistry::reap_locked(const DrainFn& drain) {
  auto it = buffers_.begin();
  while (it != buffers_.end()) {
    ThreadBuffer* b = *it;
    if (!b->retired) {
      ++it;
      continue;
    }
    if (SpscRing* r = b->ring.load(std::memory_order_acquire))
      r->drain([&](const Event& e, const ArgsRecord* a) { drain(*b, e, a); });
    drop_count(*b, dropped_freed_);
    delete b;
    it = buffers_.erase(it);
  }
}

void ThreadRegistry::reap(const DrainFn& drain) {
  std::lock_guard lock(mu_);
  reap_locked(drain);
}

void ThreadRegistry::end_consuming(const DrainFn& drain) {
  std::lock_guard lock(mu_);
  reap_locked(drain);
  consuming_ = false;
}

std::map<std::uint32_t, std::uint64_t> ThreadRegistry::dropped_by_track() {
  std::lock_guard lock(mu_);
  std::map<std::uint32_t, std::uint64_t> out = dropped_freed_;
  for (const ThreadBuffer* b : buffers_) drop_count(*b, out);
  return out;
}

}  // namespace ts::trace::core
