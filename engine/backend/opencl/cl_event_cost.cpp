#include "engine/backend/opencl/cl_event_cost.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>

#include "trainscope/trace.hpp"

namespace ts::ocl {

namespace {

// Host time to enqueue kEventCostCommands markers without events and wait for them; -1 on error.
std::int64_t plain_round(cl_command_queue queue) {
  const std::int64_t t0 = ts::trace::now_ns();
  for (int i = 0; i < kEventCostCommands; ++i)
    if (clEnqueueMarkerWithWaitList(queue, 0, nullptr, nullptr) != CL_SUCCESS) return -1;
  if (clFinish(queue) != CL_SUCCESS) return -1;
  return ts::trace::now_ns() - t0;
}

// The same with an event per marker, read and released as QueueTrace's harvest does.
std::int64_t evented_round(cl_command_queue queue) {
  std::array<cl_event, kEventCostCommands> events{};
  const std::int64_t t0 = ts::trace::now_ns();
  int made = 0;
  bool ok = true;
  for (; made < kEventCostCommands; ++made)
    if (clEnqueueMarkerWithWaitList(queue, 0, nullptr, &events[made]) != CL_SUCCESS) {
      ok = false;
      break;
    }
  ok = clFinish(queue) == CL_SUCCESS && ok;
  for (int i = 0; i < made; ++i) {
    cl_int status = CL_QUEUED;
    cl_ulong start = 0, end = 0;
    ok = clGetEventInfo(events[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status,
                        nullptr) == CL_SUCCESS &&
         ok;
    ok = clGetEventProfilingInfo(events[i], CL_PROFILING_COMMAND_START, sizeof(start), &start,
                                 nullptr) == CL_SUCCESS &&
         ok;
    ok = clGetEventProfilingInfo(events[i], CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr) ==
             CL_SUCCESS &&
         ok;
    clReleaseEvent(events[i]);
  }
  return ok ? ts::trace::now_ns() - t0 : -1;
}

}  // namespace

double measure_event_cost_ns(cl_command_queue queue) {
  TS_ZONE("measure device event cost", sync);
  std::int64_t plain = std::numeric_limits<std::int64_t>::max();
  std::int64_t evented = plain;
  // Alternated, so that a busy moment of the host weighs on both kinds alike.
  for (int round = 0; round < kEventCostRounds; ++round) {
    const std::int64_t p = plain_round(queue);
    const std::int64_t e = evented_round(queue);
    if (p < 0 || e < 0) return -1;
    plain = std::min(plain, p);
    evented = std::min(evented, e);
  }
  return static_cast<double>(std::max<std::int64_t>(0, evented - plain)) / kEventCostCommands;
}

}  // namespace ts::ocl
