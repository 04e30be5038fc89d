// GCC 12 warns about the deliberately undefined registers in its own AVX-512 intrinsics
// (GCC PR 105593, fixed in GCC 13); the pragmas must precede the first intrinsics include.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include "engine/backend/cpu/cpu_gemm.hpp"

#define EIGEN_DONT_PARALLELIZE  // threads are split here, not inside Eigen
#include <Eigen/Core>
#include <algorithm>

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
#ifdef TS_CPU_GEMM_EIGEN_INTERNAL
  BlockSizes s{k, n, m};
  Eigen::internal::computeProductBlockingSizes<float, float, 1>(s.kc, s.mc, s.nc, Index{1});
  return s;
#else
  (void)m, (void)n, (void)k;
  return {0, 0, 0};  // Eigen allocates its own packing buffers
#endif
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
void run_part(const Part& p, Index k, float alpha, Index lda, Index ldb, Index ldc, float* block_a,
              float* block_b) {
  constexpr int kOrderA = kTransA ? Eigen::ColMajor : Eigen::RowMajor;
  constexpr int kOrderB = kTransB ? Eigen::ColMajor : Eigen::RowMajor;
#ifdef TS_CPU_GEMM_EIGEN_INTERNAL
  FixedBlocking blocking(block_a, block_b, p.sizes);
  using Product =
      Eigen::internal::general_matrix_matrix_product<Index, float, kOrderA, false, float, kOrderB,
                                                     false, Eigen::RowMajor, 1>;
  Product::run(p.m, p.n, k, p.a, lda, p.b, ldb, p.c, 1, ldc, alpha, blocking, nullptr);
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
  return "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." +
         std::to_string(EIGEN_MAJOR_VERSION) + "." + std::to_string(EIGEN_MINOR_VERSION);
}

Gemm::Gemm(ThreadPool& pool) : pool_(pool), workspaces_(static_cast<std::size_t>(pool.threads())) {}

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

// C [m,n] += alpha * op(A) * op(B), f32, split by rows (m >= n) or columns of C into parts
// that the pool's workers claim.
void Gemm::multiply(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
                    float alpha, const float* a, const float* b, float* c) {
  const Index lda = trans_a ? m : k, ldb = trans_b ? k : n, ldc = n;
  const bool split_rows = m >= n;
  const Index dim = split_rows ? m : n;
  constexpr Index kGrain = 16;  // parts are whole multiples of 16 rows/columns
  constexpr int kMaxParts = 16;
  const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  // One part per thread; twice that for big products, so a helper that starts late still
  // takes a share.
  const Index per_thread = work >= 16 * kMinParallelWork ? 2 : 1;
  const Index parts =
      pool_.threads() == 1 || work < kMinParallelWork
          ? 1
          : std::clamp<Index>(dim / kGrain, 1,
                              std::min<Index>(kMaxParts, pool_.threads() * per_thread));

  Part part[kMaxParts];
  const Index units = (dim + kGrain - 1) / kGrain;
  BlockSizes largest{0, 0, 0};
  for (Index t = 0; t < parts; ++t) {
    const Index begin = std::min(dim, units * t / parts * kGrain);
    const Index end = std::min(dim, units * (t + 1) / parts * kGrain);
    Part& p = part[t];
    if (split_rows) {
      p = {end - begin, n, trans_a ? a + begin : a + begin * lda, b, c + begin * ldc, {}};
    } else {
      p = {m, end - begin, a, trans_b ? b + begin * ldb : b + begin, c + begin, {}};
    }
    p.sizes = block_sizes(p.m, p.n, k);
    largest.kc = std::max(largest.kc, p.sizes.kc);
    largest.mc = std::max(largest.mc, p.sizes.mc);
    largest.nc = std::max(largest.nc, p.sizes.nc);
  }
  // Any worker may run any part: size every worker's packing buffers for the largest one
  // (here, before the parallel region, since growing may throw).
  const std::size_t need_workers = parts == 1 ? 1 : workspaces_.size();
  for (std::size_t w = 0; w < need_workers; ++w) {
    workspaces_[w].block_a.get(largest.a_floats());
    workspaces_[w].block_b.get(largest.b_floats());
  }

  const PartFn fn = part_fn(trans_a, trans_b);
  auto run_part = [&](std::int64_t t, int worker) {
    const Part& p = part[t];
    if (p.m == 0 || p.n == 0) return;
    Workspace& ws = workspaces_[static_cast<std::size_t>(worker)];
    fn(p, k, alpha, lda, ldb, ldc, ws.block_a.get(0), ws.block_b.get(0));
  };
  if (parts == 1) {
    run_part(0, 0);
  } else {
    pool_.run(parts, run_part);
  }
}

}  // namespace ts::cpu
