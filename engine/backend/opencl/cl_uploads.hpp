// Prefetch to device: host -> device copies on the copy queue, and the device-side waits that
// order compute after them (Backend::upload_async / wait_upload).
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "engine/backend/backend.hpp"
#include "engine/backend/opencl/cl_enqueue.hpp"

namespace ts::ocl {

class AsyncUploads {
 public:
  // Tickets never waited for are pruned once complete past this many outstanding ones.
  static constexpr std::size_t kMaxOutstanding = 256;

  AsyncUploads(CommandQueue& copy, CommandQueue& compute) : copy_(copy), compute_(compute) {}
  ~AsyncUploads();  // releases the events of tickets never waited for
  AsyncUploads(const AsyncUploads&) = delete;
  AsyncUploads& operator=(const AsyncUploads&) = delete;

  // Stages `bytes` from host and enqueues their copy on the copy queue; returns at once.
  UploadTicket start(cl_mem dst, std::size_t offset, std::size_t bytes, const void* host);
  // Compute commands enqueued from now on wait (on the device) for the ticket's copy. Tickets
  // already waited for, or pruned because complete, and id 0 need no wait.
  void wait(UploadTicket ticket);

  std::size_t outstanding() const { return tickets_.size(); }

 private:
  void prune_complete();

  CommandQueue& copy_;
  CommandQueue& compute_;
  std::unordered_map<std::uint64_t, cl_event> tickets_;
  std::uint64_t next_id_ = 1;
};

}  // namespace ts::ocl
