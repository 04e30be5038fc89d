// The gradient allreduce of data-parallel training, blocking against bucketed, under mpirun:
//
//   mpirun -np 2 build/benchmarks/bench_allreduce [--models mlp,cnn] [--backend cpu|opencl]
//          [--samples N] [--epochs N] [--rounds N] [--bucket-kib N] [--threads N]
//
// For each model it trains the same job with each mode, alternated `rounds` times (in-memory
// synthetic digits, batch 32 per rank, one CPU backend thread per rank by default), and reports
// the median step time, the job's samples/s, the time the trainer spends in the reducer per step
// (its exposed cost: the allreduce, waiting for the other ranks, pre/post scaling), the cost of
// the same allreduce alone (no training around it: the communication itself), how much of it
// bucketing hid behind backward, and on a device the gradient download/upload per step.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "engine/backend/factory.hpp"
#include "engine/data/pipeline/make_source.hpp"
#include "engine/dist/gradient_reducer.hpp"
#include "engine/dist/runtime.hpp"
#include "engine/nn/models.hpp"

namespace {

using namespace ts;

struct Args {
  std::vector<std::string> models{"mlp", "cnn"};
  std::string backend = "cpu";
  std::int64_t samples = 8192;
  int epochs = 2, rounds = 3, threads = 1;
  std::size_t bucket_bytes = dist::GradientReducer::kDefaultBucketBytes;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--models") {
      a.models.clear();
      for (std::size_t at = 0; at <= v.size();) {
        const std::size_t comma = std::min(v.find(',', at), v.size());
        a.models.push_back(v.substr(at, comma - at));
        at = comma + 1;
      }
    } else if (k == "--backend") {
      a.backend = v;
    } else if (k == "--samples") {
      a.samples = std::atoll(v.c_str());
    } else if (k == "--epochs") {
      a.epochs = std::atoi(v.c_str());
    } else if (k == "--rounds") {
      a.rounds = std::atoi(v.c_str());
    } else if (k == "--bucket-kib") {
      a.bucket_bytes = static_cast<std::size_t>(std::atoll(v.c_str())) << 10;
    } else if (k == "--threads") {
      a.threads = std::atoi(v.c_str());
    } else {
      std::fprintf(stderr, "bench_allreduce: unknown option %s\n", k.c_str());
      std::exit(2);
    }
  }
  return a;
}

struct Sample {
  double step_us = 0, samples_per_s = 0, exposed_us = 0, copy_us = 0, ops = 0;
  std::int64_t bytes = 0;
};

Sample run(const Args& a, dist::Communicator& comm, Backend& be, const std::string& model_name,
           dist::AllreduceMode mode) {
  const auto source = make_sample_source("synthetic:" + std::to_string(a.samples), 1);
  auto model = make_model(model_name, Shape{28, 28, 1}, 10);
  CompileOptions compile;
  model->compile(be, make_optimizer("adam", 0.0f), compile);
  PipelineOptions po = naive_pipeline(32);
  po.shard_index = comm.rank();
  po.shard_count = comm.size();
  Pipeline input(source, po);
  FitOptions fit;
  fit.epochs = a.epochs;
  fit.data_parallel.comm = &comm;
  fit.data_parallel.allreduce = mode;
  fit.data_parallel.bucket_bytes = a.bucket_bytes;
  const auto t0 = std::chrono::steady_clock::now();
  const FitResult r = model->fit(input, fit);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Sample s;
  const double steps = static_cast<double>(std::max<std::int64_t>(1, r.steps));
  s.step_us = seconds / steps * 1e6;
  s.samples_per_s = r.samples_per_s;
  s.exposed_us = static_cast<double>(r.reduce.exposed_ns) / steps / 1e3;
  s.copy_us = r.gradient_copy_seconds / steps * 1e6;
  s.ops = static_cast<double>(r.reduce.buckets) / steps;
  s.bytes = r.reduce.bytes / std::max<std::int64_t>(1, r.reduce.steps);
  return s;
}

// The allreduce alone: `floats` floats, blocking, median of `reps`.
double raw_allreduce_us(dist::Communicator& comm, std::size_t floats, int reps) {
  std::vector<float> buf(floats, 1.0f);
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    comm.barrier();
    const auto t0 = std::chrono::steady_clock::now();
    comm.allreduce(buf.data(), buf.size(), 0.5f);
    t.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  dist::Communicator& comm = dist::world();
  const bool speak = comm.rank() == 0;
  if (comm.size() < 2 && speak)
    std::printf("bench_allreduce: one rank only (run it under mpirun -np 2): no allreduce\n");
  BackendRequest request;
  request.kind = a.backend;
  request.cpu_threads = a.threads;
  std::unique_ptr<Backend> be = make_backend(request).backend;
  if (speak)
    std::printf(
        "%d ranks, backend %s (%s), %lld samples x %d epochs, batch 32 per rank, "
        "bucket %zu KiB, %d rounds (medians)\n\n",
        comm.size(), be->kind().c_str(), be->device_name().c_str(),
        static_cast<long long>(a.samples), a.epochs, a.bucket_bytes >> 10, a.rounds);
  if (speak)
    std::printf("%-5s %-9s %10s %12s %9s %11s %10s %10s %9s\n", "model", "allreduce", "step us",
                "samples/s", "ops/step", "exposed us", "alone us", "hidden", "copy us");
  for (const std::string& model : a.models) {
    std::vector<Sample> samples[2];
    for (int round = 0; round < a.rounds; ++round)
      for (const auto mode : {dist::AllreduceMode::blocking, dist::AllreduceMode::bucketed})
        samples[static_cast<int>(mode)].push_back(run(a, comm, *be, model, mode));
    const std::int64_t bytes = samples[0].front().bytes;
    const double alone = raw_allreduce_us(comm, static_cast<std::size_t>(bytes) / 4, 200);
    for (const auto mode : {dist::AllreduceMode::blocking, dist::AllreduceMode::bucketed}) {
      const auto& v = samples[static_cast<int>(mode)];
      const auto pick = [&](double Sample::*f) {
        std::vector<double> x;
        for (const Sample& s : v) x.push_back(s.*f);
        return median(x);
      };
      const double exposed = pick(&Sample::exposed_us);
      if (speak)
        std::printf("%-5s %-9s %10.1f %12.0f %9.1f %11.1f %10.1f %9.0f%% %9.1f\n", model.c_str(),
                    dist::mode_name(mode), pick(&Sample::step_us), pick(&Sample::samples_per_s),
                    pick(&Sample::ops), exposed, alone,
                    alone > 0 ? std::max(0.0, 100.0 * (alone - exposed) / alone) : 0.0,
                    pick(&Sample::copy_us));
    }
    if (speak)
      std::printf("      (gradients: %lld bytes per step)\n", static_cast<long long>(bytes));
  }
  dist::finalize();
  return 0;
}
