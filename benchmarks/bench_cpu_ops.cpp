// CPU backend micro-benchmarks: the GEMMs and ops of the MLP headline workload (Flatten ->
// Dense(784->128, relu) -> Dense(128->10) + softmax-xent, Adam, batch 32), the whole training
// step built from them, and conv-sized GEMMs. The argument is the backend's thread cap.
#include <benchmark/benchmark.h>

#include <vector>

#include "engine/backend/cpu/cpu_backend.hpp"
#include "engine/core/rng.hpp"

namespace {

using ts::Backend;
using ts::DType;
using ts::Shape;
using ts::Tensor;

Tensor random_tensor(Backend& be, const Shape& shape, std::uint64_t seed, float scale = 0.1f) {
  Tensor t = be.alloc(shape, DType::F32);
  ts::Rng rng(seed);
  std::vector<float> v(static_cast<std::size_t>(shape.numel()));
  for (auto& x : v) x = rng.uniform(-scale, scale);
  be.upload(t, v.data());
  return t;
}

void gemm_bench(benchmark::State& state, bool ta, bool tb, std::int64_t m, std::int64_t n,
                std::int64_t k, DType dtype) {
  auto be = ts::make_cpu_backend(static_cast<int>(state.range(0)));
  Tensor a = random_tensor(*be, ta ? Shape{k, m} : Shape{m, k}, 1);
  Tensor b = random_tensor(*be, tb ? Shape{n, k} : Shape{k, n}, 2);
  Tensor c = be->alloc(Shape{m, n}, dtype);
  if (dtype == DType::F16) {
    Tensor a16 = be->alloc(a.shape, DType::F16), b16 = be->alloc(b.shape, DType::F16);
    be->copy(a, a16);
    be->copy(b, b16);
    a = a16;
    b = b16;
  }
  for (auto _ : state) be->gemm(ta, tb, m, n, k, 1.0f, a, b, 0.0f, c);
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * m * n * k * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

// The MLP's forward/backward GEMMs.
void BM_Gemm_32x784x128_NN(benchmark::State& s) {
  gemm_bench(s, false, false, 32, 128, 784, DType::F32);
}
void BM_Gemm_784x128x32_TN(benchmark::State& s) {
  gemm_bench(s, true, false, 784, 128, 32, DType::F32);
}
void BM_Gemm_32x10x128_NN(benchmark::State& s) {
  gemm_bench(s, false, false, 32, 10, 128, DType::F32);
}
void BM_Gemm_128x10x32_TN(benchmark::State& s) {
  gemm_bench(s, true, false, 128, 10, 32, DType::F32);
}
void BM_Gemm_32x128x10_NT(benchmark::State& s) {
  gemm_bench(s, false, true, 32, 128, 10, DType::F32);
}
void BM_Gemm_32x784x128_NN_F16(benchmark::State& s) {
  gemm_bench(s, false, false, 32, 128, 784, DType::F16);
}
// Conv-sized (im2col) GEMMs: batch 32, 26x26 outputs, 3x3x32 -> 64 channels.
void BM_Gemm_21632x64x288_NN(benchmark::State& s) {
  gemm_bench(s, false, false, 21632, 64, 288, DType::F32);
}
void BM_Gemm_288x64x21632_TN(benchmark::State& s) {
  gemm_bench(s, true, false, 288, 64, 21632, DType::F32);
}
void BM_Gemm_21632x288x64_NT(benchmark::State& s) {
  gemm_bench(s, false, true, 21632, 288, 64, DType::F32);
}
BENCHMARK(BM_Gemm_32x784x128_NN)->Arg(1)->Arg(2);
BENCHMARK(BM_Gemm_784x128x32_TN)->Arg(1)->Arg(2);
BENCHMARK(BM_Gemm_32x10x128_NN)->Arg(1);
BENCHMARK(BM_Gemm_128x10x32_TN)->Arg(1);
BENCHMARK(BM_Gemm_32x128x10_NT)->Arg(1);
BENCHMARK(BM_Gemm_32x784x128_NN_F16)->Arg(1)->Arg(2);
BENCHMARK(BM_Gemm_21632x64x288_NN)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Gemm_288x64x21632_TN)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Gemm_21632x288x64_NT)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);

struct Mlp {
  static constexpr std::int64_t kBatch = 32, kIn = 784, kHidden = 128, kClasses = 10;
  explicit Mlp(Backend& be) : be(be) {
    x = random_tensor(be, Shape{kBatch, kIn}, 1, 1.0f);
    labels = be.alloc(Shape{kBatch}, DType::I32);
    std::vector<std::int32_t> l(kBatch);
    for (std::int64_t i = 0; i < kBatch; ++i) l[i] = static_cast<std::int32_t>(i % kClasses);
    be.upload(labels, l.data());
    const Shape shapes[4] = {{kIn, kHidden}, {kHidden}, {kHidden, kClasses}, {kClasses}};
    for (int i = 0; i < 4; ++i) {
      param[i] = random_tensor(be, shapes[i], 10 + i);
      grad[i] = be.alloc(shapes[i], DType::F32);
      m[i] = be.alloc(shapes[i], DType::F32);
      v[i] = be.alloc(shapes[i], DType::F32);
      be.fill(m[i], 0.0f);
      be.fill(v[i], 0.0f);
    }
    h = be.alloc(Shape{kBatch, kHidden}, DType::F32);
    dh = be.alloc(Shape{kBatch, kHidden}, DType::F32);
    logits = be.alloc(Shape{kBatch, kClasses}, DType::F32);
    dlogits = be.alloc(Shape{kBatch, kClasses}, DType::F32);
    probs = be.alloc(Shape{kBatch, kClasses}, DType::F32);
    loss = be.alloc(Shape{kBatch}, DType::F32);
    correct = be.alloc(Shape{kBatch}, DType::F32);
    total = be.alloc(Shape{2}, DType::F32);
  }
  void forward() {
    be.gemm(false, false, kBatch, kHidden, kIn, 1.0f, x, param[0], 0.0f, h);
    be.bias_add(h, param[1]);
    be.relu(h, h);
    be.gemm(false, false, kBatch, kClasses, kHidden, 1.0f, h, param[2], 0.0f, logits);
    be.bias_add(logits, param[3]);
    be.softmax_xent(logits, labels, probs, loss, correct);
  }
  void backward() {
    be.softmax_xent_backward(probs, labels, 1.0f / kBatch, dlogits);
    be.gemm(true, false, kHidden, kClasses, kBatch, 1.0f, h, dlogits, 0.0f, grad[2]);
    be.bias_grad(dlogits, grad[3], false);
    be.gemm(false, true, kBatch, kHidden, kClasses, 1.0f, dlogits, param[2], 0.0f, dh);
    be.relu_backward(h, dh, dh);
    be.gemm(true, false, kIn, kHidden, kBatch, 1.0f, x, dh, 0.0f, grad[0]);
    be.bias_grad(dh, grad[1], false);
  }
  void update(std::int64_t step) {
    for (int i = 0; i < 4; ++i) be.adam_update(param[i], grad[i], m[i], v[i], {}, step);
  }
  Backend& be;
  Tensor x, labels, param[4], grad[4], m[4], v[4], h, dh, logits, dlogits, probs, loss, correct,
      total;
};

void BM_MlpForward(benchmark::State& state) {
  auto be = ts::make_cpu_backend(static_cast<int>(state.range(0)));
  Mlp mlp(*be);
  for (auto _ : state) mlp.forward();
}
void BM_MlpBackward(benchmark::State& state) {
  auto be = ts::make_cpu_backend(static_cast<int>(state.range(0)));
  Mlp mlp(*be);
  mlp.forward();
  for (auto _ : state) mlp.backward();
}
void BM_MlpAdam(benchmark::State& state) {
  auto be = ts::make_cpu_backend(static_cast<int>(state.range(0)));
  Mlp mlp(*be);
  std::int64_t step = 1;
  for (auto _ : state) mlp.update(step++);
}
// A whole step as the fit loop runs it: upload the batch, forward, backward, Adam, read metrics.
void BM_MlpTrainStep(benchmark::State& state) {
  auto be = ts::make_cpu_backend(static_cast<int>(state.range(0)));
  Mlp mlp(*be);
  std::vector<float> batch(Mlp::kBatch * Mlp::kIn, 0.5f);
  float metrics[2];
  std::int64_t step = 1;
  for (auto _ : state) {
    be->upload(mlp.x, batch.data());
    mlp.forward();
    mlp.backward();
    mlp.update(step++);
    be->sum(mlp.loss, mlp.total.view(0, Shape{1}));
    be->sum(mlp.correct, mlp.total.view(1, Shape{1}));
    be->download(mlp.total, metrics);
  }
  state.counters["samples/s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * Mlp::kBatch), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_MlpForward)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MlpBackward)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MlpAdam)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MlpTrainStep)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
