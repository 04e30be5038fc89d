#include "engine/backend/opencl/cl_context.hpp"

namespace ts::ocl {

namespace {

cl_command_queue create_queue(cl_context context, cl_device_id device) {
  cl_int err = CL_SUCCESS;
  cl_command_queue queue = nullptr;
  if (device_version(device) >= 200) {
    const cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    queue = clCreateCommandQueueWithProperties(context, device, properties, &err);
  } else {  // OpenCL 1.x platforms do not have the 2.0 entry point
    queue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &err);
  }
  check_cl(err, "cannot create an OpenCL command queue");
  return queue;
}

}  // namespace

ClContext::ClContext(const DeviceHandle& handle, DeviceInfo info)
    : device_(handle.device), info_(std::move(info)) {
  const cl_context_properties properties[] = {
      CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(handle.platform), 0};
  cl_int err = CL_SUCCESS;
  context_ = clCreateContext(properties, 1, &device_, nullptr, nullptr, &err);
  check_cl(err, "cannot create an OpenCL context on '" + info_.name + "'");
  try {
    queue_ = create_queue(context_, device_);
    copy_queue_ = create_queue(context_, device_);
  } catch (...) {
    if (queue_) clReleaseCommandQueue(queue_);
    clReleaseContext(context_);
    throw;
  }
}

ClContext::~ClContext() {
  clFinish(copy_queue_);
  clFinish(queue_);
  clReleaseCommandQueue(copy_queue_);
  clReleaseCommandQueue(queue_);
  clReleaseContext(context_);
}

}  // namespace ts::ocl
