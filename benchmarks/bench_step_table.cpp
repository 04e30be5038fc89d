// The report's per-step figures packed (analysis::StepTable) against the same steps as a
// std::vector<StepSummary>, in one process: bytes a step, packing, a pass over every step (as
// each of the analysis's per-step passes reads them) and reading steps at random places.
//
//   build/benchmarks/bench_step_table --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "profiler/analysis/step_table.hpp"

namespace {

namespace a = ts::analysis;

// Steps of about 50 ms with the figures an analysis gives them (input wait, device compute, idle
// by cause), varying from step to step.
std::vector<a::StepSummary> steps(std::size_t n) {
  std::vector<a::StepSummary> out(n);
  std::mt19937_64 rng(1);
  for (std::size_t i = 0; i < n; ++i) {
    a::StepSummary& s = out[i];
    s.step = static_cast<std::int64_t>(i);
    s.start_ns = 1'700'000'000'000'000'000 + static_cast<std::int64_t>(i) * 50'000'000;
    s.dur_ns = 45'000'000 + static_cast<std::int64_t>(rng() % 10'000'000);
    s.parts[a::Part::device_compute] = s.dur_ns / 2 + static_cast<std::int64_t>(rng() % 1000);
    s.parts[a::Part::input_wait] = static_cast<std::int64_t>(rng() % 5'000'000);
    s.parts[a::Part::launch] = static_cast<std::int64_t>(rng() % 100'000);
    s.parts[a::Part::other] = s.dur_ns - s.parts[a::Part::device_compute] -
                              s.parts[a::Part::input_wait] - s.parts[a::Part::launch];
    s.input_ns = s.parts[a::Part::input_wait];
    s.input_pct = 100.0 * static_cast<double>(s.input_ns) / static_cast<double>(s.dur_ns);
    s.device_busy_ns = s.parts[a::Part::device_compute];
    s.idle_by_cause_ns[static_cast<int>(a::IdleCause::input)] = s.parts[a::Part::input_wait];
    s.idle_by_cause_ns[static_cast<int>(a::IdleCause::host)] =
        s.dur_ns - s.device_busy_ns - s.parts[a::Part::input_wait];
    s.input_wait_all_ns = s.input_ns;
    s.epoch = 1 + static_cast<int>(i / 1000);
  }
  return out;
}

constexpr std::size_t kSteps = 1'000'000;

void BM_Pack(benchmark::State& state) {
  const auto list = steps(kSteps);
  for (auto _ : state) {
    a::StepTable table(list);
    benchmark::DoNotOptimize(table.size());
    state.counters["bytes_per_step"] =
        static_cast<double>(table.memory_bytes()) / static_cast<double>(kSteps);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kSteps));
}

template <class Steps>
void pass(benchmark::State& state, const Steps& all) {
  for (auto _ : state) {
    std::int64_t sum = 0;
    for (const a::StepSummary& s : all) sum += s.warmup ? 0 : s.dur_ns + s.input_ns;
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(all.size()));
}

void BM_PassVector(benchmark::State& state) {
  const auto list = steps(kSteps);
  state.counters["bytes_per_step"] = sizeof(a::StepSummary);
  pass(state, list);
}

void BM_PassTable(benchmark::State& state) {
  const a::StepTable table(steps(kSteps));
  state.counters["bytes_per_step"] =
      static_cast<double>(table.memory_bytes()) / static_cast<double>(kSteps);
  pass(state, table);
}

template <class Steps>
void random_reads(benchmark::State& state, const Steps& all) {
  std::mt19937_64 rng(2);
  std::vector<std::size_t> at(4096);
  for (std::size_t& i : at) i = rng() % all.size();
  for (auto _ : state) {
    std::int64_t sum = 0;
    for (const std::size_t i : at) sum += a::StepSummary(all[i]).dur_ns;
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(at.size()));
}

void BM_RandomVector(benchmark::State& state) {
  random_reads(state, steps(kSteps));
}
void BM_RandomTable(benchmark::State& state) {
  random_reads(state, a::StepTable(steps(kSteps)));
}

BENCHMARK(BM_Pack)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PassVector)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PassTable)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RandomVector)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RandomTable)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
