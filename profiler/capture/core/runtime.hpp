// The process-wide state behind the instrumentation API, shared with the session (capture).
#pragma once

#include <atomic>
#include <cstdint>

#include "profiler/capture/core/ring.hpp"
#include "profiler/capture/core/tables.hpp"
#include "profiler/capture/core/threads.hpp"

namespace ts::trace::core {

struct Runtime {
  StringTable strings;
  TrackTable tracks;
  MetaTable meta;
  ThreadRegistry threads{tracks};
  std::atomic<std::uint32_t> ring_events{1u << 16};  // capacity of rings created from now on
};

// Never destroyed, so threads and atexit handlers may use it at any point of shutdown.
Runtime& runtime();

// The calling thread's ring, once it has recorded an event (initial-exec: one fs-relative load).
extern thread_local SpscRing* tl_ring __attribute__((tls_model("initial-exec")));

// Switches recording on (detail::kTsc / kMonotonic) or off (detail::kOff).
void set_state(std::uint32_t state) noexcept;
// Whether the session wants device events (read by ts::trace::device_events()).
void set_device_events(bool on) noexcept;

// A session recording a window of steps (SessionOptions::steps): armed with the state to record
// with, recording is switched on by the first step_begin() numbered within [first, last] and off
// by the step_end() of a step numbered last or more. Disarming (stop, a write error) makes sure
// no later step switches it on again; call it before set_state(kOff).
void arm_step_window(std::int64_t first, std::int64_t last, std::uint32_t state) noexcept;
void disarm_step_window() noexcept;
// In a forked child, where another thread may have held the window's lock.
void forget_step_window() noexcept;

}  // namespace ts::trace::core
