// The OpenCL Backend implementation class (internal; users call make_opencl_backend).
#pragma once

#include <memory>
#include <string>

#include "engine/backend/backend.hpp"
#include "engine/backend/opencl/cl_buffer.hpp"
#include "engine/backend/opencl/cl_clock.hpp"
#include "engine/backend/opencl/cl_context.hpp"
#include "engine/backend/opencl/cl_enqueue.hpp"
#include "engine/backend/opencl/cl_gemm.hpp"
#include "engine/backend/opencl/cl_kernel_runner.hpp"
#include "engine/backend/opencl/cl_memory_counter.hpp"
#include "engine/backend/opencl/cl_program_cache.hpp"
#include "engine/backend/opencl/cl_uploads.hpp"

namespace ts::ocl {

class OpenClBackend final : public Backend {
 public:
  // Creates context and queues on the device, registers its trace tracks ("<device> compute",
  // "<device> copy", counter "device memory <device>") and meta keys device.opencl.*, and
  // warms up CLBlast's GEMM; throws BackendError.
  OpenClBackend(const DeviceHandle& handle, DeviceInfo info);
  ~OpenClBackend() override;  // waits for both queues

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

  UploadTicket upload_async(const Tensor& dst, const void* host) override;
  void wait_upload(UploadTicket ticket) override;

  // For tests: the trace tracks of the two queues and the device memory counter.
  std::uint32_t compute_track() const { return commands_.track(); }
  std::uint32_t copy_track() const { return copies_.track(); }
  std::int64_t device_memory_bytes() const { return memory_->bytes(); }
  std::size_t pending_trace_records() const {
    return commands_.pending_records() + copies_.pending_records();
  }

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

  // Declaration order is destruction order reversed: the context outlives everything on it,
  // and the clock and memory counter outlive the queues whose last events they convert/count.
  ClContext ctx_;
  std::shared_ptr<DeviceMemoryCounter> memory_;
  DeviceClock clock_;
  CommandQueue commands_;
  CommandQueue copies_;  // the copy queue: upload_async only
  AsyncUploads uploads_;
  ProgramCache programs_;
  KernelRunner kernels_;
  GemmRunner gemm_;
  ScratchBuffer partials_;  // sum's per-group partial sums
  double gemm_warm_up_s_ = 0.0;
};

}  // namespace ts::ocl
