// One device's context and its two in-order, profiling-enabled command queues: compute (every
// kernel and ordinary copy) and copy (uploads that run alongside compute, Backend::upload_async).
#pragma once

#include "engine/backend/factory.hpp"
#include "engine/backend/opencl/cl_api.hpp"
#include "engine/backend/opencl/cl_device.hpp"

namespace ts::ocl {

class ClContext {
 public:
  // Creates the context and queues on `handle`'s device; throws BackendError on failure.
  ClContext(const DeviceHandle& handle, DeviceInfo info);
  ~ClContext();  // waits for the queues, then releases queues and context
  ClContext(const ClContext&) = delete;
  ClContext& operator=(const ClContext&) = delete;

  cl_context context() const { return context_; }
  cl_command_queue queue() const { return queue_; }
  cl_command_queue copy_queue() const { return copy_queue_; }
  cl_device_id device() const { return device_; }
  const DeviceInfo& info() const { return info_; }

 private:
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_command_queue copy_queue_ = nullptr;
  DeviceInfo info_;
};

}  // namespace ts::ocl
