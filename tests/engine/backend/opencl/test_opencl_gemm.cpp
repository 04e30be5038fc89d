// GEMM on the OpenCL backend (CLBlast) against the CPU backend: every transpose combination,
// alpha/beta, beta == 0 over NaN, F16 operands, views at offsets, a long k split into slices.
#include <gtest/gtest.h>

#include <limits>

#include "engine/backend/factory.hpp"
#include "engine/backend/opencl/opencl_backend.hpp"
#include "engine/backend/opencl/reduction_split.hpp"
#include "tests/engine/backend/opencl/opencl_test_util.hpp"

namespace ts::test {
namespace {

class OpenClGemm : public ::testing::Test {
 protected:
  void SetUp() override { TS_REQUIRE_OPENCL(); }

  // Runs C = alpha*op(A)*op(B) + beta*C on both backends and compares C.
  void check(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
             float beta, DType ta_type, DType tb_type, DType tc_type, bool nan_c) {
    SCOPED_TRACE(std::string(ta ? "T" : "N") + (tb ? "T" : "N") + " m=" + std::to_string(m) +
                 " n=" + std::to_string(n) + " k=" + std::to_string(k) +
                 " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta) + " A " +
                 dtype_label(ta_type) + " B " + dtype_label(tb_type) + " C " +
                 dtype_label(tc_type));
    const Shape a_shape = ta ? Shape{k, m} : Shape{m, k};
    const Shape b_shape = tb ? Shape{n, k} : Shape{k, n};
    Mirrored a = mirror(a_shape, ta_type, random_values(static_cast<std::size_t>(m * k), 30), 5);
    Mirrored b = mirror(b_shape, tb_type, random_values(static_cast<std::size_t>(k * n), 31), 3);
    std::vector<float> c_values = random_values(static_cast<std::size_t>(m * n), 32);
    if (nan_c)
      for (auto& v : c_values) v = std::numeric_limits<float>::quiet_NaN();
    Mirrored c = mirror(Shape{m, n}, tc_type, c_values, 7);
    cpu_backend().gemm(ta, tb, m, n, k, alpha, a.cpu, b.cpu, beta, c.cpu);
    opencl_backend()->gemm(ta, tb, m, n, k, alpha, a.ocl, b.ocl, beta, c.ocl);
    // Products of k terms in another order: tolerance grows with k.
    const double atol = 2e-6 * static_cast<double>(k);
    expect_close(c, storage_rtol(tc_type, 1e-5), tc_type == DType::F16 ? 4e-3 + atol : atol,
                 "gemm");
  }
};

TEST_F(OpenClGemm, AllTransposeCombinationsWithAlphaBeta) {
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (auto [alpha, beta] :
           {std::pair{1.0f, 0.0f}, std::pair{0.5f, 1.0f}, std::pair{-1.25f, 0.75f}})
        check(ta, tb, 13, 29, 37, alpha, beta, DType::F32, DType::F32, DType::F32, false);
}

TEST_F(OpenClGemm, BetaZeroIgnoresNanInC) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      check(ta, tb, 9, 11, 5, 1.0f, 0.0f, DType::F32, DType::F32, DType::F32, true);
      check(ta, tb, 9, 11, 5, 1.0f, 0.0f, DType::F16, DType::F16, DType::F16, true);
    }
}

TEST_F(OpenClGemm, EngineShapes) {
  // The mlp's dense layers on MNIST (forward NN, weight gradient TN, input gradient NT) and an
  // odd-sized one.
  check(false, false, 32, 128, 784, 1.0f, 0.0f, DType::F32, DType::F32, DType::F32, false);
  check(true, false, 784, 128, 32, 1.0f, 1.0f, DType::F32, DType::F32, DType::F32, false);
  check(false, true, 32, 784, 128, 1.0f, 0.0f, DType::F32, DType::F32, DType::F32, false);
  check(false, false, 257, 263, 129, 1.0f, 0.0f, DType::F32, DType::F32, DType::F32, false);
}

TEST_F(OpenClGemm, LargeOddSizesUseCLBlastsIndirectPath) {
  // m*n*k above CLBlast's XGEMM_MIN_INDIRECT_SIZE^3 on PoCL (896^3): the padded, temporary-
  // buffer path with offsets. Sizes not multiples of the tile sizes force padding.
  check(false, false, 961, 903, 900, 1.0f, 0.5f, DType::F32, DType::F32, DType::F32, false);
  check(true, true, 961, 903, 900, -0.5f, 0.0f, DType::F32, DType::F32, DType::F32, true);
}

TEST_F(OpenClGemm, HalfStorageOperands) {
  const DType f32 = DType::F32, f16 = DType::F16;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      check(ta, tb, 17, 23, 31, 1.0f, 0.0f, f16, f16, f16, false);
      check(ta, tb, 17, 23, 31, 0.5f, 1.0f, f16, f16, f16, false);
      check(ta, tb, 17, 23, 31, 1.0f, 0.5f, f16, f32, f32, false);
      check(ta, tb, 17, 23, 31, 1.0f, 0.0f, f32, f16, f16, false);
      check(ta, tb, 17, 23, 31, 2.0f, -1.0f, f32, f32, f16, false);
    }
}

TEST_F(OpenClGemm, LongInnerDimensionIsSplitIntoSlices) {
  // A convolution's weight gradient: k = batch x height x width, m x n a few hundred. k is not a
  // multiple of the slice count, so the rest of k is added after the slices' sum.
  const std::int64_t m = 9, n = 32, k = 5197;
  const std::size_t units = static_cast<std::size_t>(list_opencl_devices().at(0).compute_units);
  const std::uint64_t slices = ocl::reduction_slices(ocl::kGemmSplit, m * n, k, units);
  ASSERT_GT(slices, 1u) << "these sizes must take the split path on device 0";
  ASSERT_NE(k % static_cast<std::int64_t>(slices), 0) << "and leave a rest of k";
  const DType f32 = DType::F32, f16 = DType::F16;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      check(ta, tb, m, n, k, 1.0f, 0.0f, f32, f32, f32, true);
      check(ta, tb, m, n, k, -0.5f, 0.75f, f32, f32, f32, false);
    }
  check(true, false, m, n, k, 1.0f, 1.0f, f16, f16, f16, false);
  check(true, false, 3, 5, 4096, 2.0f, 0.0f, f32, f16, f32, true);  // k a multiple of slices
}

TEST_F(OpenClGemm, OperandsShareOneBufferAtOffsets) {
  // A, B and C as views into one buffer, as the engine's contiguous parameter buffer does.
  Backend& ocl = *opencl_backend();
  Backend& cpu = cpu_backend();
  const std::int64_t m = 5, n = 7, k = 3;
  const auto values = random_values(200, 33);
  Mirrored all = mirror(Shape{200}, DType::F32, values, 1);
  auto views = [&](const Tensor& t) {
    return std::tuple{t.view(3, Shape{m, k}), t.view(40, Shape{k, n}), t.view(101, Shape{m, n})};
  };
  auto [ac, bc, cc] = views(all.cpu);
  auto [ao, bo, co] = views(all.ocl);
  cpu.gemm(false, false, m, n, k, 1.0f, ac, bc, 0.5f, cc);
  ocl.gemm(false, false, m, n, k, 1.0f, ao, bo, 0.5f, co);
  expect_close(all, 1e-5, 1e-5, "gemm in one buffer");
}

TEST_F(OpenClGemm, ZeroInnerDimensionScalesC) {
  for (float beta : {0.0f, 0.5f}) {
    Mirrored a = mirror_empty(Shape{4, 0}, DType::F32);
    Mirrored b = mirror_empty(Shape{0, 6}, DType::F32);
    Mirrored c = mirror(Shape{4, 6}, DType::F32, random_values(24, 34));
    cpu_backend().gemm(false, false, 4, 6, 0, 1.0f, a.cpu, b.cpu, beta, c.cpu);
    opencl_backend()->gemm(false, false, 4, 6, 0, 1.0f, a.ocl, b.ocl, beta, c.ocl);
    expect_close(c, 1e-6, 1e-7, "gemm k=0");
  }
}

}  // namespace
}  // namespace ts::test
