// GCC 12 warns about the deliberately undefined registers in its own AVX-512 intrinsics
// (GCC PR 105593, fixed in GCC 13); the pragma must precede the first intrinsics include.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "engine/backend/cpu/cpu_gemm.hpp"

#define EIGEN_DONT_PARALLELIZE  // threads are split here, not inside Eigen
#include <Eigen/Core>
#include <algorithm>

#include "engine/backend/cpu/cpu_parallel.hpp"

// Eigen 3.4's level-3 kernel takes caller-owned packing buffers through level3_blocking; this
// internal interface is only used on the version it was written against. Anything else (or
// TS_CPU_GEMM_PUBLIC_EIGEN) uses mapped matrices, which may allocate packing space per call.
#if EIGEN_VERSION_AT_LEAST(3, 4, 0) && !EIGEN_VERSION_AT_LEAST(3, 4, 90) && \
    !defined(TS_CPU_GEMM_PUBLIC_EIGEN)
#define TS_CPU_GEMM_EIGEN_INTERNAL 1
#endif

namespace ts::cpu {
namespace {

using Index = Eigen::Index;

// Eigen's cache blocking for a row-major C[m,n] of depth k. Eigen evaluates a row-major
// product as the transposed column-major one, so its mc runs along n and its nc along m.
struct BlockSizes {
  Index kc, mc, nc;
  std::size_t a_floats() const { return static_cast<std::size_t>(kc * mc) + 64; }
  std::size_t b_floats() const { return static_cast<std::size_t>(kc * nc) + 64; }
};

BlockSizes block_sizes(Index m, Index n, Index k) {
  BlockSizes s{k, n, m};
#ifdef TS_CPU_GEMM_EIGEN_INTERNAL
  Eigen::internal::computeProductBlockingSizes<float, float, 1>(s.kc, s.mc, s.nc, Index{1});
#endif
  return s;
}

#ifdef TS_CPU_GEMM_EIGEN_INTERNAL
class FixedBlocking : public Eigen::internal::level3_blocking<float, float> {
 public:
  FixedBlocking(float* block_a, float* block_b, const BlockSizes& s) {
    m_blockA = block_a;
    m_blockB = block_b;
    m_mc = s.mc;
    m_nc = s.nc;
    m_kc = s.kc;
  }
};
#endif

// One thread's share of a product: C[m,n] += alpha * op(A)[m,k] * op(B)[k,n].
struct Part {
  Index m = 0, n = 0;
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;
  BlockSizes sizes{};
};

// Serial f32 product for one part; lda/ldb/ldc are the full matrices' leading dimensions.
template <bool kTransA, bool kTransB>
void run_part(const Part& p, Index k, float alpha, Index lda, Index ldb, Index ldc,
              float* block_a, float* block_b) {
  constexpr int kOrderA = kTransA ? Eigen::ColMajor : Eigen::RowMajor;
  constexpr int kOrderB = kTransB ? Eigen::ColMajor : Eigen::RowMajor;
#ifdef TS_CPU_GEMM_EIGEN_INTERNAL
  FixedBlocking blocking(block_a, block_b, p.sizes);
  Eigen::internal::general_matrix_matrix_product<Index, float, kOrderA, false, float, kOrderB,
                                                 false, Eigen::RowMajor, 1>::run(p.m, p.n, k, p.a,
                                                                                 lda, p.b, ldb,
                                                                                 p.c, 1, ldc,
                                                                                 alpha, blocking,
                                                                                 nullptr);
#else
  (void)block_a, (void)block_b;
  using MatA = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, kOrderA>;
  using MatB = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, kOrderB>;
  using MatC = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Stride = Eigen::OuterStride<>;
  Eigen::Map<const MatA, 0, Stride> ma(p.a, p.m, k, Stride(lda));
  Eigen::Map<const MatB, 0, Stride> mb(p.b, k, p.n, Stride(ldb));
  Eigen::Map<MatC, 0, Stride> mc(p.c, p.m, p.n, Stride(ldc));
  mc.noalias() += alpha * ma * mb;
#endif
}

using PartFn = void (*)(const Part&, Index, float, Index, Index, Index, float*, float*);

PartFn part_fn(bool trans_a, bool trans_b) {
  if (trans_a) return trans_b ? run_part<true, true> : run_part<true, false>;
  return trans_b ? run_part<false, true> : run_part<false, false>;
}

}  // namespace

std::string Gemm::library_name() {
  return "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) +
         "." + std::to_string(EIGEN_MINOR_VERSION);
}

Gemm::Gemm(int threads) : threads_(std::max(threads, 1)), workspaces_(threads_) {}

// C[m,n] (+)= ...: see the header.
void Gemm::run(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
               float alpha, const View& a, const View& b, float beta, const View& c) {
  if (m <= 0 || n <= 0) return;
  const std::int64_t mn = m * n;
  const float* a32 = a.f32();
  if (a.dtype == DType::F16) {
    float* tmp = a32_.get(static_cast<std::size_t>(m * k));
    halves_to_floats(a.f16(), tmp, m * k);
    a32 = tmp;
  }
  const float* b32 = b.f32();
  if (b.dtype == DType::F16) {
    float* tmp = b32_.get(static_cast<std::size_t>(k * n));
    halves_to_floats(b.f16(), tmp, k * n);
    b32 = tmp;
  }
  float* c32 = c.dtype == DType::F32 ? c.f32() : c32_.get(static_cast<std::size_t>(mn));
  if (beta == 0.0f) {
    std::fill_n(c32, mn, 0.0f);  // never read C: it may hold NaN
  } else {
    if (c.dtype == DType::F16) halves_to_floats(c.f16(), c32, mn);
    if (beta != 1.0f)
      for (std::int64_t i = 0; i < mn; ++i) c32[i] *= beta;
  }
  if (k > 0) multiply(trans_a, trans_b, m, n, k, alpha, a32, b32, c32);
  if (c.dtype == DType::F16) floats_to_halves(c32, c.f16(), mn);
}

// C [m,n] += alpha * op(A) * op(B), f32, split by rows (m >= n) or columns of C.
void Gemm::multiply(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
                    float alpha, const float* a, const float* b, float* c) {
  const Index lda = trans_a ? m : k, ldb = trans_b ? k : n, ldc = n;
  const bool split_rows = m >= n;
  const Index dim = split_rows ? m : n;
  constexpr Index kGrain = 16;  // parts are whole multiples of 16 rows/columns
  const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  const int parts = work >= kMinParallelWork ? threads_for(threads_, dim, kGrain) : 1;

  Part part[64];  // threads beyond 64 would not help these sizes
  const int count = std::min(parts, 64);
  const Index chunks = (dim + kGrain - 1) / kGrain;
  for (int t = 0; t < count; ++t) {
    const Index begin = std::min(dim, chunks * t / count * kGrain);
    const Index end = std::min(dim, chunks * (t + 1) / count * kGrain);
    Part& p = part[t];
    if (split_rows) {
      p = {end - begin, n, trans_a ? a + begin : a + begin * lda, b, c + begin * ldc, {}};
    } else {
      p = {m, end - begin, a, trans_b ? b + begin * ldb : b + begin, c + begin, {}};
    }
    p.sizes = block_sizes(p.m, p.n, k);
    // Grow packing buffers here, outside any parallel region (growth may throw).
    workspaces_[t].block_a.get(p.sizes.a_floats());
    workspaces_[t].block_b.get(p.sizes.b_floats());
  }

  const PartFn fn = part_fn(trans_a, trans_b);
  auto run_one = [&](int t) {
    if (part[t].m == 0 || part[t].n == 0) return;
    fn(part[t], k, alpha, lda, ldb, ldc, workspaces_[t].block_a.get(0),
       workspaces_[t].block_b.get(0));
  };
  if (count == 1) {
    run_one(0);
    return;
  }
#ifdef _OPENMP
#pragma omp parallel num_threads(count)
  {
    // OpenMP may grant fewer threads than asked for: each takes every nt-th part.
    const int nt = omp_get_num_threads();
    for (int t = omp_get_thread_num(); t < count; t += nt) run_one(t);
  }
#else
  for (int t = 0; t < count; ++t) run_one(t);
#endif
}

}  // namespace ts::cpu
