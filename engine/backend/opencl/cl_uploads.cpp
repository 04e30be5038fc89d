#include "engine/backend/opencl/cl_uploads.hpp"

namespace ts::ocl {

AsyncUploads::~AsyncUploads() {
  for (const auto& [id, event] : tickets_) clReleaseEvent(event);
}

UploadTicket AsyncUploads::start(cl_mem dst, std::size_t offset, std::size_t bytes,
                                 const void* host) {
  if (tickets_.size() >= kMaxOutstanding) prune_complete();
  cl_event event = copy_.write_retained("upload_async", dst, offset, bytes, host);
  if (event == nullptr) return {};  // nothing to copy
  const std::uint64_t id = next_id_++;
  tickets_.emplace(id, event);
  return {id};
}

void AsyncUploads::wait(UploadTicket ticket) {
  copy_.poll();
  const auto it = tickets_.find(ticket.id);
  if (it == tickets_.end()) return;
  // The barrier holds its own reference to the event: ours can go now.
  const cl_event event = it->second;
  tickets_.erase(it);
  try {
    compute_.wait_on_device(event);
  } catch (...) {
    clReleaseEvent(event);
    throw;
  }
  clReleaseEvent(event);
}

// A copy the host has seen complete needs no device-side wait any more.
void AsyncUploads::prune_complete() {
  for (auto it = tickets_.begin(); it != tickets_.end();) {
    cl_int status = CL_QUEUED;
    clGetEventInfo(it->second, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, nullptr);
    if (status == CL_COMPLETE) {
      clReleaseEvent(it->second);
      it = tickets_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace ts::ocl
