// Starting and stopping a trace session (implemented by trainscope::trace, i.e. the capture
// library). One session at a time per process; it writes one SQLite file (see traces/README.md).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ts::trace {

// start() failures: the message is one sentence naming the file.
class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using Meta = std::vector<std::pair<std::string, std::string>>;

enum class ClockSource : std::uint8_t {
  automatic,  // rdtsc when the CPU has an invariant TSC, else CLOCK_MONOTONIC
  tsc,        // rdtsc even if the CPU does not claim an invariant TSC
  monotonic,  // clock_gettime(CLOCK_MONOTONIC) for every timestamp
};

struct SessionOptions {
  std::uint32_t ring_events = 1u << 16;  // per-thread buffer, in 32-byte events (power of two)
  std::uint32_t drain_interval_ms = 10;  // how often the writer empties the buffers
  // How often the writer commits (draining first), with or without new events: what a SIGKILL
  // may lose, at most. Keep it at most 1000: a capture killed with SIGKILL must lose at most about
  // a second.
  std::uint32_t commit_interval_ms = 100;
  ClockSource clock = ClockSource::automatic;
  // Device backends record a device event per command (kernel, copy) with its device
  // timestamps. Each costs the device's driver host time (on NVIDIA's OpenCL about 12 us, as
  // long as a small kernel runs), so off keeps a session to host events: the input pipeline,
  // steps, launches and waits, at the host-side cost alone. Written as meta
  // capture.device_events = off.
  bool device_events = true;
  // With device events, record them on a sample of steps only: step n (TS_STEP numbers) gets
  // device events when n % device_event_every == 0 (step 0 included); the other steps record
  // host events only (launch, staging and wait zones), so the driver's cost per event is paid on
  // one step in K. 1: every step. kDeviceEventEveryAuto: steps 0 and 1 are recorded in full, then
  // K is chosen when step 2 begins, from the event cost the device backend measured when the
  // session started (ts::trace::set_device_event_cost) and step 1's commands and wall time, as
  // the smallest K with commands x cost / (K x step time) <= kDeviceEventAutoTargetPct %; without
  // a measured cost (the CPU backend) K stays 1. Written as meta capture.device_event_every = K
  // (when K > 1, or once auto has chosen).
  static constexpr std::uint32_t kDeviceEventEveryAuto = 0;
  static constexpr double kDeviceEventAutoTargetPct = 1.0;
  std::uint32_t device_event_every = 1;
  // Record only steps first..last (step numbers, inclusive), as PyTorch's profiler schedule or
  // Nsight Systems' capture range do: the session starts paused, records from the first
  // TS_STEP numbered within the range and pauses after the step numbered last (or past it)
  // ends. Nothing outside those steps is recorded, so a long run's trace holds the steps of
  // interest at the cost of those steps alone. Written as meta capture.steps = "first-last".
  struct StepRange {
    std::int64_t first = 0, last = 0;
  };
  std::optional<StepRange> steps;
};

// Reads a device-event choice as `train --trace-device` and TRAINSCOPE_TRACE_DEVICE spell it into
// options.device_events and device_event_every: "on" (every step), "off" (none), "auto" (K from
// the measured event cost), "every:K" (one step in K, 1 <= K <= 1048576). False, leaving
// `options` as it was, for anything else.
bool parse_device_event_choice(std::string_view text, SessionOptions& options) noexcept;

// Starts recording into `path` (created or replaced). `meta` lands in the trace's meta table
// (command line, engine configuration, ...). Throws TraceError when the file cannot be created
// or a session is already active. A session still active at exit() is stopped then.
void start(std::string_view path, const Meta& meta = {}, const SessionOptions& options = {});

// Stops recording, writes what is buffered and closes the file. Never throws; a write error
// during the session was reported on stderr once, when it happened. A write error (disk full,
// I/O error, file size limit) stops the recording, never the program: the trace keeps what was
// committed before it, and meta capture.write_error / capture.events_lost say what was lost.
void stop() noexcept;

// Blocks until every event recorded before the call is committed to the file.
void flush() noexcept;

// True between start() and stop(), even after a write error stopped the recording.
bool session_active() noexcept;

// Counters of the active or last session.
struct SessionStats {
  std::uint64_t events_written = 0;  // after a write error: those committed before it
  std::uint64_t events_dropped = 0;  // lost to full per-thread buffers
  std::uint64_t events_lost = 0;     // lost to a write error (recorded, never committed)
  std::uint64_t writer_cpu_ns = 0;   // CPU time the writer thread has used: tracing's main cost
  // Of writer_cpu_ns, the CPU time stop() spent indexing the staged events (after training).
  std::uint64_t index_cpu_ns = 0;
  bool write_failed = false;
};
SessionStats session_stats() noexcept;

}  // namespace ts::trace
