// CPU backend ops: argument checks (cheap, O(1) per call: the kernels then never touch memory
// outside the tensors passed in) and dispatch to the kernels.
#include <cmath>
#include <limits>

#include "engine/backend/cpu/cpu_backend_impl.hpp"
#include "engine/backend/cpu/cpu_kernels.hpp"
#include "engine/backend/cpu/cpu_trace.hpp"

namespace ts::cpu {
namespace {

// Last dimension of a [n, classes] tensor (1 for a scalar).
std::int64_t last_dim(const Tensor& t) {
  return t.shape.rank() == 0 ? 1 : t.shape.dims().back();
}

void check_conv(const Conv2DGeometry& g, const char* op) {
  require(g.batch >= 0 && g.in_h >= 0 && g.in_w >= 0 && g.in_c >= 0, op,
          "negative input dimension");
  require(g.kernel_h >= 1 && g.kernel_w >= 1 && g.stride >= 1 && g.pad >= 0, op,
          "kernel and stride must be >= 1 and pad >= 0");
  require(g.in_h + 2 * g.pad >= g.kernel_h && g.in_w + 2 * g.pad >= g.kernel_w, op,
          "kernel larger than the padded input");
}

void check_pool(const Pool2DGeometry& g, const char* op) {
  require(g.batch >= 0 && g.in_h >= 0 && g.in_w >= 0 && g.channels >= 0, op,
          "negative input dimension");
  require(g.pool >= 1, op, "pool must be >= 1");
  require(g.batch * g.in_h * g.in_w * g.channels <= std::numeric_limits<std::int32_t>::max(), op,
          "input too large for i32 argmax indices");
}

}  // namespace

// C[m,n] = alpha op(A)[m,k] op(B)[k,n] + beta C[m,n].
void CpuBackend::gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
                      float alpha, const Tensor& a, const Tensor& b, float beta, const Tensor& c) {
  const View va = storage(a, "gemm", "a"), vb = storage(b, "gemm", "b");
  const View vc = storage(c, "gemm", "c");
  require(m >= 0 && n >= 0 && k >= 0, "gemm", "negative size");
  require(va.numel >= m * k && vb.numel >= k * n && vc.numel >= m * n, "gemm",
          "a, b or c smaller than m*k, k*n, m*n");
  TS_CPU_OP(track_, "gemm", kernel, m * n, 0);
  gemm_.run(trans_a, trans_b, m, n, k, alpha, va, vb, beta, vc);
}

// y [rows, cols] += bias [cols].
void CpuBackend::bias_add(const Tensor& y, const Tensor& bias) {
  const View vy = storage(y, "bias_add", "y");
  const View vb = typed(bias, DType::F32, "bias_add", "bias");
  require(vb.numel > 0 && vy.numel % vb.numel == 0, "bias_add", "y.numel % bias.numel != 0");
  TS_CPU_OP(track_, "bias_add", kernel, vy.numel, 0);
  cpu::bias_add(vy, vb.f32(), vb.numel);
}

// grad_bias [cols] (+)= column sums of dy [rows, cols].
void CpuBackend::bias_grad(const Tensor& dy, const Tensor& grad_bias, bool accumulate) {
  const View vdy = storage(dy, "bias_grad", "dy");
  const View vg = typed(grad_bias, DType::F32, "bias_grad", "grad_bias");
  require(vg.numel > 0 && vdy.numel % vg.numel == 0, "bias_grad",
          "dy.numel % grad_bias.numel != 0");
  TS_CPU_OP(track_, "bias_grad", kernel, vdy.numel, 0);
  cpu::bias_grad(vdy, vg.f32(), vg.numel, accumulate);
}

// y [n] = max(x [n], 0).
void CpuBackend::relu(const Tensor& x, const Tensor& y) {
  const View vx = storage(x, "relu", "x"), vy = storage(y, "relu", "y");
  require(vx.numel == vy.numel, "relu", "x and y differ in numel");
  TS_CPU_OP(track_, "relu", kernel, vy.numel, 0);
  cpu::relu(vx, vy, pool_);
}

// dx [n] = dy [n] * (y [n] > 0).
void CpuBackend::relu_backward(const Tensor& y, const Tensor& dy, const Tensor& dx) {
  const View vy = storage(y, "relu_backward", "y"), vdy = storage(dy, "relu_backward", "dy");
  const View vdx = storage(dx, "relu_backward", "dx");
  require(vy.numel == vdy.numel && vy.numel == vdx.numel, "relu_backward",
          "y, dy and dx differ in numel");
  TS_CPU_OP(track_, "relu_backward", kernel, vdx.numel, 0);
  cpu::relu_backward(vy, vdy, vdx, pool_);
}

// logits [n, classes], labels [n] -> probs [n, classes], loss [n], correct [n].
void CpuBackend::softmax_xent(const Tensor& logits, const Tensor& labels, const Tensor& probs,
                              const Tensor& loss, const Tensor& correct) {
  const char* op = "softmax_xent";
  const View vx = storage(logits, op, "logits");
  const View vl = typed(labels, DType::I32, op, "labels");
  const View vp = typed(probs, DType::F32, op, "probs");
  const View vloss = typed(loss, DType::F32, op, "loss");
  const View vc = typed(correct, DType::F32, op, "correct");
  const std::int64_t classes = last_dim(logits);
  if (classes == 0 || vx.numel == 0) return;
  const std::int64_t n = vx.numel / classes;
  require(vl.numel >= n && vloss.numel >= n && vc.numel >= n && vp.numel >= vx.numel, op,
          "labels, loss, correct or probs smaller than logits implies");
  TS_CPU_OP(track_, "softmax_xent", kernel, vx.numel, 0);
  cpu::softmax_xent(vx, vl.i32(), vp.f32(), vloss.f32(), vc.f32(), n, classes);
}

// dlogits [n, classes] = scale * (probs - onehot(labels [n])).
void CpuBackend::softmax_xent_backward(const Tensor& probs, const Tensor& labels, float scale,
                                       const Tensor& dlogits) {
  const char* op = "softmax_xent_backward";
  const View vp = typed(probs, DType::F32, op, "probs");
  const View vl = typed(labels, DType::I32, op, "labels");
  const View vd = storage(dlogits, op, "dlogits");
  const std::int64_t classes = last_dim(dlogits);
  if (classes == 0 || vd.numel == 0) return;
  const std::int64_t n = vd.numel / classes;
  require(vl.numel >= n && vp.numel >= vd.numel, op, "labels or probs smaller than dlogits");
  TS_CPU_OP(track_, "softmax_xent_backward", kernel, vd.numel, 0);
  cpu::softmax_xent_backward(vp.f32(), vl.i32(), scale, vd, n, classes);
}

// y [n, classes] F32 = softmax(x [n, classes]).
void CpuBackend::softmax(const Tensor& x, const Tensor& y) {
  const View vx = storage(x, "softmax", "x");
  const View vy = typed(y, DType::F32, "softmax", "y");
  const std::int64_t classes = last_dim(x);
  if (classes == 0 || vx.numel == 0) return;
  require(vy.numel >= vx.numel, "softmax", "y smaller than x");
  TS_CPU_OP(track_, "softmax", kernel, vx.numel, 0);
  cpu::softmax(vx, vy.f32(), vx.numel / classes, classes);
}

// cols [col_rows, col_cols] from x [batch, in_h, in_w, in_c].
void CpuBackend::im2col(const Conv2DGeometry& g, const Tensor& x, const Tensor& cols) {
  check_conv(g, "im2col");
  const View vx = storage(x, "im2col", "x"), vc = storage(cols, "im2col", "cols");
  require(vx.numel >= g.batch * g.in_h * g.in_w * g.in_c && vc.numel >= g.col_rows() * g.col_cols(),
          "im2col", "x or cols smaller than the geometry implies");
  TS_CPU_OP(track_, "im2col", kernel, g.col_rows() * g.col_cols(), 0);
  cpu::im2col(g, vx, vc, pool_);
}

// dx [batch, in_h, in_w, in_c] from dcols [col_rows, col_cols].
void CpuBackend::col2im(const Conv2DGeometry& g, const Tensor& dcols, const Tensor& dx) {
  check_conv(g, "col2im");
  const View vc = storage(dcols, "col2im", "dcols"), vx = storage(dx, "col2im", "dx");
  require(vx.numel >= g.batch * g.in_h * g.in_w * g.in_c && vc.numel >= g.col_rows() * g.col_cols(),
          "col2im", "dx or dcols smaller than the geometry implies");
  TS_CPU_OP(track_, "col2im", kernel, vx.numel, 0);
  cpu::col2im(g, vc, vx, pool_);
}

// y, argmax [batch, out_h, out_w, c] from x [batch, in_h, in_w, c].
void CpuBackend::maxpool(const Pool2DGeometry& g, const Tensor& x, const Tensor& y,
                         const Tensor& argmax) {
  check_pool(g, "maxpool");
  const View vx = storage(x, "maxpool", "x"), vy = storage(y, "maxpool", "y");
  const View va = typed(argmax, DType::I32, "maxpool", "argmax");
  const std::int64_t out = g.batch * g.out_h() * g.out_w() * g.channels;
  require(vx.numel >= g.batch * g.in_h * g.in_w * g.channels && vy.numel >= out && va.numel >= out,
          "maxpool", "x, y or argmax smaller than the geometry implies");
  TS_CPU_OP(track_, "maxpool", kernel, out, 0);
  cpu::maxpool(g, vx, vy, va.i32(), pool_);
}

// dx [batch, in_h, in_w, c] from dy, argmax [batch, out_h, out_w, c].
void CpuBackend::maxpool_backward(const Pool2DGeometry& g, const Tensor& dy, const Tensor& argmax,
                                  const Tensor& dx) {
  const char* op = "maxpool_backward";
  check_pool(g, op);
  const View vdy = storage(dy, op, "dy"), vdx = storage(dx, op, "dx");
  const View va = typed(argmax, DType::I32, op, "argmax");
  const std::int64_t out = g.batch * g.out_h() * g.out_w() * g.channels;
  require(
      vdx.numel >= g.batch * g.in_h * g.in_w * g.channels && vdy.numel >= out && va.numel >= out,
      op, "dx, dy or argmax smaller than the geometry implies");
  TS_CPU_OP(track_, "maxpool_backward", kernel, vdx.numel, 0);
  cpu::maxpool_backward(g, vdy, va.i32(), vdx, pool_);
}

// mask [n] F32, y [n] from x [n].
void CpuBackend::dropout(const Tensor& x, float rate, std::uint32_t seed, const Tensor& mask,
                         const Tensor& y) {
  const View vx = storage(x, "dropout", "x"), vy = storage(y, "dropout", "y");
  const View vm = typed(mask, DType::F32, "dropout", "mask");
  require(rate >= 0.0f && rate <= 1.0f, "dropout", "rate must be in [0, 1]");
  require(vx.numel == vy.numel && vm.numel >= vx.numel, "dropout",
          "x and y differ in numel or mask is smaller");
  require(vx.numel <= (std::int64_t{1} << 32), "dropout", "more than 2^32 elements");
  TS_CPU_OP(track_, "dropout", kernel, vx.numel, 0);
  cpu::dropout(vx, rate, seed, vm.f32(), vy, pool_);
}

// dx [n] = dy [n] * mask [n].
void CpuBackend::dropout_backward(const Tensor& dy, const Tensor& mask, const Tensor& dx) {
  const View vdy = storage(dy, "dropout_backward", "dy"),
             vdx = storage(dx, "dropout_backward", "dx");
  const View vm = typed(mask, DType::F32, "dropout_backward", "mask");
  require(vdy.numel == vdx.numel && vm.numel >= vdy.numel, "dropout_backward",
          "dy and dx differ in numel or mask is smaller");
  TS_CPU_OP(track_, "dropout_backward", kernel, vdx.numel, 0);
  cpu::dropout_backward(vdy, vm.f32(), vdx, pool_);
}

// out [>=1] F32: out[0] = sum of x.
void CpuBackend::sum(const Tensor& x, const Tensor& out) {
  const View vx = storage(x, "sum", "x");
  const View vo = typed(out, DType::F32, "sum", "out");
  require(vo.numel >= 1, "sum", "out is empty");
  TS_CPU_OP(track_, "sum", kernel, vx.numel, 0);
  vo.f32()[0] = cpu::sum(vx);
}

// x [n] F32 *= factor; flag [>=1] F32 = any non-finite.
void CpuBackend::scale_and_check_finite(const Tensor& x, float factor, const Tensor& flag) {
  const View vx = typed(x, DType::F32, "scale_and_check_finite", "x");
  const View vf = typed(flag, DType::F32, "scale_and_check_finite", "flag");
  require(vf.numel >= 1, "scale_and_check_finite", "flag is empty");
  TS_CPU_OP(track_, "scale_and_check_finite", kernel, vx.numel, 0);
  vf.f32()[0] = cpu::scale_and_check_finite(vx.f32(), vx.numel, factor, pool_) ? 1.0f : 0.0f;
}

// param, grad, velocity [n] F32.
void CpuBackend::sgd_update(const Tensor& param, const Tensor& grad, const Tensor& velocity,
                            float learning_rate, float momentum) {
  const char* op = "sgd_update";
  const View p = typed(param, DType::F32, op, "param"), g = typed(grad, DType::F32, op, "grad");
  const View vel = typed(velocity, DType::F32, op, "velocity");
  require(p.numel == g.numel && p.numel == vel.numel, op, "param, grad, velocity differ in numel");
  TS_CPU_OP(track_, "sgd_update", kernel, p.numel, 0);
  cpu::sgd_update(p.f32(), g.f32(), vel.f32(), p.numel, learning_rate, momentum, pool_);
}

// param, grad, m, v [n] F32; step >= 1.
void CpuBackend::adam_update(const Tensor& param, const Tensor& grad, const Tensor& m,
                             const Tensor& v, const AdamConfig& config, std::int64_t step) {
  const char* op = "adam_update";
  const View p = typed(param, DType::F32, op, "param"), g = typed(grad, DType::F32, op, "grad");
  const View vm = typed(m, DType::F32, op, "m"), vv = typed(v, DType::F32, op, "v");
  require(p.numel == g.numel && p.numel == vm.numel && p.numel == vv.numel, op,
          "param, grad, m, v differ in numel");
  require(step >= 1, op, "step must be >= 1");
  TS_CPU_OP(track_, "adam_update", kernel, p.numel, 0);
  cpu::adam_update(p.f32(), g.f32(), vm.f32(), vv.f32(), p.numel, config, step, pool_);
}

}  // namespace ts::cpu
