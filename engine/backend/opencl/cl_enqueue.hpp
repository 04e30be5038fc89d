// The one choke point through which every device command goes: kernel launches, host<->device
// copies, device copies and library calls (CLBlast). Each enqueue runs inside a `launch` zone
// and hands its cl_event(s) to record(), which gives them to the queue's QueueTrace: while a
// session records, their device START/END become device events sharing the launch zone's
// correlation id; otherwise the events are released at once.
#pragma once

#include <cstdint>
#include <deque>
#include <string_view>
#include <vector>

#include "engine/backend/opencl/cl_api.hpp"
#include "engine/backend/opencl/cl_command_info.hpp"
#include "engine/backend/opencl/cl_queue_trace.hpp"
#include "trainscope/trace.hpp"

namespace ts::ocl {

class CommandQueue {
 public:
  // `clock` null: no device events for this queue. Its device events go to the track
  // `track_name` (e.g. "<device> compute"); `memory` is sampled when a session starts.
  explicit CommandQueue(cl_command_queue queue, DeviceClock* clock = nullptr,
                        std::string_view track_name = {}, DeviceMemoryCounter* memory = nullptr)
      : queue_(queue), trace_(queue, clock, track_name, memory) {}
  // Waits for the queue so pending uploads' staging memory can be freed and their device
  // events written.
  ~CommandQueue();
  CommandQueue(const CommandQueue&) = delete;
  CommandQueue& operator=(const CommandQueue&) = delete;

  cl_command_queue handle() const { return queue_; }
  std::uint32_t track() const { return trace_.track(); }
  // Commands whose device events await harvesting (at most QueueTrace::kMaxPending).
  std::size_t pending_records() const { return trace_.pending(); }

  // Kernel launch; `local` may be null. Arguments must already be set.
  void launch(const CommandInfo& info, cl_kernel kernel, cl_uint dims, const std::size_t* global,
              const std::size_t* local);
  // Host -> device without waiting: the bytes are first copied into a staging block that lives
  // until the write completes, so the caller's memory may be reused at once.
  void write(std::string_view name, cl_mem dst, std::size_t offset, std::size_t bytes,
             const void* host);
  // write() that also returns a reference to the copy's event (the caller releases it), or
  // null when there was nothing to copy.
  cl_event write_retained(std::string_view name, cl_mem dst, std::size_t offset, std::size_t bytes,
                          const void* host);
  // Device -> host; waits for the copy (and therefore for all earlier commands).
  void read(std::string_view name, cl_mem src, std::size_t offset, std::size_t bytes, void* host);
  // Device -> device copy (category kernel).
  void copy(std::string_view name, cl_mem src, std::size_t src_offset, cl_mem dst,
            std::size_t dst_offset, std::size_t bytes);
  // Commands enqueued after this wait on the device for `event` (of any queue of the context);
  // the host does not block.
  void wait_on_device(cl_event event);
  // A library routine that enqueues several commands and returns the event of the last one:
  // `enqueue` gets a cl_event* to fill (null while nothing records) and throws on failure. A
  // marker enqueued before it supplies the start, so the recorded interval covers all of the
  // routine's commands.
  template <class Enqueue>
  void library_call(const CommandInfo& info, Enqueue&& enqueue) {
    CommandToken token = trace_.begin();
    cl_event start = nullptr;
    cl_event last = nullptr;
    {
      TS_ZONE_VAR(zone, "enqueue library call", launch);
      TS_ZONE_CORRELATION(zone, token.correlation);
      QueueTrace::stamp(token);
      if (QueueTrace::records(token)) start = marker();
      try {
        enqueue(QueueTrace::records(token) ? &last : nullptr);
      } catch (...) {
        if (start) clReleaseEvent(start);
        if (last) clReleaseEvent(last);
        throw;
      }
    }
    record(info, start, last, token);
  }
  // Waits for everything queued.
  void finish();
  // Emits the device events of commands that have completed, without waiting.
  void poll() { trace_.harvest(false); }

 private:
  // THE hook: every command ends here with its first and last event (the same event for a
  // single command). Takes ownership of both references.
  void record(const CommandInfo& info, cl_event first, cl_event last, const CommandToken& token) {
    trace_.add(info, first, last, token);
  }
  cl_event marker();
  cl_event enqueue_write(std::string_view name, cl_mem dst, std::size_t offset, std::size_t bytes,
                         const void* host, bool retain);
  // Frees staging blocks of uploads that completed; with `all`, of every upload (after a wait).
  void reap_staging(bool all);

  struct Staging {
    cl_event done;
    std::vector<unsigned char> bytes;
  };
  cl_command_queue queue_;
  QueueTrace trace_;
  std::deque<Staging> staging_;
  std::size_t staging_bytes_ = 0;
};

}  // namespace ts::ocl
