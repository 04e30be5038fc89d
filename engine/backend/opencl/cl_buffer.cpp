#include "engine/backend/opencl/cl_buffer.hpp"

#include <string>

#include "engine/backend/factory.hpp"

namespace ts::ocl {

ClBuffer::ClBuffer(cl_context context, std::size_t bytes,
                   std::shared_ptr<DeviceMemoryCounter> memory)
    : Buffer(bytes), context_(context) {
  cl_int err = CL_SUCCESS;
  mem_ = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes ? bytes : 1, nullptr, &err);
  check_cl(err, "cannot allocate " + std::to_string(bytes) + " bytes of OpenCL device memory");
  memory_ = std::move(memory);  // counted only once the allocation succeeded
  if (memory_) memory_->add(static_cast<std::int64_t>(bytes));
}

// Commands still using the buffer keep it alive: OpenCL frees it once they complete.
ClBuffer::~ClBuffer() {
  clReleaseMemObject(mem_);
  if (memory_) memory_->add(-static_cast<std::int64_t>(bytes()));
}

cl_mem mem_of(const Tensor& t, cl_context context) {
  const auto* buffer = dynamic_cast<const ClBuffer*>(t.buffer.get());
  if (!buffer || buffer->context() != context)
    throw BackendError("tensor " + t.shape.str() + " is not in this OpenCL backend's memory");
  if (t.numel() < 0 || t.byte_offset() + t.bytes() > buffer->bytes())
    throw BackendError("tensor " + t.shape.str() + " at element " + std::to_string(t.offset) +
                       " lies outside its " + std::to_string(buffer->bytes()) + "-byte buffer");
  return buffer->mem();
}

cl_mem ScratchBuffer::get(std::size_t bytes) {
  if (!buffer_ || buffer_->bytes() < bytes) {
    buffer_.reset();
    buffer_ = std::make_unique<ClBuffer>(context_, bytes, memory_);
  }
  return buffer_->mem();
}

}  // namespace ts::ocl
