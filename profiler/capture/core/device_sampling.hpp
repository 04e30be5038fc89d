// Device events on a sample of steps (SessionOptions::device_event_every): which steps record
// device events, and the automatic choice of the sample from the measured event cost.
//
// A device event costs the driver host time per command (an OpenCL event: about 12 us on an
// NVIDIA GPU), a host zone costs nanoseconds. So device events are switched on for one step in K
// (step numbers n with n % K == 0) and off for the others, which keep their host zones. The
// switch is detail::g_device_step_sampled, a relaxed atomic that step_begin() sets after it has
// published the step number; the enqueueing thread reads it and the step together, so a command
// enqueued on the step's own thread belongs to the step current at enqueue (its device event
// carries that step), whenever it is harvested.
//
// Automatic choice: the first step the session records is warm-up (compilation, first
// allocations), the second is measured (its wall time, and the device events tagged with it),
// both with device events; when the third begins, K = ceil(commands x cost / (target x step
// time)), at least 1. The cost comes from the device backend (set_device_event_cost); without one
// (the CPU backend's device events are two clock reads) K stays 1.
#pragma once

#include <cstdint>

namespace ts::trace::core {

// At session start: K (SessionOptions::kDeviceEventEveryAuto for the automatic choice) and the
// overhead target in percent of step time. Clears the measured cost.
void configure_device_sampling(std::uint32_t every, double target_pct) noexcept;
// At session stop: every step records device events again.
void reset_device_sampling() noexcept;
// From step_begin() / step_end(), after the step number is published; `recording`: the session
// records at this step (a --trace-steps window may not have started yet).
void sample_device_step(std::int64_t step, bool recording) noexcept;
void end_device_step(std::int64_t step) noexcept;
// From every emitted device event (its resolved step): counts the measured step's commands.
void note_device_event(std::uint32_t step) noexcept;

// The choice rule, apart for testing: the smallest K >= 1 with
// commands x cost_ns / (K x step_ns) <= target_pct / 100; 1 when any input is not positive.
std::uint32_t choose_device_event_every(double commands, double cost_ns, double step_ns,
                                        double target_pct) noexcept;

}  // namespace ts::trace::core
