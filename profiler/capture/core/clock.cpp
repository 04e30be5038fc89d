#include "profiler/capture/core/clock.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

#include "trainscope/trace.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define TS_HAVE_RDTSC 1
#endif

namespace ts::trace::core {

namespace {

std::uint64_t rdtsc() {
#ifdef TS_HAVE_RDTSC
  return __builtin_ia32_rdtsc();
#else
  return 0;
#endif
}

struct Pair {
  std::uint64_t tsc;
  std::int64_t ns;
};

// A (tsc, monotonic) pair taken as close together as possible: the narrowest of a few tries.
Pair sample_pair() {
  Pair best{};
  std::uint64_t best_width = ~0ull;
  for (int i = 0; i < 16; ++i) {
    const std::uint64_t a = rdtsc();
    const std::int64_t ns = monotonic_now_ns();
    const std::uint64_t b = rdtsc();
    if (b - a < best_width) {
      best_width = b - a;
      best = {a + (b - a) / 2, ns};
    }
  }
  return best;
}

// Published for now_ns(): read by any thread, written only at session start.
std::atomic<bool> g_pub_tsc{false};
std::atomic<std::uint64_t> g_pub_tsc0{0};
std::atomic<std::int64_t> g_pub_ns0{0};
std::atomic<std::uint64_t> g_pub_mult{0};

}  // namespace

std::int64_t monotonic_now_ns() {
  return static_cast<std::int64_t>(detail::monotonic_ns());
}

bool tsc_is_invariant() {
#ifdef TS_HAVE_RDTSC
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0x80000000u, &a, &b, &c, &d) == 0 || a < 0x80000007u) return false;
  if (__get_cpuid(0x80000007u, &a, &b, &c, &d) == 0) return false;
  return (d & (1u << 8)) != 0;
#else
  return false;
#endif
}

Calibration calibrate(ClockSource source, int window_ms) {
  Calibration c;
#ifndef TS_HAVE_RDTSC
  c.why = "not an x86 CPU";
  return c;
#else
  if (source == ClockSource::monotonic) {
    c.why = "CLOCK_MONOTONIC requested";
    return c;
  }
  if (source == ClockSource::automatic && !tsc_is_invariant()) {
    c.why = "the CPU does not report an invariant TSC";
    return c;
  }
  const Pair p1 = sample_pair();
  std::this_thread::sleep_for(std::chrono::milliseconds(window_ms));
  const Pair p2 = sample_pair();
  const double dticks = static_cast<double>(p2.tsc - p1.tsc);
  const double dns = static_cast<double>(p2.ns - p1.ns);
  const double hz = dns > 0 ? dticks / dns * 1e9 : 0;
  // A TSC slower than 100 MHz or faster than 20 GHz is not a TSC we can trust.
  if (!(hz > 1e8 && hz < 2e10)) {
    c.why = "the TSC rate measured against CLOCK_MONOTONIC is implausible";
    return c;
  }
  c.tsc = true;
  c.tsc0 = p2.tsc;
  c.ns0 = p2.ns;
  c.tsc_hz = hz;
  c.mult = static_cast<std::uint64_t>(std::llround(std::ldexp(1e9 / hz, Calibration::kFracBits)));
  return c;
#endif
}

void publish_calibration(const Calibration& c) {
  g_pub_tsc0.store(c.tsc0, std::memory_order_relaxed);
  g_pub_ns0.store(c.ns0, std::memory_order_relaxed);
  g_pub_mult.store(c.mult, std::memory_order_relaxed);
  g_pub_tsc.store(c.tsc, std::memory_order_release);
}

Calibration published_calibration() {
  Calibration c;
  c.tsc = g_pub_tsc.load(std::memory_order_acquire);
  c.tsc0 = g_pub_tsc0.load(std::memory_order_relaxed);
  c.ns0 = g_pub_ns0.load(std::memory_order_relaxed);
  c.mult = g_pub_mult.load(std::memory_order_relaxed);
  return c;
}

}  // namespace ts::trace::core

namespace ts::trace {

std::int64_t now_ns() noexcept {
  if (detail::state() != detail::kTsc) return core::monotonic_now_ns();
  const core::Calibration c = core::published_calibration();
  return c.tsc ? c.to_ns(core::rdtsc()) : core::monotonic_now_ns();
}

}  // namespace ts::trace
