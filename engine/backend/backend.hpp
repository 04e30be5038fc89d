// The Backend interface: memory, copies and every numeric operation the engine needs.
//
// Conventions (both backends implement exactly these semantics; tests/engine/backend checks
// the OpenCL backend against the CPU backend op by op):
// - Tensors are row-major and contiguous from tensor.offset. Images are NHWC.
// - "Storage" tensors (activations, their gradients, layer inputs) may be F32 or F16; every op
//   computes in f32 and rounds to f16 on store when the output is F16. Parameters, parameter
//   gradients, optimizer state, losses and reductions are always F32. Labels and indices are I32.
// - Operations are enqueued in order; a backend may run them asynchronously. download() and
//   finish() are the only calls that wait for queued work.
// - Shapes are checked by the caller (the layers); backends may assume valid arguments but must
//   never read or write outside the tensors passed in.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/core/tensor.hpp"

namespace ts {

struct Conv2DGeometry {
  std::int64_t batch, in_h, in_w, in_c;  // input  [batch, in_h, in_w, in_c]
  std::int64_t kernel_h, kernel_w;       // kernel window
  std::int64_t stride, pad;              // same stride and zero padding on both axes
  std::int64_t out_h() const { return (in_h + 2 * pad - kernel_h) / stride + 1; }
  std::int64_t out_w() const { return (in_w + 2 * pad - kernel_w) / stride + 1; }
  // Rows and columns of the im2col matrix: [batch*out_h*out_w, kernel_h*kernel_w*in_c].
  std::int64_t col_rows() const { return batch * out_h() * out_w(); }
  std::int64_t col_cols() const { return kernel_h * kernel_w * in_c; }
};

struct Pool2DGeometry {
  std::int64_t batch, in_h, in_w, channels;  // input [batch, in_h, in_w, channels]
  std::int64_t pool;                         // window = stride = pool (non-overlapping)
  std::int64_t out_h() const { return in_h / pool; }
  std::int64_t out_w() const { return in_w / pool; }
};

// Identifies one upload_async copy; 0 means "already complete".
struct UploadTicket {
  std::uint64_t id = 0;
};

struct AdamConfig {
  float learning_rate = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-7f;
};

class Backend {
 public:
  virtual ~Backend() = default;

  // ---- identity --------------------------------------------------------------------------
  virtual std::string kind() const = 0;         // "cpu" or "opencl"
  virtual std::string device_name() const = 0;  // e.g. "Eigen (2 threads)" or the CL device name
  virtual bool native_fp16() const = 0;         // f16 arithmetic available (cl_khr_fp16)

  // ---- memory and copies -----------------------------------------------------------------
  // Uninitialised tensor of the given shape and type.
  virtual Tensor alloc(const Shape& shape, DType dtype) = 0;
  // Host -> device: copies dst.bytes() bytes from host (already in dst.dtype's layout).
  virtual void upload(const Tensor& dst, const void* host) = 0;
  // Device -> host: copies src.bytes() bytes into host; waits for queued work.
  virtual void download(const Tensor& src, void* host) = 0;
  // dst = src element-wise; same numel; converts between F32 and F16 when dtypes differ.
  virtual void copy(const Tensor& src, const Tensor& dst) = 0;
  // t[i] = value (F32/F16: value rounded; I32: truncated).
  virtual void fill(const Tensor& t, float value) = 0;
  // Waits until all queued work is done.
  virtual void finish() = 0;
  // The host memory of an F32 tensor when the backend's buffers are host memory and its ops are
  // done when they return (the CPU backend): the caller may read and write it in place between
  // ops, with no copy (data parallelism reduces gradients there). Null otherwise: a device's
  // memory is reached with download() and upload().
  virtual float* host_data(const Tensor& t) {
    (void)t;
    return nullptr;
  }

  // ---- copy queue (prefetch to device) ---------------------------------------------------
  // Host -> device on a copy queue that runs alongside compute, returning at once: the host
  // bytes are staged, so `host` may be reused immediately. The caller guarantees that no queued
  // compute work still reads or writes dst (e.g. it has since waited with download/finish).
  // The default is a plain upload() and a completed ticket (backends without a copy queue).
  virtual UploadTicket upload_async(const Tensor& dst, const void* host) {
    upload(dst, host);
    return {};
  }
  // Makes compute work enqueued after this call wait for the ticket's copy; the host does not
  // block. A completed ticket (id 0) is a no-op.
  virtual void wait_upload(UploadTicket ticket) { (void)ticket; }

  // ---- linear algebra --------------------------------------------------------------------
  // C[m,n] = alpha * op(A)[m,k] * op(B)[k,n] + beta * C[m,n], row-major.
  // op(A) = A ([m,k]) or A^T (A stored [k,m]) when trans_a; likewise B ([k,n] or [n,k]).
  // A, B, C may each be F32 or F16 storage; accumulation is f32, except that a backend whose
  // device has f16 arithmetic (native_fp16()) may run an all-F16 GEMM in f16 (CLBlast's HGEMM):
  // that is what "f16 arithmetic" means under mixed precision. beta == 0 ignores C's contents.
  virtual void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
                    float alpha, const Tensor& a, const Tensor& b, float beta, const Tensor& c) = 0;

  // y[r, c] += bias[c] for y viewed as [rows, cols] with cols = bias.numel(). y: F32/F16.
  virtual void bias_add(const Tensor& y, const Tensor& bias) = 0;
  // grad_bias[c] (+)= sum_r dy[r, c]; dy viewed as [rows, cols], cols = grad_bias.numel().
  // accumulate == false overwrites grad_bias. grad_bias: F32.
  virtual void bias_grad(const Tensor& dy, const Tensor& grad_bias, bool accumulate) = 0;

  // ---- activations -----------------------------------------------------------------------
  // y = max(x, 0). Same numel; x and y may alias.
  virtual void relu(const Tensor& x, const Tensor& y) = 0;
  // dx = dy * (y > 0). Uses the forward output y. dx may alias dy.
  virtual void relu_backward(const Tensor& y, const Tensor& dy, const Tensor& dx) = 0;

  // Softmax over the last axis fused with categorical cross-entropy.
  // logits [n, classes] (F32/F16); labels [n] I32 class indices; probs [n, classes] F32 out;
  // loss [n] F32 out: -log(max(probs[label], 1e-12)); correct [n] F32 out: 1 if argmax == label.
  virtual void softmax_xent(const Tensor& logits, const Tensor& labels, const Tensor& probs,
                            const Tensor& loss, const Tensor& correct) = 0;
  // dlogits[i, c] = scale * (probs[i, c] - (c == labels[i])). dlogits: F32/F16.
  // (scale is 1/batch times the loss scale under mixed precision.)
  virtual void softmax_xent_backward(const Tensor& probs, const Tensor& labels, float scale,
                                     const Tensor& dlogits) = 0;
  // Standalone softmax over the last axis: y [n, classes] F32 from x [n, classes] F32/F16.
  virtual void softmax(const Tensor& x, const Tensor& y) = 0;

  // ---- convolution and pooling (NHWC) ----------------------------------------------------
  // cols [g.col_rows(), g.col_cols()] from x [batch, in_h, in_w, in_c]; column order is
  // (kh, kw, c), zero where the window is in the padding. x and cols: F32/F16.
  virtual void im2col(const Conv2DGeometry& g, const Tensor& x, const Tensor& cols) = 0;
  // dx [batch, in_h, in_w, in_c] = sum over every cols entry that was copied from that pixel.
  // Overwrites dx (no atomics needed: each dx element gathers its own contributions).
  virtual void col2im(const Conv2DGeometry& g, const Tensor& dcols, const Tensor& dx) = 0;
  // y [batch, out_h, out_w, c] = max over each pool x pool window of x; argmax [same as y] I32
  // receives the flat index into x of the chosen element (first maximum wins).
  virtual void maxpool(const Pool2DGeometry& g, const Tensor& x, const Tensor& y,
                       const Tensor& argmax) = 0;
  // dx [batch, in_h, in_w, c] = dy at the argmax positions, 0 elsewhere (overwrites dx).
  virtual void maxpool_backward(const Pool2DGeometry& g, const Tensor& dy, const Tensor& argmax,
                                const Tensor& dx) = 0;

  // ---- dropout ---------------------------------------------------------------------------
  // keep[i] = hash_uniform(seed, i) >= rate (engine/core/rng.hpp); mask[i] = keep ? 1/(1-rate)
  // : 0 (F32); y = x * mask. x, y: F32/F16, may alias.
  virtual void dropout(const Tensor& x, float rate, std::uint32_t seed, const Tensor& mask,
                       const Tensor& y) = 0;
  // dx = dy * mask.
  virtual void dropout_backward(const Tensor& dy, const Tensor& mask, const Tensor& dx) = 0;

  // ---- reductions and scaling ------------------------------------------------------------
  // out[0] = sum of x (x: F32/F16 storage). out: F32 tensor with at least one element.
  virtual void sum(const Tensor& x, const Tensor& out) = 0;
  // x *= factor (F32); flag[0] (F32) = 1 if any element of x is inf/NaN after scaling, else 0.
  // Used for loss-scale unscaling of the gradient buffer under mixed precision.
  virtual void scale_and_check_finite(const Tensor& x, float factor, const Tensor& flag) = 0;

  // ---- optimizers (all F32, same numel) ---------------------------------------------------
  // velocity = momentum * velocity - lr * grad; param += velocity  (Keras SGD; momentum 0 is
  // plain SGD).
  virtual void sgd_update(const Tensor& param, const Tensor& grad, const Tensor& velocity,
                          float learning_rate, float momentum) = 0;
  // Keras/TF Adam at step t >= 1:
  //   m = b1*m + (1-b1)*g;  v = b2*v + (1-b2)*g^2
  //   lr_t = lr * sqrt(1-b2^t) / (1-b1^t);  param -= lr_t * m / (sqrt(v) + eps)
  virtual void adam_update(const Tensor& param, const Tensor& grad, const Tensor& m,
                           const Tensor& v, const AdamConfig& config, std::int64_t step) = 0;
};

}  // namespace ts
