// The one choke point through which every device command goes: kernel launches, host<->device
// copies, device copies and library calls (CLBlast). Each enqueue hands its cl_event(s) to
// record(), the single place where device START/END times can be collected (today it only
// releases the events; the profiler hooks in there).
#pragma once

#include <cstdint>
#include <deque>
#include <string_view>
#include <vector>

#include "engine/backend/opencl/cl_api.hpp"

namespace ts::ocl {

enum class CommandCategory : std::uint8_t { kernel, h2d, d2h };

struct CommandInfo {
  CommandCategory category = CommandCategory::kernel;
  std::string_view name;         // kernel or routine name; "upload", "download", "copy"
  std::uint64_t bytes = 0;       // copies: bytes moved
  std::uint64_t work_items = 0;  // kernels: total global work size
};

class CommandQueue {
 public:
  explicit CommandQueue(cl_command_queue queue) : queue_(queue) {}
  ~CommandQueue();  // waits for the queue so pending uploads' staging memory can be freed
  CommandQueue(const CommandQueue&) = delete;
  CommandQueue& operator=(const CommandQueue&) = delete;

  // Kernel launch; `local` may be null. Arguments must already be set.
  void launch(const CommandInfo& info, cl_kernel kernel, cl_uint dims, const std::size_t* global,
              const std::size_t* local);
  // Host -> device without waiting: the bytes are first copied into a staging block that lives
  // until the write completes, so the caller's memory may be reused at once.
  void write(std::string_view name, cl_mem dst, std::size_t offset, std::size_t bytes,
             const void* host);
  // Device -> host; waits for the copy (and therefore for all earlier commands).
  void read(std::string_view name, cl_mem src, std::size_t offset, std::size_t bytes, void* host);
  // Device -> device copy (category kernel).
  void copy(std::string_view name, cl_mem src, std::size_t src_offset, cl_mem dst,
            std::size_t dst_offset, std::size_t bytes);
  // A library routine that enqueues several commands and returns the event of the last one:
  // `enqueue` gets a cl_event* to fill and throws on failure. A marker enqueued before it
  // supplies the start, so the recorded interval covers all of the routine's commands.
  template <class Enqueue>
  void library_call(const CommandInfo& info, Enqueue&& enqueue) {
    cl_event start = marker();
    cl_event last = nullptr;
    try {
      enqueue(&last);
    } catch (...) {
      clReleaseEvent(start);
      if (last) clReleaseEvent(last);
      throw;
    }
    record(info, start, last);
  }
  // Waits for everything queued.
  void finish();

 private:
  // THE hook: every command ends here with its first and last event (the same event for a
  // single command). Takes ownership of both references.
  void record(const CommandInfo& info, cl_event first, cl_event last);
  cl_event marker();
  // Frees staging blocks of uploads that completed; with `all`, of every upload (after a wait).
  void reap_staging(bool all);

  struct Staging {
    cl_event done;
    std::vector<unsigned char> bytes;
  };
  cl_command_queue queue_;
  std::deque<Staging> staging_;
  std::size_t staging_bytes_ = 0;
};

}  // namespace ts::ocl
