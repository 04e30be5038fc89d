#include "profiler/synth/kineto_job.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "profiler/io/gzip_stream.hpp"

namespace ts::synth {

namespace {

constexpr double kBaseUs = 1.7e15;  // a wall-clock epoch in µs, as Kineto writes its timestamps
constexpr double kLaunchUs = 27;    // host time per operator that launches a kernel
constexpr double kH2dUs = 150;
constexpr double kInputUs = 1500;
constexpr double kAllReduceUs = 1600;  // the job's transfer, after the slowest rank's backward
constexpr double kOptimizerUs = 300;
constexpr int kComputeStream = 7, kNcclStream = 20;
constexpr std::int64_t kPid = 4000;

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double uniform(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  return static_cast<double>(mix(mix(mix(seed ^ a) ^ b) ^ c) >> 11) * 0x1.0p-53;
}

// One rank's step, in µs from the step's start.
struct StepPlan {
  double input = 0;
  std::vector<double> kernels;  // durations, forward then backward
  double backward_end = 0;      // the device's, before the all-reduce
  double launches_end = 0;      // the host's, after the last backward launch
};

StepPlan plan_step(const KinetoJobOptions& o, int rank, std::int64_t step) {
  StepPlan p;
  const auto s = static_cast<std::uint64_t>(step);
  p.input = kInputUs * (0.9 + 0.2 * uniform(o.seed, 1, static_cast<std::uint64_t>(rank), s));
  if (rank == o.slow_input_rank) p.input *= kSlowInputScale;
  const double scale = rank == o.straggler_rank ? kStragglerScale : 1.0;
  double host = p.input + 30, device = host + kH2dUs;
  for (int i = 0; i < o.kernels_per_step; ++i) {
    // The same layer has the same size on every rank and step; each run of it varies by ±5 %.
    const double base = 40 + 420 * uniform(o.seed, 2, static_cast<std::uint64_t>(i), 0);
    const double jitter =
        0.95 + 0.1 * uniform(o.seed, 3, static_cast<std::uint64_t>(rank) << 20 | i, s);
    p.kernels.push_back(base * jitter * scale);
    host += kLaunchUs;
    device = std::max(device, host) + p.kernels.back();
  }
  p.backward_end = device;
  p.launches_end = host;
  return p;
}

struct Writer {
  std::string buffer;
  bool first = true;
  std::int64_t events = 0;

  void raw(const char* text) { buffer += text; }
  void event(const char* cat, const std::string& name, std::int64_t tid, double ts, double dur,
             const std::string& args, std::int64_t pid = kPid) {
    char head[192];
    std::snprintf(head, sizeof head, "%s\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"",
                  first ? "" : ",", cat);
    buffer += head;
    buffer += name;
    std::snprintf(head, sizeof head, "\",\"pid\":%lld,\"tid\":%lld,\"ts\":%.3f,\"dur\":%.3f",
                  static_cast<long long>(pid), static_cast<long long>(tid), kBaseUs + ts,
                  std::max(dur, 0.001));
    buffer += head;
    if (!args.empty()) buffer += ",\"args\":{" + args + "}";
    buffer += "}";
    first = false;
    ++events;
  }
};

std::string kernel_args(std::int64_t correlation, int stream, double occupancy) {
  char text[192];
  std::snprintf(
      text, sizeof text,
      "\"device\":0,\"context\":1,\"stream\":%d,\"correlation\":%lld,\"External "
      "id\":%lld,\"grid\":[80,1,1],\"block\":[256,1,1],\"est. achieved occupancy %%\":%.0f",
      stream, static_cast<long long>(correlation), static_cast<long long>(correlation), occupancy);
  return text;
}

std::string correlation_args(std::int64_t correlation) {
  return "\"correlation\":" + std::to_string(correlation) +
         ",\"External id\":" + std::to_string(correlation);
}

// Writes one step of one rank; returns the step's end (µs from the trace's start).
double write_step(Writer& w, const KinetoJobOptions& o, int rank, std::int64_t step, double t0,
                  double sync_point, std::int64_t& correlation) {
  const StepPlan p = plan_step(o, rank, step);
  const std::int64_t tid = kPid;
  const double end_of_reduce = t0 + sync_point + kAllReduceUs;
  const double end = end_of_reduce + kOptimizerUs + 60;
  w.event("user_annotation", "ProfilerStep#" + std::to_string(step), tid, t0, end - t0, "");
  w.event("cpu_op", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", tid, t0,
          p.input, "");
  double host = t0 + p.input;
  ++correlation;
  w.event("cpu_op", "aten::to", tid, host, 28, "");
  w.event("cuda_runtime", "cudaMemcpyAsync", tid, host + 4, 20, correlation_args(correlation));
  w.event("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", kComputeStream, host + 30, kH2dUs,
          kernel_args(correlation, kComputeStream, 0), 0);
  host += 30;
  double device = host + kH2dUs;
  const int forward = o.kernels_per_step / 3;
  for (int i = 0; i < o.kernels_per_step; ++i) {
    const bool fwd = i < forward, gemm = i % 2 == 0;
    const std::string op = fwd ? (gemm ? "aten::linear" : "aten::relu")
                               : (gemm ? "autograd::engine::evaluate_function: AddmmBackward0"
                                       : "autograd::engine::evaluate_function: ReluBackward0");
    const std::string kernel =
        gemm ? "ampere_sgemm_128x64_tn"
             : "void at::native::vectorized_elementwise_kernel<4, at::native::relu_kernel>(int, "
               "float*, float*)";
    ++correlation;
    w.event("cpu_op", op, tid, host, kLaunchUs - 2, "");
    w.event("cuda_runtime", "cudaLaunchKernel", tid, host + 5, 15, correlation_args(correlation));
    host += kLaunchUs;
    const double start = std::max(device, host);
    w.event("kernel", kernel, kComputeStream, start, p.kernels[static_cast<std::size_t>(i)],
            kernel_args(correlation, kComputeStream, gemm ? 62 : 38), 0);
    device = start + p.kernels[static_cast<std::size_t>(i)];
  }
  // The all-reduce: buckets launched after backward's last launch, the last one waiting for the
  // slowest rank.
  const int buckets = rank == o.more_collectives_rank ? 8 : 4;
  double nccl = std::max(device, t0 + p.backward_end);
  for (int b = 0; b < buckets; ++b) {
    ++correlation;
    w.event("user_annotation", "nccl:all_reduce", tid, host, 20, "");
    w.event("cuda_runtime", "cudaLaunchKernel", tid, host + 4, 12, correlation_args(correlation));
    host += 22;
    const double start = std::max(nccl, host);
    const double dur = b + 1 < buckets ? kAllReduceUs / buckets / 2 : end_of_reduce - start;
    w.event("kernel",
            "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
            kNcclStream, start, dur, kernel_args(correlation, kNcclStream, 5), 0);
    nccl = start + dur;
  }
  w.event("cuda_runtime", "cudaStreamSynchronize", tid, host, end_of_reduce - host,
          "\"correlation\":0");
  ++correlation;
  w.event("cpu_op", "Optimizer.step#Adam.step", tid, end_of_reduce + 2, 50, "");
  w.event("cuda_runtime", "cudaLaunchKernel", tid, end_of_reduce + 10, 15,
          correlation_args(correlation));
  w.event("kernel",
          "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::"
          "(anonymous namespace)::FusedAdamMathFunctor<float, 4>>",
          kComputeStream, end_of_reduce + 30, kOptimizerUs,
          kernel_args(correlation, kComputeStream, 50), 0);
  return end;
}

void write_rank(const std::string& path, const KinetoJobOptions& o, int rank,
                const std::vector<double>& sync_points, KinetoJobResult& totals,
                std::mutex& totals_mutex) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) throw std::runtime_error("cannot write " + path);
  std::unique_ptr<io::GzipOstream> gz;
  if (o.gzip) gz = std::make_unique<io::GzipOstream>(file);
  std::ostream& out = gz ? static_cast<std::ostream&>(*gz) : file;
  Writer w;
  char head[512];
  std::snprintf(head, sizeof head,
                "{\"schemaVersion\":1,\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":%d,"
                "\"world_size\":%d},\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA A100-SXM4-"
                "40GB\",\"totalGlobalMem\":42505273344,\"computeMajor\":8,\"computeMinor\":0,"
                "\"maxThreadsPerBlock\":1024,\"numSms\":108}],\"traceEvents\":[",
                rank, o.ranks);
  w.raw(head);
  std::snprintf(head, sizeof head,
                "\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%lld,\"tid\":0,\"args\":{"
                "\"name\":\"python (rank %d)\"}}",
                static_cast<long long>(kPid), rank);
  w.raw(head);
  w.first = false;
  std::int64_t raw = 0, correlation = static_cast<std::int64_t>(rank) << 32;
  double t = 0;
  for (std::size_t s = 0; s < sync_points.size(); ++s) {
    t = write_step(w, o, rank, static_cast<std::int64_t>(s), t, sync_points[s], correlation);
    if (w.buffer.size() > (1u << 20)) {
      out.write(w.buffer.data(), static_cast<std::streamsize>(w.buffer.size()));
      raw += static_cast<std::int64_t>(w.buffer.size());
      w.buffer.clear();
    }
  }
  w.raw("\n]}\n");
  out.write(w.buffer.data(), static_cast<std::streamsize>(w.buffer.size()));
  raw += static_cast<std::int64_t>(w.buffer.size());
  if (gz) gz->finish();
  file.flush();
  if (!file) throw std::runtime_error("cannot write " + path);
  file.close();
  std::lock_guard lock(totals_mutex);
  totals.raw_bytes += raw;
  totals.bytes += static_cast<std::int64_t>(std::filesystem::file_size(path));
  totals.events += w.events;
}

}  // namespace

KinetoJobResult write_kineto_job(const std::string& dir, const KinetoJobOptions& o) {
  if (o.ranks < 1) throw std::runtime_error("a job needs at least one rank");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir + ": " + ec.message());
  std::int64_t steps = o.steps;
  if (steps <= 0) {  // sized by one step of the first rank as written
    Writer probe;
    std::int64_t c = 0;
    write_step(probe, o, 0, 0, 0, plan_step(o, 0, 0).backward_end, c);
    steps = std::max<std::int64_t>(
        1,
        o.rank_bytes / std::max<std::int64_t>(1, static_cast<std::int64_t>(probe.buffer.size())));
  }
  // Every rank's step ends at the slowest rank's backward, plus the all-reduce.
  std::vector<double> sync_points(static_cast<std::size_t>(steps), 0);
  for (std::int64_t s = 0; s < steps; ++s)
    for (int r = 0; r < o.ranks; ++r)
      sync_points[static_cast<std::size_t>(s)] =
          std::max(sync_points[static_cast<std::size_t>(s)], plan_step(o, r, s).backward_end);
  KinetoJobResult totals;
  totals.steps = steps;
  std::mutex totals_mutex;
  std::atomic<int> next{0};
  std::string error;
  std::mutex error_mutex;
  const int threads = std::max(
      1, std::min(o.ranks, o.threads > 0 ? o.threads
                                         : static_cast<int>(std::thread::hardware_concurrency())));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (int r = next++; r < o.ranks; r = next++) {
        const std::string path =
            dir + "/rank-" + std::to_string(r) + (o.gzip ? ".json.gz" : ".json");
        try {
          write_rank(path, o, r, sync_points, totals, totals_mutex);
        } catch (const std::exception& e) {
          std::lock_guard lock(error_mutex);
          if (error.empty()) error = e.what();
        }
      }
    });
  for (std::thread& t : pool) t.join();
  if (!error.empty()) throw std::runtime_error(error);
  return totals;
}

}  // namespace ts::synth
