// Training throughput of the built-in engine: samples/s of one training step (mlp and cnn,
// batch 32) on each backend, and the same process's GEMM peak as the ceiling they are measured
// against (achieved GFLOP/s / peak GFLOP/s).
#include <benchmark/benchmark.h>

#include <memory>

#include "engine/backend/cpu/cpu_backend.hpp"
#include "engine/backend/factory.hpp"
#include "engine/data/batcher.hpp"
#include "engine/data/synthetic.hpp"
#include "engine/nn/models.hpp"

namespace ts {
namespace {

std::unique_ptr<Backend> backend_for(const std::string& kind) {
  if (kind == "cpu") return make_cpu_backend(0);
  if (list_devices().empty()) return nullptr;
  BackendRequest r;
  r.kind = "opencl";
  return make_backend(r).backend;
}

// Multiply-adds of one forward pass per sample, times 2 flops, times 3 (forward, input
// gradient, weight gradient).
double train_flops_per_sample(const std::string& model) {
  if (model == "mlp") return 6.0 * (784 * 128 + 128 * 10);
  // cnn on 28x28: conv 26*26*9*32, conv 11*11*288*64, dense 1600*128 + 128*10
  return 6.0 * (26 * 26 * 9 * 32 + 11 * 11 * 288 * 64 + 1600 * 128 + 128 * 10);
}

void train_step(benchmark::State& state, const std::string& kind, const std::string& model_name,
                Precision precision) {
  const auto backend = backend_for(kind);
  if (!backend) {
    state.SkipWithError("no OpenCL device");
    return;
  }
  const std::int64_t batch_size = state.range(0);
  const Dataset data = make_synthetic_digits(4096, 1);
  auto model = make_model(model_name, Shape{28, 28, 1}, 10);
  CompileOptions options;
  options.precision = precision;
  model->compile(*backend, make_optimizer("adam", 0), options);
  Batcher batcher(data, batch_size, true, 1);
  HostBatch batch;
  int epoch = 0;
  batcher.start_epoch(epoch);
  for (int i = 0; i < 10; ++i) {  // warm-up: allocation, kernel compilation
    if (!batcher.next(batch)) batcher.start_epoch(++epoch), batcher.next(batch);
    model->train_step(batch);
  }
  for (auto _ : state) {
    if (!batcher.next(batch) || batch.size != batch_size) {
      batcher.start_epoch(++epoch);
      batcher.next(batch);
    }
    benchmark::DoNotOptimize(model->train_step(batch));
  }
  const double samples = static_cast<double>(state.iterations() * batch_size);
  state.counters["samples_per_s"] = benchmark::Counter(samples, benchmark::Counter::kIsRate);
  state.counters["GFLOPs"] = benchmark::Counter(samples * train_flops_per_sample(model_name) / 1e9,
                                                benchmark::Counter::kIsRate);
  state.SetLabel(backend->device_name());
}

// The ceiling: a large square SGEMM on the same backend.
void gemm_peak(benchmark::State& state, const std::string& kind) {
  const auto backend = backend_for(kind);
  if (!backend) {
    state.SkipWithError("no OpenCL device");
    return;
  }
  const std::int64_t n = state.range(0);
  Tensor a = backend->alloc(Shape{n, n}, DType::F32), b = backend->alloc(Shape{n, n}, DType::F32),
         c = backend->alloc(Shape{n, n}, DType::F32);
  backend->fill(a, 0.5f);
  backend->fill(b, 0.25f);
  backend->gemm(false, false, n, n, n, 1.0f, a, b, 0.0f, c);
  backend->finish();
  for (auto _ : state) {
    backend->gemm(false, false, n, n, n, 1.0f, a, b, 0.0f, c);
    backend->finish();
  }
  state.counters["GFLOPs"] = benchmark::Counter(
      2.0 * n * n * n * static_cast<double>(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(gemm_peak, cpu, std::string("cpu"))
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(train_step, cpu_mlp, std::string("cpu"), std::string("mlp"), Precision::FP32)
    ->Arg(32)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(train_step, cpu_mlp_mixed, std::string("cpu"), std::string("mlp"),
                  Precision::Mixed)
    ->Arg(32)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(train_step, cpu_cnn, std::string("cpu"), std::string("cnn"), Precision::FP32)
    ->Arg(32)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
#ifdef TRAINSCOPE_WITH_OPENCL
BENCHMARK_CAPTURE(gemm_peak, opencl, std::string("opencl"))
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(train_step, opencl_mlp, std::string("opencl"), std::string("mlp"),
                  Precision::FP32)
    ->Arg(32)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(train_step, opencl_mlp_mixed, std::string("opencl"), std::string("mlp"),
                  Precision::Mixed)
    ->Arg(32)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(train_step, opencl_cnn, std::string("opencl"), std::string("cnn"),
                  Precision::FP32)
    ->Arg(32)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
#endif

}  // namespace
}  // namespace ts

BENCHMARK_MAIN();
