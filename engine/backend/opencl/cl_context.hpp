// One device's context and its in-order, profiling-enabled command queue.
#pragma once

#include "engine/backend/factory.hpp"
#include "engine/backend/opencl/cl_api.hpp"
#include "engine/backend/opencl/cl_device.hpp"

namespace ts::ocl {

class ClContext {
 public:
  // Creates the context and queue on `handle`'s device; throws BackendError on failure.
  ClContext(const DeviceHandle& handle, DeviceInfo info);
  ~ClContext();  // waits for the queue, then releases queue and context
  ClContext(const ClContext&) = delete;
  ClContext& operator=(const ClContext&) = delete;

  cl_context context() const { return context_; }
  cl_command_queue queue() const { return queue_; }
  cl_device_id device() const { return device_; }
  const DeviceInfo& info() const { return info_; }

 private:
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  DeviceInfo info_;
};

}  // namespace ts::ocl
