#include "engine/backend/opencl/cl_enqueue.hpp"

#include <cstring>
#include <string>

namespace ts::ocl {

namespace {

// Pending uploads may hold at most this much staging memory; past it, the oldest are waited for.
constexpr std::size_t kMaxStagingBytes = std::size_t{256} << 20;

bool event_done(cl_event event) {
  cl_int status = CL_QUEUED;
  if (clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, nullptr) !=
      CL_SUCCESS)
    return true;  // treat an unreadable event as finished rather than leak forever
  return status == CL_COMPLETE || status < 0;
}

}  // namespace

CommandQueue::~CommandQueue() {
  clFinish(queue_);
  reap_staging(true);
}

void CommandQueue::record(const CommandInfo& info, cl_event first, cl_event last) {
  (void)info;
  if (first && first != last) clReleaseEvent(first);
  if (last) clReleaseEvent(last);
}

void CommandQueue::launch(const CommandInfo& info, cl_kernel kernel, cl_uint dims,
                          const std::size_t* global, const std::size_t* local) {
  cl_event event = nullptr;
  check_cl(clEnqueueNDRangeKernel(queue_, kernel, dims, nullptr, global, local, 0, nullptr, &event),
           "cannot launch OpenCL kernel '" + std::string(info.name) + "'");
  record(info, event, event);
}

void CommandQueue::write(std::string_view name, cl_mem dst, std::size_t offset, std::size_t bytes,
                         const void* host) {
  if (bytes == 0) return;
  reap_staging(false);
  Staging block{nullptr, std::vector<unsigned char>(bytes)};
  std::memcpy(block.bytes.data(), host, bytes);
  cl_event event = nullptr;
  check_cl(clEnqueueWriteBuffer(queue_, dst, CL_FALSE, offset, bytes, block.bytes.data(), 0,
                                nullptr, &event),
           "cannot copy " + std::to_string(bytes) + " bytes to the OpenCL device");
  clRetainEvent(event);  // one reference for the staging block, one for record()
  block.done = event;
  staging_bytes_ += bytes;
  staging_.push_back(std::move(block));
  record({CommandCategory::h2d, name, bytes, 0}, event, event);
  clFlush(queue_);
}

void CommandQueue::read(std::string_view name, cl_mem src, std::size_t offset, std::size_t bytes,
                        void* host) {
  if (bytes == 0) return;
  cl_event event = nullptr;
  check_cl(clEnqueueReadBuffer(queue_, src, CL_TRUE, offset, bytes, host, 0, nullptr, &event),
           "cannot copy " + std::to_string(bytes) + " bytes from the OpenCL device");
  record({CommandCategory::d2h, name, bytes, 0}, event, event);
  reap_staging(true);  // the blocking read waited for every earlier upload
}

void CommandQueue::copy(std::string_view name, cl_mem src, std::size_t src_offset, cl_mem dst,
                        std::size_t dst_offset, std::size_t bytes) {
  if (bytes == 0) return;
  cl_event event = nullptr;
  check_cl(clEnqueueCopyBuffer(queue_, src, dst, src_offset, dst_offset, bytes, 0, nullptr, &event),
           "cannot copy " + std::to_string(bytes) + " bytes on the OpenCL device");
  record({CommandCategory::kernel, name, bytes, 0}, event, event);
}

cl_event CommandQueue::marker() {
  cl_event event = nullptr;
  check_cl(clEnqueueMarkerWithWaitList(queue_, 0, nullptr, &event),
           "cannot enqueue an OpenCL marker");
  return event;
}

void CommandQueue::finish() {
  check_cl(clFinish(queue_), "waiting for the OpenCL device failed");
  reap_staging(true);
}

void CommandQueue::reap_staging(bool all) {
  // Past the limit the oldest uploads are waited for, bounding the memory they hold.
  while (!staging_.empty() &&
         (all || staging_bytes_ > kMaxStagingBytes || event_done(staging_.front().done))) {
    if (!all) clWaitForEvents(1, &staging_.front().done);
    clReleaseEvent(staging_.front().done);
    staging_bytes_ -= staging_.front().bytes.size();
    staging_.pop_front();
  }
}

}  // namespace ts::ocl
