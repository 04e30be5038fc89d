// GEMM through CLBlast (row-major), with f16 operands handled as the device allows:
// native half GEMM when the device has cl_khr_fp16 and A, B, C are all F16; otherwise f16
// operands are converted into cached f32 scratch buffers, multiplied with SGEMM and C converted
// back.
#pragma once

#include <cstdint>
#include <memory>

#include "engine/backend/opencl/cl_buffer.hpp"
#include "engine/backend/opencl/cl_enqueue.hpp"
#include "engine/backend/opencl/cl_kernel_runner.hpp"
#include "engine/core/tensor.hpp"

namespace ts::ocl {

class GemmRunner {
 public:
  // `memory` (may be null) counts the scratch buffers' device memory.
  GemmRunner(cl_context context, cl_command_queue queue, CommandQueue& commands,
             KernelRunner& kernels, bool native_fp16,
             std::shared_ptr<DeviceMemoryCounter> memory = nullptr);

  // C[m,n] = alpha * op(A)[m,k] * op(B)[k,n] + beta * C[m,n] (see Backend::gemm).
  // a: [m,k] or [k,m] (trans_a); b: [k,n] or [n,k] (trans_b); c: [m,n]. F32 or F16 each.
  void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
            const Tensor& a, const Tensor& b, float beta, const Tensor& c);

  // Makes CLBlast compile its GEMM kernels now (a tiny GEMM for NN, NT and TN, plus the f16
  // variant on fp16 devices), so no training step pays for it. Waits; returns seconds taken.
  double warm_up();

 private:
  struct Operand {
    cl_mem mem;
    std::size_t offset;  // elements
  };
  template <class T>
  void clblast_gemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k,
                    T alpha, Operand a, Operand b, T beta, Operand c);
  // An f32 view of `t`'s first `count` elements: t itself when F32, else a converted copy in
  // `scratch`.
  Operand as_f32(const Tensor& t, std::size_t count, ScratchBuffer& scratch, bool convert);

  cl_context context_;
  cl_command_queue queue_;
  CommandQueue& commands_;
  KernelRunner& kernels_;
  bool native_fp16_;
  ScratchBuffer a32_, b32_, c32_, temp_;
};

}  // namespace ts::ocl
