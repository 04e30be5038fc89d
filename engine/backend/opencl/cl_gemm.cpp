#include "engine/backend/opencl/cl_gemm.hpp"

#include <clblast.h>

#include <chrono>
#include <string>
#include <type_traits>

#include "engine/backend/factory.hpp"
#include "engine/backend/opencl/reduction_split.hpp"

namespace ts::ocl {

namespace {

void check_clblast(clblast::StatusCode status, const char* what) {
  if (status != clblast::StatusCode::kSuccess)
    throw BackendError(std::string("CLBlast ") + what + " failed with status " +
                       std::to_string(static_cast<int>(status)));
}

clblast::Transpose transpose(bool t) {
  return t ? clblast::Transpose::kYes : clblast::Transpose::kNo;
}

}  // namespace

GemmRunner::GemmRunner(cl_context context, cl_command_queue queue, CommandQueue& commands,
                       KernelRunner& kernels, bool native_fp16, std::size_t compute_units,
                       std::shared_ptr<DeviceMemoryCounter> memory)
    : context_(context),
      queue_(queue),
      commands_(commands),
      kernels_(kernels),
      native_fp16_(native_fp16),
      compute_units_(compute_units),
      a32_(context, memory),
      b32_(context, memory),
      c32_(context, memory),
      temp_(context, memory),
      slices_(context, memory) {}

template <class T>
void GemmRunner::clblast_gemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n,
                              std::size_t k, T alpha, Operand a, Operand b, T beta, Operand c,
                              std::size_t ld_k) {
  constexpr bool half = std::is_same_v<T, cl_half>;
  if (ld_k == 0) ld_k = k;
  const std::size_t lda = trans_a ? m : ld_k;  // row-major leading dimensions
  const std::size_t ldb = trans_b ? ld_k : n;
  const std::size_t ldc = n;
  const auto layout = clblast::Layout::kRowMajor;
  // Hand CLBlast a cached temporary buffer so it does not allocate one per call.
  std::size_t temp_bytes = 0;
  check_clblast(clblast::GemmTempBufferSize<T>(layout, transpose(trans_a), transpose(trans_b), m, n,
                                               k, a.offset, lda, b.offset, ldb, c.offset, ldc,
                                               &queue_, temp_bytes),
                "GemmTempBufferSize");
  cl_mem temp = temp_bytes ? temp_.get(temp_bytes) : nullptr;
  static constexpr const char* kNames[2][2][2] = {
      {{"sgemm_NN", "sgemm_NT"}, {"sgemm_TN", "sgemm_TT"}},
      {{"hgemm_NN", "hgemm_NT"}, {"hgemm_TN", "hgemm_TT"}}};
  const char* name = kNames[half][trans_a][trans_b];
  commands_.library_call({CommandCategory::kernel, name, 0, m * n}, [&](cl_event* last) {
    check_clblast(clblast::Gemm<T>(layout, transpose(trans_a), transpose(trans_b), m, n, k, alpha,
                                   a.mem, a.offset, lda, b.mem, b.offset, ldb, beta, c.mem,
                                   c.offset, ldc, &queue_, last, temp),
                  "GEMM");
  });
}

void GemmRunner::sgemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k,
                       float alpha, Operand a, Operand b, float beta, Operand c) {
  const std::uint64_t slices =
      reduction_slices(kGemmSplit, std::uint64_t{m} * n, k, compute_units_);
  if (slices == 1)
    clblast_gemm<float>(trans_a, trans_b, m, n, k, alpha, a, b, beta, c);
  else
    split_k_gemm(trans_a, trans_b, m, n, k, slices, alpha, a, b, beta, c);
}

void GemmRunner::split_k_gemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n,
                              std::size_t k, std::size_t slices, float alpha, Operand a, Operand b,
                              float beta, Operand c) {
  // Slice s multiplies op(A)[:, s*kk, (s+1)*kk) by op(B)[s*kk, (s+1)*kk), :] into parts [s, m, n];
  // in row-major storage a slice of A starts kk columns further on, or kk rows of A^T [k, m], and
  // likewise for B. The last k - slices*kk of k are added to C after the sum.
  const std::size_t kk = k / slices, rest = k - slices * kk, mn = m * n;
  const std::size_t lda = trans_a ? m : k, ldb = trans_b ? k : n;
  const std::size_t a_step = trans_a ? kk * m : kk, b_step = trans_b ? kk : kk * n;
  cl_mem parts = slices_.get(slices * mn * sizeof(float));
  static constexpr const char* kNames[2][2] = {{"sgemm_NN_split_k", "sgemm_NT_split_k"},
                                               {"sgemm_TN_split_k", "sgemm_TT_split_k"}};
  commands_.library_call(
      {CommandCategory::kernel, kNames[trans_a][trans_b], 0, mn * slices}, [&](cl_event* last) {
        check_clblast(clblast::GemmStridedBatched<float>(
                          clblast::Layout::kRowMajor, transpose(trans_a), transpose(trans_b), m, n,
                          kk, 1.0f, a.mem, a.offset, lda, a_step, b.mem, b.offset, ldb, b_step,
                          0.0f, parts, 0, n, mn, slices, &queue_, last),
                      "GemmStridedBatched");
      });
  kernels_.run_1d("reduce.cl", "sum_slices", Slots{}, mn, parts, cl_ulong{mn}, cl_ulong{slices},
                  c.mem, cl_ulong{c.offset}, cl_float{alpha}, cl_float{beta});
  if (rest > 0)
    clblast_gemm<float>(trans_a, trans_b, m, n, rest, alpha, {a.mem, a.offset + slices * a_step},
                        {b.mem, b.offset + slices * b_step}, 1.0f, c, k);
}

GemmRunner::Operand GemmRunner::as_f32(const Tensor& t, std::size_t count, ScratchBuffer& scratch,
                                       bool convert) {
  if (t.dtype == DType::F32) return {mem_of(t, context_), t.offset};
  cl_mem copy = scratch.get(count * sizeof(float));
  if (convert)
    kernels_.run_1d("convert.cl", "convert", Slots::of(t.dtype, DType::F32), count,
                    mem_of(t, context_), cl_ulong{t.offset}, copy, cl_ulong{0}, cl_ulong{count});
  return {copy, 0};
}

void GemmRunner::gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
                      float alpha, const Tensor& a, const Tensor& b, float beta, const Tensor& c) {
  if (m <= 0 || n <= 0) return;
  const auto um = static_cast<std::size_t>(m), un = static_cast<std::size_t>(n),
             uk = static_cast<std::size_t>(k);
  if (k <= 0) {  // C = beta * C; CLBlast rejects k == 0
    if (beta == 0.0f && c.dtype == DType::F16)
      kernels_.run_1d("convert.cl", "fill_u16", Slots{}, um * un, mem_of(c, context_),
                      cl_ulong{c.offset}, cl_ulong{um * un}, cl_ushort{0});
    else if (beta == 0.0f)
      kernels_.run_1d("convert.cl", "fill_u32", Slots{}, um * un, mem_of(c, context_),
                      cl_ulong{c.offset}, cl_ulong{um * un}, cl_uint{0});
    else
      kernels_.run_1d("elementwise.cl", "scale", Slots::of(DType::F32, c.dtype), um * un,
                      mem_of(c, context_), cl_ulong{c.offset}, cl_ulong{um * un}, cl_float{beta});
    return;
  }
  const bool all_f16 = a.dtype == DType::F16 && b.dtype == DType::F16 && c.dtype == DType::F16;
  if (native_fp16_ && all_f16) {
    clblast_gemm<cl_half>(trans_a, trans_b, um, un, uk, float_to_half(alpha),
                          {mem_of(a, context_), a.offset}, {mem_of(b, context_), b.offset},
                          float_to_half(beta), {mem_of(c, context_), c.offset});
    return;
  }
  const Operand a32 = as_f32(a, um * uk, a32_, true);
  const Operand b32 = as_f32(b, uk * un, b32_, true);
  // beta == 0 ignores C, so an f16 C need not be converted in (it may hold NaN).
  const Operand c32 = as_f32(c, um * un, c32_, beta != 0.0f);
  sgemm(trans_a, trans_b, um, un, uk, alpha, a32, b32, beta, c32);
  if (c.dtype != DType::F32)
    kernels_.run_1d("convert.cl", "convert", Slots::of(DType::F32, c.dtype), um * un, c32.mem,
                    cl_ulong{0}, mem_of(c, context_), cl_ulong{c.offset}, cl_ulong{um * un});
}

double GemmRunner::warm_up() {
  const auto start = std::chrono::steady_clock::now();
  // 4x4 matrices in one scratch buffer: A at 0, B at 16, C at 32 (elements).
  cl_mem mem = c32_.get(48 * sizeof(float));
  kernels_.run_1d("convert.cl", "fill_u32", Slots{}, 48, mem, cl_ulong{0}, cl_ulong{48},
                  cl_uint{0});
  const bool combos[3][2] = {{false, false}, {false, true}, {true, false}};
  for (const auto& t : combos)
    clblast_gemm<float>(t[0], t[1], 4, 4, 4, 1.0f, {mem, 0}, {mem, 16}, 0.0f, {mem, 32});
  // The split of a long k (a convolution's weight gradient is TN).
  split_k_gemm(true, false, 4, 4, 4, 2, 1.0f, {mem, 0}, {mem, 16}, 0.0f, {mem, 32});
  if (native_fp16_)
    for (const auto& t : combos)
      clblast_gemm<cl_half>(t[0], t[1], 4, 4, 4, float_to_half(1.0f), {mem, 0}, {mem, 16},
                            float_to_half(0.0f), {mem, 32});
  commands_.finish();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace ts::ocl
