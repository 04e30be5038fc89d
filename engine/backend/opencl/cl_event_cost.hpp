// What one device event costs the host on this device: measured when a session starts
// recording (DeviceClock::ensure_session), written as meta capture.device_event_cost_ns and used
// by `train --trace-device auto` to choose how many steps record device events.
#pragma once

#include "engine/backend/opencl/cl_api.hpp"

namespace ts::ocl {

// Host nanoseconds per command that a profiling event adds: kEventCostCommands markers enqueued
// without an event and waited for, against as many enqueued with one, each then queried as the
// harvest does (its status, START and END) and released; the best of kEventCostRounds rounds of
// each. `queue` must be an idle in-order profiling queue. Negative when a call fails.
inline constexpr int kEventCostCommands = 64;
inline constexpr int kEventCostRounds = 3;
double measure_event_cost_ns(cl_command_queue queue);

}  // namespace ts::ocl
