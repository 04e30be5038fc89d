// The OpenCL Backend implementation class (internal; users call make_opencl_backend).
#pragma once

#include <string>

#include "engine/backend/backend.hpp"
#include "engine/backend/opencl/cl_buffer.hpp"
#include "engine/backend/opencl/cl_context.hpp"
#include "engine/backend/opencl/cl_enqueue.hpp"
#include "engine/backend/opencl/cl_gemm.hpp"
#include "engine/backend/opencl/cl_kernel_runner.hpp"
#include "engine/backend/opencl/cl_program_cache.hpp"

namespace ts::ocl {

class OpenClBackend final : public Backend {
 public:
  // Creates context and queue on the device and warms up CLBlast's GEMM; throws BackendError.
  OpenClBackend(const DeviceHandle& handle, DeviceInfo info);
  ~OpenClBackend() override;

  // Seconds the CLBlast warm-up took when the backend was created.
  double gemm_warm_up_seconds() const { return gemm_warm_up_s_; }

  std::string kind() const override { return "opencl"; }
  std::string device_name() const override { return ctx_.info().name; }
  bool native_fp16() const override { return ctx_.info().fp16; }

  Tensor alloc(const Shape& shape, DType dtype) override;
  void upload(const Tensor& dst, const void* host) override;
  void download(const Tensor& src, void* host) override;
  void copy(const Tensor& src, const Tensor& dst) override;
  void fill(const Tensor& t, float value) override;
  void finish() override;

  void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
            const Tensor& a, const Tensor& b, float beta, const Tensor& c) override;
  void bias_add(const Tensor& y, const Tensor& bias) override;
  void bias_grad(const Tensor& dy, const Tensor& grad_bias, bool accumulate) override;

  void relu(const Tensor& x, const Tensor& y) override;
  void relu_backward(const Tensor& y, const Tensor& dy, const Tensor& dx) override;
  void softmax_xent(const Tensor& logits, const Tensor& labels, const Tensor& probs,
                    const Tensor& loss, const Tensor& correct) override;
  void softmax_xent_backward(const Tensor& probs, const Tensor& labels, float scale,
                             const Tensor& dlogits) override;
  void softmax(const Tensor& x, const Tensor& y) override;

  void im2col(const Conv2DGeometry& g, const Tensor& x, const Tensor& cols) override;
  void col2im(const Conv2DGeometry& g, const Tensor& dcols, const Tensor& dx) override;
  void maxpool(const Pool2DGeometry& g, const Tensor& x, const Tensor& y,
               const Tensor& argmax) override;
  void maxpool_backward(const Pool2DGeometry& g, const Tensor& dy, const Tensor& argmax,
                        const Tensor& dx) override;

  void dropout(const Tensor& x, float rate, std::uint32_t seed, const Tensor& mask,
               const Tensor& y) override;
  void dropout_backward(const Tensor& dy, const Tensor& mask, const Tensor& dx) override;

  void sum(const Tensor& x, const Tensor& out) override;
  void scale_and_check_finite(const Tensor& x, float factor, const Tensor& flag) override;

  void sgd_update(const Tensor& param, const Tensor& grad, const Tensor& velocity,
                  float learning_rate, float momentum) override;
  void adam_update(const Tensor& param, const Tensor& grad, const Tensor& m, const Tensor& v,
                   const AdamConfig& config, std::int64_t step) override;

 private:
  cl_mem mem(const Tensor& t) const { return mem_of(t, ctx_.context()); }
  // Sets n elements of t starting at element `start` to a raw bit pattern.
  void fill_bits(const Tensor& t, std::uint64_t start, std::uint64_t n, std::uint32_t bits);

  // Declaration order is destruction order reversed: the context outlives everything on it.
  ClContext ctx_;
  CommandQueue commands_;
  ProgramCache programs_;
  KernelRunner kernels_;
  GemmRunner gemm_;
  ScratchBuffer partials_;  // sum's per-group partial sums
  double gemm_warm_up_s_ = 0.0;
};

}  // namespace ts::ocl
