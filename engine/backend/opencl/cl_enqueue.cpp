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
  const cl_int status = clFinish(queue_);
  if (status == CL_SUCCESS) trace_.harvest(true);
  reap_staging(true);
}

void CommandQueue::launch(const CommandInfo& info, cl_kernel kernel, cl_uint dims,
                          const std::size_t* global, const std::size_t* local) {
  CommandToken token = trace_.begin();
  cl_event event = nullptr;
  {
    TS_ZONE_VAR(zone, "enqueue kernel", launch);
    TS_ZONE_CORRELATION(zone, token.correlation);
    QueueTrace::stamp(token);
    check_cl(clEnqueueNDRangeKernel(queue_, kernel, dims, nullptr, global, local, 0, nullptr,
                                    QueueTrace::records(token) ? &event : nullptr),
             "cannot launch OpenCL kernel '" + std::string(info.name) + "'");
  }
  record(info, event, event, token);
}

void CommandQueue::write(std::string_view name, cl_mem dst, std::size_t offset, std::size_t bytes,
                         const void* host) {
  enqueue_write(name, dst, offset, bytes, host, false);
}

cl_event CommandQueue::write_retained(std::string_view name, cl_mem dst, std::size_t offset,
                                      std::size_t bytes, const void* host) {
  return enqueue_write(name, dst, offset, bytes, host, true);
}

cl_event CommandQueue::enqueue_write(std::string_view name, cl_mem dst, std::size_t offset,
                                     std::size_t bytes, const void* host, bool retain) {
  if (bytes == 0) return nullptr;
  reap_staging(false);
  Staging block{nullptr, {}};
  {
    // Host work done for the copy: category h2d on the calling thread; the device interval of
    // the copy is its device event.
    TS_ZONE_ARGS("stage upload", h2d, bytes, ts::trace::kCurrentStep);
    block.bytes.resize(bytes);
    std::memcpy(block.bytes.data(), host, bytes);
  }
  CommandToken token = trace_.begin();
  cl_event event = nullptr;
  {
    TS_ZONE_VAR(zone, "enqueue upload", launch);
    TS_ZONE_CORRELATION(zone, token.correlation);
    QueueTrace::stamp(token);
    TS_ZONE_BYTES(zone, bytes);
    check_cl(clEnqueueWriteBuffer(queue_, dst, CL_FALSE, offset, bytes, block.bytes.data(), 0,
                                  nullptr, &event),
             "cannot copy " + std::to_string(bytes) + " bytes to the OpenCL device");
    clFlush(queue_);
  }
  clRetainEvent(event);              // one reference for the staging block, one for record()
  if (retain) clRetainEvent(event);  // and one for the caller
  block.done = event;
  staging_bytes_ += bytes;
  staging_.push_back(std::move(block));
  record({CommandCategory::h2d, name, bytes, 0}, event, event, token);
  return retain ? event : nullptr;
}

void CommandQueue::read(std::string_view name, cl_mem src, std::size_t offset, std::size_t bytes,
                        void* host) {
  if (bytes == 0) return;
  CommandToken token = trace_.begin();
  cl_event event = nullptr;
  {
    TS_ZONE_VAR(zone, "enqueue download", launch);
    TS_ZONE_CORRELATION(zone, token.correlation);
    QueueTrace::stamp(token);
    TS_ZONE_BYTES(zone, bytes);
    // Non-blocking, then waited for below: the host's enqueue and its wait are told apart.
    check_cl(clEnqueueReadBuffer(queue_, src, CL_FALSE, offset, bytes, host, 0, nullptr, &event),
             "cannot copy " + std::to_string(bytes) + " bytes from the OpenCL device");
  }
  clRetainEvent(event);  // record() takes one reference, the wait below uses the other
  record({CommandCategory::d2h, name, bytes, 0}, event, event, token);
  cl_int status = CL_SUCCESS;
  std::int64_t observed = 0;
  {
    TS_ZONE("wait for download", sync);
    status = clWaitForEvents(1, &event);
    observed = QueueTrace::observe();
  }
  clReleaseEvent(event);
  check_cl(status, "copying " + std::to_string(bytes) + " bytes from the OpenCL device failed");
  trace_.harvest(true, observed);  // the read waited for every earlier command
  reap_staging(true);
}

void CommandQueue::copy(std::string_view name, cl_mem src, std::size_t src_offset, cl_mem dst,
                        std::size_t dst_offset, std::size_t bytes) {
  if (bytes == 0) return;
  CommandToken token = trace_.begin();
  cl_event event = nullptr;
  {
    TS_ZONE_VAR(zone, "enqueue copy", launch);
    TS_ZONE_CORRELATION(zone, token.correlation);
    QueueTrace::stamp(token);
    check_cl(clEnqueueCopyBuffer(queue_, src, dst, src_offset, dst_offset, bytes, 0, nullptr,
                                 QueueTrace::records(token) ? &event : nullptr),
             "cannot copy " + std::to_string(bytes) + " bytes on the OpenCL device");
  }
  record({CommandCategory::kernel, name, bytes, 0}, event, event, token);
}

void CommandQueue::wait_on_device(cl_event event) {
  TS_ZONE("enqueue wait for upload", launch);
  check_cl(clEnqueueBarrierWithWaitList(queue_, 1, &event, nullptr),
           "cannot make the OpenCL compute queue wait for an upload");
}

cl_event CommandQueue::marker() {
  cl_event event = nullptr;
  check_cl(clEnqueueMarkerWithWaitList(queue_, 0, nullptr, &event),
           "cannot enqueue an OpenCL marker");
  return event;
}

void CommandQueue::finish() {
  cl_int status = CL_SUCCESS;
  std::int64_t observed = 0;
  {
    TS_ZONE("wait for device", sync);
    status = clFinish(queue_);
    observed = QueueTrace::observe();
  }
  check_cl(status, "waiting for the OpenCL device failed");
  trace_.harvest(true, observed);
  reap_staging(true);
}

void CommandQueue::reap_staging(bool all) {
  while (!staging_.empty()) {
    Staging& oldest = staging_.front();
    if (!all && !event_done(oldest.done)) {
      // Past the limit the oldest uploads are waited for, bounding the memory they hold.
      if (staging_bytes_ <= kMaxStagingBytes) break;
      TS_ZONE("wait for staging memory", sync);
      clWaitForEvents(1, &oldest.done);
    }
    clReleaseEvent(oldest.done);
    staging_bytes_ -= oldest.bytes.size();
    staging_.pop_front();
  }
}

}  // namespace ts::ocl
