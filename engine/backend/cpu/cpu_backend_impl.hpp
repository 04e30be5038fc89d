// The CPU backend class (private to engine/backend/cpu; users call make_cpu_backend).
// cpu_backend.cpp: identity, memory, copies and tensor checks; cpu_backend_ops.cpp: argument
// checks and dispatch of every numeric op to the kernels in cpu_kernels.hpp / cpu_gemm.hpp.
// Work runs synchronously on the calling thread, with the backend's own pool helping on large
// ops; a backend is not safe to call from two threads at once.
#pragma once

#include <string>

#include "engine/backend/backend.hpp"
#include "engine/backend/cpu/cpu_gemm.hpp"
#include "engine/backend/cpu/cpu_thread_pool.hpp"
#include "engine/backend/cpu/cpu_view.hpp"

namespace ts::cpu {

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(int threads);

  std::string kind() const override { return "cpu"; }
  std::string device_name() const override;
  bool native_fp16() const override { return false; }  // F16 is storage only; math is f32

  Tensor alloc(const Shape& shape, DType dtype) override;
  void upload(const Tensor& dst, const void* host) override;
  void download(const Tensor& src, void* host) override;
  void copy(const Tensor& src, const Tensor& dst) override;
  void fill(const Tensor& t, float value) override;
  void finish() override;  // nothing to wait for: ops are synchronous (an empty `sync` zone)
  float* host_data(const Tensor& t) override;  // every F32 tensor: buffers are host memory

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

  int threads() const { return pool_.threads(); }
  // The device_queue track "CPU compute" every op is recorded on (cpu_trace.hpp).
  std::uint32_t trace_track() const { return track_; }

 private:
  // Checked access (throws std::invalid_argument naming op and argument): t must be a tensor
  // allocated by this backend that lies within its buffer.
  View view(const Tensor& t, const char* op, const char* arg) const;
  // view() that also requires F32 or F16 storage / exactly `dtype`.
  View storage(const Tensor& t, const char* op, const char* arg) const;
  View typed(const Tensor& t, DType dtype, const char* op, const char* arg) const;

  ThreadPool pool_;
  Gemm gemm_;
  std::uint32_t track_;
};

// Throws std::invalid_argument("cpu backend: <op>: <problem>").
[[noreturn]] void fail(const char* op, const std::string& problem);
// fail() unless `ok`.
inline void require(bool ok, const char* op, const char* problem) {
  if (!ok) fail(op, problem);
}

}  // namespace ts::cpu
