// CPU backend GEMM against a plain triple loop: transposes, alpha/beta, F16 storage, views,
// beta == 0 with NaN in C, and products large enough to be split over threads.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <tuple>

#include "tests/engine/backend/cpu/cpu_test_util.hpp"

namespace ts {
namespace {

using test::cpu;
using test::make;
using test::read;

struct DtypeSet {
  DType a, b, c;
};

// C[m,n] = alpha * op(A) * op(B) + beta * C0, in double, from the stored (rounded) inputs.
std::vector<double> reference(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k,
                              float alpha, const std::vector<float>& a, const std::vector<float>& b,
                              float beta, const std::vector<float>& c0) {
  std::vector<double> c(static_cast<std::size_t>(m * n));
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double acc = 0.0;
      for (std::int64_t p = 0; p < k; ++p) {
        const double av = ta ? a[p * m + i] : a[i * k + p];
        const double bv = tb ? b[j * k + p] : b[p * n + j];
        acc += av * bv;
      }
      const double old = beta == 0.0f ? 0.0 : double{beta} * c0[i * n + j];
      c[i * n + j] = double{alpha} * acc + old;
    }
  }
  return c;
}

void check_gemm(Backend& be, bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k,
                float alpha, float beta, DtypeSet d, std::uint64_t seed) {
  SCOPED_TRACE(::testing::Message()
               << (ta ? "T" : "N") << (tb ? "T" : "N") << " m=" << m << " n=" << n << " k=" << k
               << " alpha=" << alpha << " beta=" << beta << " a=" << test::dtype_label(d.a)
               << " b=" << test::dtype_label(d.b) << " c=" << test::dtype_label(d.c));
  const Shape sa = ta ? Shape{k, m} : Shape{m, k};
  const Shape sb = tb ? Shape{n, k} : Shape{k, n};
  const Tensor a = make(be, sa, d.a, test::random_values(m * k, seed));
  const Tensor b = make(be, sb, d.b, test::random_values(k * n, seed + 1));
  const Tensor c = make(be, Shape{m, n}, d.c, test::random_values(m * n, seed + 2));
  const std::vector<float> a0 = read(be, a), b0 = read(be, b), c0 = read(be, c);
  be.gemm(ta, tb, m, n, k, alpha, a, b, beta, c);
  // f32 accumulation over k terms of size ~1: allow k-proportional rounding.
  test::expect_near_all(read(be, c), reference(ta, tb, m, n, k, alpha, a0, b0, beta, c0), d.c,
                        1e-6 * static_cast<double>(k + 4));
  EXPECT_TRUE(test::guards_intact(be, c));
}

class GemmTest : public ::testing::TestWithParam<std::tuple<bool, bool, int>> {};

const DtypeSet kDtypeSets[] = {{DType::F32, DType::F32, DType::F32},
                               {DType::F16, DType::F16, DType::F16},
                               {DType::F16, DType::F32, DType::F32},
                               {DType::F32, DType::F16, DType::F16}};

TEST_P(GemmTest, MatchesNaiveLoopsForOddSizesAlphaBeta) {
  const auto [ta, tb, set] = GetParam();
  const DtypeSet d = kDtypeSets[set];
  std::uint64_t seed = 10;
  for (const auto& [m, n, k] : std::vector<std::tuple<int, int, int>>{
           {7, 13, 5}, {1, 1, 1}, {1, 9, 17}, {33, 1, 8}, {31, 47, 70}, {64, 48, 96}}) {
    for (const auto& [alpha, beta] :
         std::vector<std::pair<float, float>>{{1.0f, 0.0f}, {0.5f, 2.0f}, {-1.5f, 1.0f}})
      check_gemm(cpu(), ta, tb, m, n, k, alpha, beta, d, seed++);
  }
}

TEST_P(GemmTest, LargeProductsSplitOverThreads) {
  const auto [ta, tb, set] = GetParam();
  const DtypeSet d = kDtypeSets[set];
  // m >= n splits rows, n > m splits columns; both far above the parallel threshold.
  check_gemm(cpu(), ta, tb, 301, 75, 97, 1.0f, 0.5f, d, 100);
  check_gemm(cpu(), ta, tb, 45, 333, 101, -0.5f, 0.0f, d, 200);
  // A single thread gives the same answer (within rounding).
  auto one = make_cpu_backend(1);
  check_gemm(*one, ta, tb, 301, 75, 97, 1.0f, 0.5f, d, 100);
}

INSTANTIATE_TEST_SUITE_P(AllTransposesAndDtypes, GemmTest,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool(),
                                            ::testing::Range(0, 4)));

TEST(Gemm, BetaZeroIgnoresNaNInC) {
  for (DType dtype : {DType::F32, DType::F16}) {
    const std::int64_t m = 7, n = 13, k = 5;
    const Tensor a = make(cpu(), Shape{m, k}, dtype, test::random_values(m * k, 1));
    const Tensor b = make(cpu(), Shape{k, n}, dtype, test::random_values(k * n, 2));
    const Tensor c = make(cpu(), Shape{m, n}, dtype,
                          std::vector<float>(m * n, std::numeric_limits<float>::quiet_NaN()));
    cpu().gemm(false, false, m, n, k, 1.0f, a, b, 0.0f, c);
    const auto want = reference(false, false, m, n, k, 1.0f, read(cpu(), a), read(cpu(), b), 0.0f,
                                std::vector<float>(m * n, 0.0f));
    test::expect_near_all(read(cpu(), c), want, dtype, 1e-5);
  }
}

TEST(Gemm, ZeroDepthScalesC) {
  const Tensor a = make(cpu(), Shape{3, 0}, DType::F32);
  const Tensor b = make(cpu(), Shape{0, 2}, DType::F32);
  const Tensor c = make(cpu(), Shape{3, 2}, DType::F32, {1, 2, 3, 4, 5, 6});
  cpu().gemm(false, false, 3, 2, 0, 1.0f, a, b, 2.0f, c);
  EXPECT_EQ(read(cpu(), c), (std::vector<float>{2, 4, 6, 8, 10, 12}));
  cpu().gemm(false, false, 3, 2, 0, 1.0f, a, b, 0.0f, c);
  EXPECT_EQ(read(cpu(), c), std::vector<float>(6, 0.0f));
}

TEST(Gemm, HandCheckedTransposes) {
  // A = [[1,2],[3,4]], B = [[5,6],[7,8]].
  const Tensor a = make(cpu(), Shape{2, 2}, DType::F32, {1, 2, 3, 4});
  const Tensor b = make(cpu(), Shape{2, 2}, DType::F32, {5, 6, 7, 8});
  const Tensor c = make(cpu(), Shape{2, 2}, DType::F32);
  cpu().gemm(false, false, 2, 2, 2, 1.0f, a, b, 0.0f, c);
  EXPECT_EQ(read(cpu(), c), (std::vector<float>{19, 22, 43, 50}));
  cpu().gemm(true, false, 2, 2, 2, 1.0f, a, b, 0.0f, c);  // A^T B
  EXPECT_EQ(read(cpu(), c), (std::vector<float>{26, 30, 38, 44}));
  cpu().gemm(false, true, 2, 2, 2, 1.0f, a, b, 0.0f, c);  // A B^T
  EXPECT_EQ(read(cpu(), c), (std::vector<float>{17, 23, 39, 53}));
  cpu().gemm(true, true, 2, 2, 2, 1.0f, a, b, 0.0f, c);  // A^T B^T
  EXPECT_EQ(read(cpu(), c), (std::vector<float>{23, 31, 34, 46}));
}

}  // namespace
}  // namespace ts
