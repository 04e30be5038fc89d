// Device events of one in-order command queue, for the profiler.
//
// While a session records, each command's (first, last) events are kept with what the trace
// needs (name, bytes, work size, the step and correlation id current at enqueue, the host time
// before the enqueue) and harvested once complete: START of `first` and END of `last`, converted
// to host time with the device's ClockFit and emitted as one device event on the queue's track.
// Harvesting is non-blocking once kHarvestBatch commands are pending (only the completed
// prefix: the queue is in order), and complete after every wait. While nothing records,
// commands are enqueued without events where the queue needs none (records()) and no profiling
// info is read: the untraced path costs one relaxed load.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

#include "engine/backend/opencl/cl_api.hpp"
#include "engine/backend/opencl/cl_clock.hpp"
#include "engine/backend/opencl/cl_command_info.hpp"
#include "engine/backend/opencl/cl_memory_counter.hpp"
#include "trainscope/trace.hpp"

namespace ts::ocl {

// What begin() captured before an enqueue; all zero while not recording.
struct CommandToken {
  std::uint64_t correlation = 0;  // shared by the launch zone and the device event
  std::int64_t submit_ns = 0;     // the command cannot have started earlier (see stamp())
  std::int64_t step = 0;
};

class QueueTrace {
 public:
  // Past this many commands awaiting harvest, the oldest is waited for: memory stays bounded
  // even when the host runs far ahead of the device.
  static constexpr std::size_t kMaxPending = 1024;
  // Completed commands are looked for once this many are pending (and all of them after every
  // wait): a status query per command costs a GPU driver microseconds, as much as a small kernel.
  static constexpr std::size_t kHarvestBatch = 64;

  // `clock` null: no device events (zones only). The queue whose handle is clock->queue()
  // also refreshes the clock after its waits. `memory` (may be null) is sampled at each
  // session start.
  QueueTrace(cl_command_queue queue, DeviceClock* clock, std::string_view track_name,
             DeviceMemoryCounter* memory = nullptr);
  ~QueueTrace();  // releases the events of commands not harvested
  QueueTrace(const QueueTrace&) = delete;
  QueueTrace& operator=(const QueueTrace&) = delete;

  // Before an enqueue. Notices a session starting (calibrates the clock) or ending (drops what
  // is pending: events of a stopped session are lost, not written into the next one).
  CommandToken begin();
  // Right before the enqueue call, inside its launch zone: the host time the command cannot
  // have started before (so a device event never starts before its launch zone).
  static void stamp(CommandToken& token) noexcept {
    if (token.correlation != 0) token.submit_ns = ts::trace::now_ns();
  }
  // Whether the command `token` was taken for is recorded, so its events are wanted: without a
  // session commands are enqueued with no event (an event costs the driver work per command).
  static bool records(const CommandToken& token) noexcept { return token.correlation != 0; }
  // After an enqueue: takes ownership of both events (first may equal last; either may be null).
  void add(const CommandInfo& info, cl_event first, cl_event last, const CommandToken& token);
  // The host time to harvest a wait with: take it inside the `sync` zone of the wait, so the
  // device events end before the zone does. 0 (and no clock read) while not recording.
  static std::int64_t observe() noexcept;
  // Emits the completed commands. `drained`: the queue was just waited for, so all are, and
  // `observed_ns` (from observe(), or 0 for now) is a host time after the wait returned.
  void harvest(bool drained, std::int64_t observed_ns = 0);

  std::uint32_t track() const { return track_; }
  std::size_t pending() const { return pending_.size(); }
  // Events whose converted interval had to be moved by more than 1 us to stay physically
  // possible (after their enqueue, before they were seen complete, after the previous one).
  // Written to meta clock.clamped_events.<track name> after waits, when it changed.
  std::uint64_t clamped() const { return clamped_; }

 private:
  struct Record {
    cl_event first, last;
    std::uint32_t name;
    CommandCategory category;
    std::uint64_t bytes, work_items;
    std::int64_t step;
    std::uint64_t correlation;
    std::int64_t submit_ns;
  };
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::uint32_t name_id(std::string_view name);
  void emit(const Record& r, const ts::trace::ClockFit& fit, std::int64_t observed_ns);
  static void release(const Record& r);
  void drop_all();
  void report_clamped();

  cl_command_queue queue_;
  DeviceClock* clock_;
  DeviceMemoryCounter* memory_;
  bool calibrates_;  // this queue is the clock's marker queue
  std::string track_name_;
  std::uint32_t track_ = 0;
  bool in_session_ = false;
  std::deque<Record> pending_;
  std::unordered_map<std::string, std::uint32_t, NameHash, std::equal_to<>> names_;
  std::int64_t last_start_ = 0, last_end_ = 0;  // of the last event emitted on this queue
  std::uint64_t clamped_ = 0, clamped_reported_ = 0;
};

}  // namespace ts::ocl
