// GEMM through CLBlast (row-major), with f16 operands handled as the device allows:
// native half GEMM when the device has cl_khr_fp16 and A, B, C are all F16; otherwise f16
// operands are converted into cached f32 scratch buffers, multiplied with SGEMM and C converted
// back. An SGEMM whose k is long and whose m x n is too small to occupy the device is split
// along k (reduction_split.hpp): a batched GEMM of the slices into a scratch buffer, then a sum.
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
             KernelRunner& kernels, bool native_fp16, std::size_t compute_units,
             std::shared_ptr<DeviceMemoryCounter> memory = nullptr);

  // C[m,n] = alpha * op(A)[m,k] * op(B)[k,n] + beta * C[m,n] (see Backend::gemm).
  // a: [m,k] or [k,m] (trans_a); b: [k,n] or [n,k] (trans_b); c: [m,n]. F32 or F16 each.
  void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
            const Tensor& a, const Tensor& b, float beta, const Tensor& c);

  // Makes CLBlast compile its GEMM kernels now (a tiny GEMM for NN, NT and TN, a split TN, plus
  // the f16 variant on fp16 devices), so no training step pays for it. Waits; returns seconds
  // taken.
  double warm_up();

 private:
  struct Operand {
    cl_mem mem;
    std::size_t offset;  // elements
  };
  // `ld_k`: the k of the matrices A and B are part of (their leading dimensions); 0: k.
  template <class T>
  void clblast_gemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k,
                    T alpha, Operand a, Operand b, T beta, Operand c, std::size_t ld_k = 0);
  // The f32 GEMM, split along k when that gives the device more work to run at once.
  void sgemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, float alpha,
             Operand a, Operand b, float beta, Operand c);
  // That GEMM as `slices` equal slices of k (and its rest) summed into C; k >= slices.
  void split_k_gemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k,
                    std::size_t slices, float alpha, Operand a, Operand b, float beta, Operand c);
  // An f32 view of `t`'s first `count` elements: t itself when F32, else a converted copy in
  // `scratch`.
  Operand as_f32(const Tensor& t, std::size_t count, ScratchBuffer& scratch, bool convert);

  cl_context context_;
  cl_command_queue queue_;
  CommandQueue& commands_;
  KernelRunner& kernels_;
  bool native_fp16_;
  std::size_t compute_units_;
  ScratchBuffer a32_, b32_, c32_, temp_, slices_;
};

}  // namespace ts::ocl
