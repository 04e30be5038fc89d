// GEMM for the CPU backend: Eigen's blocked f32 kernel with caller-owned packing buffers (no
// allocation after warm-up), split over threads for large products, F16 operands converted
// through reusable f32 scratch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_buffer.hpp"
#include "engine/backend/cpu/cpu_thread_pool.hpp"
#include "engine/backend/cpu/cpu_view.hpp"

namespace ts::cpu {

class Gemm {
 public:
  explicit Gemm(ThreadPool& pool);

  // C[m,n] = alpha * op(A)[m,k] * op(B)[k,n] + beta * C[m,n], row-major; op(A) is A [m,k] or,
  // with trans_a, A^T for A stored [k,m] (likewise B: [k,n] or [n,k]). A, B, C: F32/F16 views
  // holding at least m*k, k*n, m*n elements. beta == 0 ignores C's contents.
  void run(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
           const View& a, const View& b, float beta, const View& c);

  // "Eigen 3.4.0": the library doing the work.
  static std::string library_name();

  // Products with at least this many multiply-adds (m*n*k) are split over threads.
  static constexpr double kMinParallelWork = 1 << 19;

 private:
  // C += alpha * op(A) op(B), all f32, leading dimensions implied by the shapes.
  void multiply(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
                float alpha, const float* a, const float* b, float* c);

  struct Workspace {  // one worker's packing buffers for Eigen's kernel
    Scratch block_a, block_b;
  };
  ThreadPool& pool_;
  std::vector<Workspace> workspaces_;  // indexed by pool worker
  Scratch a32_, b32_, c32_;            // f32 copies of F16 operands
};

}  // namespace ts::cpu
