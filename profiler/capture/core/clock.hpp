// The host clock of a session. Hot-path timestamps are raw rdtsc ticks when the CPU has an
// invariant TSC (read in ~7 ns, no system call); the writer converts them to CLOCK_MONOTONIC
// nanoseconds with a line measured at session start. Without a usable TSC every timestamp is
// clock_gettime(CLOCK_MONOTONIC) directly.
#pragma once

#include <cstdint>

#include "trainscope/session.hpp"

namespace ts::trace::core {

struct Calibration {
  static constexpr int kFracBits = 48;  // 0.02 ns of error per hour of ticks
  bool tsc = false;                     // false: "ticks" are already CLOCK_MONOTONIC nanoseconds
  std::uint64_t tsc0 = 0;               // a TSC reading ...
  std::int64_t ns0 = 0;                 // ... and the CLOCK_MONOTONIC time it was taken at
  std::uint64_t mult = 0;  // nanoseconds per tick, fixed point with kFracBits fraction bits
  double tsc_hz = 0;       // ticks per second (for meta)
  const char* why = "";    // why the TSC is not used, when it is not

  std::int64_t to_ns(std::uint64_t ticks) const {
    if (!tsc) return static_cast<std::int64_t>(ticks);
    const auto d = static_cast<__int128>(static_cast<std::int64_t>(ticks - tsc0));
    return ns0 + static_cast<std::int64_t>((d * static_cast<__int128>(mult)) >> kFracBits);
  }
};

// True when cpuid reports an invariant TSC (x86 only).
bool tsc_is_invariant();

// Measures the TSC rate against CLOCK_MONOTONIC over about window_ms milliseconds, or returns a
// monotonic calibration when the source asks for it or the TSC is unusable.
Calibration calibrate(ClockSource source, int window_ms = 20);

// The calibration now_ns() uses; set by the session before recording starts.
void publish_calibration(const Calibration& c);
Calibration published_calibration();

std::int64_t monotonic_now_ns();

}  // namespace ts::trace::core
