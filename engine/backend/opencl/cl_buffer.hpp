// Device memory: a ts::Buffer owning one cl_mem, and access to a tensor's cl_mem.
#pragma once

#include <cstddef>
#include <memory>

#include "engine/backend/opencl/cl_api.hpp"
#include "engine/backend/opencl/cl_memory_counter.hpp"
#include "engine/core/tensor.hpp"

namespace ts::ocl {

class ClBuffer final : public Buffer {
 public:
  // Allocates `bytes` (at least 1) of device memory; throws BackendError on failure. `memory`
  // (may be null) counts the bytes until the buffer is released.
  ClBuffer(cl_context context, std::size_t bytes,
           std::shared_ptr<DeviceMemoryCounter> memory = nullptr);
  ~ClBuffer() override;
  cl_mem mem() const { return mem_; }
  cl_context context() const { return context_; }

 private:
  cl_context context_;
  cl_mem mem_ = nullptr;
  std::shared_ptr<DeviceMemoryCounter> memory_;
};

// The cl_mem behind `t`. Throws BackendError when t's buffer is not device memory of `context`
// or t's elements do not lie inside it.
cl_mem mem_of(const Tensor& t, cl_context context);

// A device buffer that grows on demand, for intermediate results (f32 copies of f16 GEMM
// operands, CLBlast's temporary buffer, reduction partials). The queue is in order, so one
// scratch buffer may serve consecutive commands.
class ScratchBuffer {
 public:
  explicit ScratchBuffer(cl_context context, std::shared_ptr<DeviceMemoryCounter> memory = nullptr)
      : context_(context), memory_(std::move(memory)) {}
  // A buffer of at least `bytes` bytes.
  cl_mem get(std::size_t bytes);

 private:
  cl_context context_;
  std::shared_ptr<DeviceMemoryCounter> memory_;
  std::unique_ptr<ClBuffer> buffer_;
};

}  // namespace ts::ocl
