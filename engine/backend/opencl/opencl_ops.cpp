// OpenClBackend's numeric operations: each sizes the launch and binds tensors to the kernels in
// kernels/*.cl (semantics in engine/backend/backend.hpp).
#include <algorithm>
#include <cmath>
#include <string>

#include "engine/backend/factory.hpp"
#include "engine/backend/opencl/opencl_backend_impl.hpp"
#include "engine/backend/opencl/reduction_split.hpp"

namespace ts::ocl {

namespace {

cl_ulong count(const Tensor& t) {
  return static_cast<cl_ulong>(t.numel());
}
cl_ulong off(const Tensor& t) {
  return static_cast<cl_ulong>(t.offset);
}
cl_int i32(std::int64_t v) {
  return static_cast<cl_int>(v);
}
// Element counts for kernels that index in 32 bits (see the .cl files).
cl_uint u32(std::uint64_t v) {
  if (v > 0xffffffffu)
    throw BackendError("tensor of " + std::to_string(v) +
                       " elements is too large for the OpenCL kernels (limit 2^32 - 1)");
  return static_cast<cl_uint>(v);
}
// Arguments backend.hpp declares F32 (parameters, gradients, losses, optimizer state): a kernel
// would read other storage as garbage, so refuse it as the CPU backend does.
void expect_f32(const char* op, const char* arg, const Tensor& t) {
  if (t.dtype != DType::F32)
    throw BackendError(std::string("opencl backend: ") + op + ": " + arg + " must be f32, not " +
                       std::string(dtype_name(t.dtype)));
}
void expect_i32(const char* op, const char* arg, const Tensor& t) {
  if (t.dtype != DType::I32)
    throw BackendError(std::string("opencl backend: ") + op + ": " + arg + " must be i32, not " +
                       std::string(dtype_name(t.dtype)));
}

// Last dimension of a [rows, classes] tensor.
std::int64_t last_dim(const Tensor& t) {
  return t.shape.rank() ? t.shape[t.shape.rank() - 1] : 1;
}

}  // namespace

// c [m,n] = alpha * op(a) [m,k] * op(b) [k,n] + beta * c.
void OpenClBackend::gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
                         float alpha, const Tensor& a, const Tensor& b, float beta,
                         const Tensor& c) {
  gemm_.gemm(trans_a, trans_b, m, n, k, alpha, a, b, beta, c);
}

// y [rows, cols] += bias [cols].
void OpenClBackend::bias_add(const Tensor& y, const Tensor& bias) {
  expect_f32("bias_add", "bias", bias);
  kernels_.run_1d("elementwise.cl", "bias_add", Slots::of(DType::F32, y.dtype), count(y), mem(y),
                  off(y), mem(bias), off(bias), u32(count(y)), u32(count(bias)));
}

// grad_bias [cols] (+)= column sums of dy [rows, cols].
void OpenClBackend::bias_grad(const Tensor& dy, const Tensor& grad_bias, bool accumulate) {
  expect_f32("bias_grad", "grad_bias", grad_bias);
  const std::uint64_t cols = count(grad_bias);
  if (cols == 0) return;
  const std::uint64_t rows = count(dy) / cols;
  const Slots slots = Slots::of(dy.dtype);
  // Up to 16 adjacent columns per group, and as many row lanes (a power of two) as fit; the rows
  // split among groups when the columns alone give the device too few (reduction_split.hpp).
  const std::size_t group_max = kernels_.power_of_two_group("reduce.cl", "bias_grad", slots, 256);
  const std::size_t tile_cols = std::min<std::size_t>(16, group_max);
  const std::size_t lanes = std::min<std::size_t>(16, group_max / tile_cols);
  const std::uint64_t column_groups = (cols + tile_cols - 1) / tile_cols;
  const std::uint64_t slices =
      reduction_slices(kColumnSumSplit, column_groups, rows,
                       static_cast<std::size_t>(std::max(1, ctx_.info().compute_units)));
  const std::uint64_t rows_per_group = (rows + slices - 1) / slices;
  const std::size_t global[2] = {KernelRunner::round_up(cols, tile_cols), lanes * slices};
  const std::size_t local[2] = {tile_cols, lanes};
  const LocalMemory scratch{tile_cols * lanes * sizeof(float)};
  if (slices == 1) {
    kernels_.run_nd("reduce.cl", "bias_grad", slots, 2, global, local, mem(dy), off(dy),
                    mem(grad_bias), off(grad_bias), cl_ulong{rows}, cl_ulong{cols},
                    cl_ulong{rows_per_group}, cl_int{accumulate ? 1 : 0}, scratch);
    return;
  }
  cl_mem parts = partials_.get(slices * cols * sizeof(float));
  kernels_.run_nd("reduce.cl", "bias_grad", slots, 2, global, local, mem(dy), off(dy), parts,
                  cl_ulong{0}, cl_ulong{rows}, cl_ulong{cols}, cl_ulong{rows_per_group}, cl_int{0},
                  scratch);
  kernels_.run_1d("reduce.cl", "sum_slices", Slots{}, cols, parts, cl_ulong{cols}, cl_ulong{slices},
                  mem(grad_bias), off(grad_bias), cl_float{1.0f},
                  cl_float{accumulate ? 1.0f : 0.0f});
}

// y [n] = max(x [n], 0).
void OpenClBackend::relu(const Tensor& x, const Tensor& y) {
  kernels_.run_1d("elementwise.cl", "relu", Slots::of(x.dtype, y.dtype), count(y), mem(x), off(x),
                  mem(y), off(y), count(y));
}

// dx [n] = dy [n] * (y [n] > 0).
void OpenClBackend::relu_backward(const Tensor& y, const Tensor& dy, const Tensor& dx) {
  kernels_.run_1d("elementwise.cl", "relu_backward", Slots::of(y.dtype, dy.dtype, dx.dtype),
                  count(dx), mem(y), off(y), mem(dy), off(dy), mem(dx), off(dx), count(dx));
}

// logits [n, classes], labels [n] -> probs [n, classes], loss [n], correct [n].
void OpenClBackend::softmax_xent(const Tensor& logits, const Tensor& labels, const Tensor& probs,
                                 const Tensor& loss, const Tensor& correct) {
  expect_i32("softmax_xent", "labels", labels);
  expect_f32("softmax_xent", "probs", probs);
  expect_f32("softmax_xent", "loss", loss);
  expect_f32("softmax_xent", "correct", correct);
  const cl_ulong rows = count(labels);
  kernels_.run_1d("softmax_xent.cl", "softmax_xent", Slots::of(logits.dtype), rows, mem(logits),
                  off(logits), mem(labels), off(labels), mem(probs), off(probs), mem(loss),
                  off(loss), mem(correct), off(correct), rows, i32(last_dim(logits)));
}

// dlogits [n, classes] = scale * (probs [n, classes] - onehot(labels [n])).
void OpenClBackend::softmax_xent_backward(const Tensor& probs, const Tensor& labels, float scale,
                                          const Tensor& dlogits) {
  expect_f32("softmax_xent_backward", "probs", probs);
  expect_i32("softmax_xent_backward", "labels", labels);
  kernels_.run_1d("softmax_xent.cl", "softmax_xent_backward", Slots::of(DType::F32, dlogits.dtype),
                  count(dlogits), mem(probs), off(probs), mem(labels), off(labels), cl_float{scale},
                  mem(dlogits), off(dlogits), u32(count(dlogits)),
                  u32(static_cast<std::uint64_t>(last_dim(probs))));
}

// y [n, classes] = softmax of x [n, classes] over the last axis.
void OpenClBackend::softmax(const Tensor& x, const Tensor& y) {
  const std::int64_t classes = last_dim(x);
  if (classes == 0) return;
  const cl_ulong rows = count(x) / static_cast<cl_ulong>(classes);
  kernels_.run_1d("softmax_xent.cl", "softmax", Slots::of(x.dtype), rows, mem(x), off(x), mem(y),
                  off(y), rows, i32(classes));
}

// cols [col_rows, col_cols] from x [batch, in_h, in_w, in_c].
void OpenClBackend::im2col(const Conv2DGeometry& g, const Tensor& x, const Tensor& cols) {
  const auto n = static_cast<cl_ulong>(g.col_rows() * g.col_cols());
  u32(count(x));  // x is indexed in 32 bits too
  kernels_.run_1d("conv.cl", "im2col", Slots::of(x.dtype, cols.dtype), n, mem(x), off(x), mem(cols),
                  off(cols), u32(n), i32(g.in_h), i32(g.in_w), i32(g.in_c), i32(g.kernel_h),
                  i32(g.kernel_w), i32(g.out_h()), i32(g.out_w()), i32(g.stride), i32(g.pad));
}

// dx [batch, in_h, in_w, in_c] = gathered sums of dcols [col_rows, col_cols].
void OpenClBackend::col2im(const Conv2DGeometry& g, const Tensor& dcols, const Tensor& dx) {
  const auto n = static_cast<cl_ulong>(g.batch * g.in_h * g.in_w * g.in_c);
  u32(count(dcols));  // dcols is indexed in 32 bits too
  kernels_.run_1d("conv.cl", "col2im", Slots::of(dcols.dtype, dx.dtype), n, mem(dcols), off(dcols),
                  mem(dx), off(dx), u32(n), i32(g.in_h), i32(g.in_w), i32(g.in_c), i32(g.kernel_h),
                  i32(g.kernel_w), i32(g.out_h()), i32(g.out_w()), i32(g.stride), i32(g.pad));
}

// y, argmax [batch, out_h, out_w, c] from x [batch, in_h, in_w, c].
void OpenClBackend::maxpool(const Pool2DGeometry& g, const Tensor& x, const Tensor& y,
                            const Tensor& argmax) {
  const auto n = static_cast<cl_ulong>(g.batch * g.out_h() * g.out_w() * g.channels);
  kernels_.run_1d("pool.cl", "maxpool", Slots::of(x.dtype, y.dtype), n, mem(x), off(x), mem(y),
                  off(y), mem(argmax), off(argmax), u32(n), i32(g.in_h), i32(g.in_w),
                  i32(g.channels), i32(g.pool), i32(g.out_h()), i32(g.out_w()));
}

// dx [batch, in_h, in_w, c] from dy, argmax [batch, out_h, out_w, c].
void OpenClBackend::maxpool_backward(const Pool2DGeometry& g, const Tensor& dy,
                                     const Tensor& argmax, const Tensor& dx) {
  const auto n = static_cast<cl_ulong>(g.batch * g.in_h * g.in_w * g.channels);
  kernels_.run_1d("pool.cl", "maxpool_backward", Slots::of(dy.dtype, dx.dtype), n, mem(dy), off(dy),
                  mem(argmax), off(argmax), mem(dx), off(dx), u32(n), i32(g.in_h), i32(g.in_w),
                  i32(g.channels), i32(g.pool), i32(g.out_h()), i32(g.out_w()));
}

// mask [n] F32, y [n] from x [n].
void OpenClBackend::dropout(const Tensor& x, float rate, std::uint32_t seed, const Tensor& mask,
                            const Tensor& y) {
  const float keep_scale = 1.0f / (1.0f - rate);
  kernels_.run_1d("dropout.cl", "dropout", Slots::of(x.dtype, y.dtype), count(y), mem(x), off(x),
                  cl_float{rate}, cl_uint{seed}, cl_float{keep_scale}, mem(mask), off(mask), mem(y),
                  off(y), count(y));
}

// dx [n] = dy [n] * mask [n].
void OpenClBackend::dropout_backward(const Tensor& dy, const Tensor& mask, const Tensor& dx) {
  kernels_.run_1d("dropout.cl", "dropout_backward", Slots::of(dy.dtype, dx.dtype), count(dx),
                  mem(dy), off(dy), mem(mask), off(mask), mem(dx), off(dx), count(dx));
}

// out [>= 1] F32: out[0] = sum of x [n]. Two passes: per-group partial sums, then one group.
void OpenClBackend::sum(const Tensor& x, const Tensor& out) {
  expect_f32("sum", "out", out);
  const std::uint64_t n = count(x);
  if (n == 0) {
    fill_bits(out, 0, 1, 0);
    return;
  }
  const Slots slots = Slots::of(x.dtype);
  const std::size_t group = kernels_.power_of_two_group("reduce.cl", "sum_partial", slots, 256);
  const std::size_t groups = std::min<std::uint64_t>(64, (n + group - 1) / group);
  cl_mem partial = partials_.get(groups * sizeof(float));
  const std::size_t global = groups * group;
  kernels_.run_nd("reduce.cl", "sum_partial", slots, 1, &global, &group, mem(x), off(x),
                  cl_ulong{n}, partial, LocalMemory{group * sizeof(float)});
  const std::size_t final_group = kernels_.power_of_two_group("reduce.cl", "sum_final", slots, 256);
  kernels_.run_nd("reduce.cl", "sum_final", slots, 1, &final_group, &final_group, partial,
                  static_cast<cl_uint>(groups), mem(out), off(out),
                  LocalMemory{final_group * sizeof(float)});
}

// x [n] F32 *= factor; flag [>= 1] F32: flag[0] = any non-finite.
void OpenClBackend::scale_and_check_finite(const Tensor& x, float factor, const Tensor& flag) {
  expect_f32("scale_and_check_finite", "x", x);
  expect_f32("scale_and_check_finite", "flag", flag);
  fill_bits(flag, 0, 1, 0);
  kernels_.run_1d("reduce.cl", "scale_check_finite", Slots{}, count(x), mem(x), off(x), count(x),
                  cl_float{factor}, mem(flag), off(flag));
}

// param, grad, velocity [n] F32.
void OpenClBackend::sgd_update(const Tensor& param, const Tensor& grad, const Tensor& velocity,
                               float learning_rate, float momentum) {
  for (const Tensor* t : {&param, &grad, &velocity}) expect_f32("sgd_update", "every tensor", *t);
  kernels_.run_1d("optimizer.cl", "sgd_update", Slots{}, count(param), mem(param), off(param),
                  mem(grad), off(grad), mem(velocity), off(velocity), count(param),
                  cl_float{learning_rate}, cl_float{momentum});
}

// param, grad, m, v [n] F32; step >= 1.
void OpenClBackend::adam_update(const Tensor& param, const Tensor& grad, const Tensor& m,
                                const Tensor& v, const AdamConfig& config, std::int64_t step) {
  for (const Tensor* t : {&param, &grad, &m, &v}) expect_f32("adam_update", "every tensor", *t);
  const double t = static_cast<double>(step);
  const auto lr_t =
      static_cast<float>(config.learning_rate * std::sqrt(1.0 - std::pow(double{config.beta2}, t)) /
                         (1.0 - std::pow(double{config.beta1}, t)));
  kernels_.run_1d("optimizer.cl", "adam_update", Slots{}, count(param), mem(param), off(param),
                  mem(grad), off(grad), mem(m), off(m), mem(v), off(v), count(param),
                  cl_float{config.beta1}, cl_float{config.beta2}, cl_float{config.epsilon},
                  cl_float{lr_t});
}

}  // namespace ts::ocl
