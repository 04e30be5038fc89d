// Tracing overhead on training throughput (target: <= 2 %): the mlp, batch 32, CPU backend by
// default (--backend=opencl, --model=cnn, --batch=N measure others, e.g. on a GPU), trained by
// Sequential::fit with and without a trace session around it, in alternating runs of
// one process (8 pairs of ~1.5 s each; the first run of each pair alternates between traced and
// untraced, so drift in the machine's speed falls on both sides). Reported: the median over
// pairs of traced / untraced samples per second, the overhead that makes, the events the traced
// runs recorded per training step (the figure depends on how much the engine's instrumentation
// records) and the CPU time the trace writer thread spent per event and in all (on a machine
// whose cores training keeps busy, that time is taken from training), and apart from it the CPU
// time stop() spent indexing the staged events, after training). Also the process CPU time per
// trained sample, traced vs untraced: a figure that other load on the machine disturbs less.
//
//   bench_trace_overhead [--pairs=N] [--seconds=S] [--backend=cpu|opencl] [--model=mlp|cnn]
//                        [--batch=N] [--device-events=off] [google benchmark flags]
// --device-events=off: the traced runs record host events only (SessionOptions::device_events).
#include <benchmark/benchmark.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "engine/backend/factory.hpp"
#include "engine/data/synthetic.hpp"
#include "engine/nn/models.hpp"
#include "trainscope/session.hpp"

namespace {

constexpr std::int64_t kSamples = 8192;  // one epoch; a run is as many epochs as fill its time

int g_pairs = 8;
double g_seconds = 1.5;
std::int64_t g_batch = 32;
std::string g_backend = "cpu", g_model = "mlp";
bool g_device_events = true;

// CPU time of the whole process (training threads and, when tracing, the writer thread).
double process_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Run {
  double samples_per_s = 0, seconds = 0;
  double cpu_us_per_sample = 0;  // less sensitive to other load on the machine than throughput
  std::int64_t steps = 0;
  std::uint64_t events = 0, dropped = 0, writer_cpu_ns = 0, index_cpu_ns = 0;
};

struct Summary {
  bool valid = false;
  double ratio = 0, traced = 0, untraced = 0, events_per_step = 0, cpu_ratio = 0;
  double writer_ns_per_event = 0, writer_core_pct = 0, index_ns_per_event = 0;
  std::uint64_t dropped = 0;
};
Summary g_summary;

std::string trace_path() {
  return "/tmp/bench_trace_overhead_" + std::to_string(::getpid()) + ".db";
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

class Trainer {
 public:
  Trainer()
      : backend_(ts::make_backend({.kind = g_backend}).backend),
        data_(ts::make_synthetic_digits(kSamples, 1)),
        model_(ts::make_model(g_model, ts::Shape{28, 28, 1}, 10)) {
    model_->compile(*backend_, ts::make_optimizer("adam", 0.001f), {});
  }

  // One fit of `epochs` epochs, inside a trace session when `traced`.
  Run run(int epochs, bool traced) {
    ts::FitOptions options;
    options.epochs = epochs;
    options.batch_size = g_batch;
    options.seed = ++seed_;
    ts::trace::SessionOptions session;
    session.device_events = g_device_events;
    if (traced) ts::trace::start(trace_path(), {{"engine.model", g_model}}, session);
    const double cpu0 = process_cpu_s();
    const ts::FitResult fit = model_->fit(data_, options);
    const double cpu = process_cpu_s() - cpu0;
    Run r;
    r.cpu_us_per_sample = fit.steps > 0 ? 1e6 * cpu / static_cast<double>(fit.steps * g_batch) : 0;
    r.samples_per_s = fit.samples_per_s;
    r.steps = fit.steps;
    r.seconds =
        fit.samples_per_s > 0 ? static_cast<double>(fit.steps * g_batch) / fit.samples_per_s : 0;
    if (traced) {
      ts::trace::stop();
      const ts::trace::SessionStats stats = ts::trace::session_stats();
      r.events = stats.events_written;
      r.dropped = stats.events_dropped;
      r.writer_cpu_ns = stats.writer_cpu_ns - stats.index_cpu_ns;
      r.index_cpu_ns = stats.index_cpu_ns;
      ::unlink(trace_path().c_str());
    }
    return r;
  }

 private:
  std::unique_ptr<ts::Backend> backend_;
  ts::Dataset data_;
  std::unique_ptr<ts::Sequential> model_;
  std::uint64_t seed_ = 0;
};

void BM_TraceOverhead(benchmark::State& state) {
  if (ts::trace::session_active()) {
    state.SkipWithError("a trace session is already running (TRAINSCOPE_TRACE is set?)");
    return;
  }
  std::unique_ptr<Trainer> made;
  try {
    made = std::make_unique<Trainer>();
  } catch (const ts::BackendError& e) {
    state.SkipWithError(e.what());
    return;
  }
  Trainer& trainer = *made;
  // Warm-up (allocation, caches, thread pool), and the rate that sizes the runs.
  const Run warm = trainer.run(2, false);
  const int epochs = std::max(1, static_cast<int>(std::lround(g_seconds * warm.samples_per_s /
                                                              static_cast<double>(kSamples))));
  std::vector<double> ratios, traced, untraced, cpu_ratios;
  std::uint64_t events = 0, dropped = 0, writer_cpu_ns = 0, index_cpu_ns = 0;
  std::int64_t traced_steps = 0;
  double traced_seconds = 0;
  for (auto _ : state) {
    for (int p = 0; p < g_pairs; ++p) {
      Run t, u;
      if (p % 2 == 0) {
        t = trainer.run(epochs, true);
        u = trainer.run(epochs, false);
      } else {
        u = trainer.run(epochs, false);
        t = trainer.run(epochs, true);
      }
      ratios.push_back(t.samples_per_s / u.samples_per_s);
      cpu_ratios.push_back(t.cpu_us_per_sample / u.cpu_us_per_sample);
      traced.push_back(t.samples_per_s);
      untraced.push_back(u.samples_per_s);
      events += t.events;
      dropped += t.dropped;
      writer_cpu_ns += t.writer_cpu_ns;
      index_cpu_ns += t.index_cpu_ns;
      traced_steps += t.steps;
      traced_seconds += t.seconds;
    }
  }
  Summary& s = g_summary;
  s.valid = true;
  s.ratio = median(ratios);
  s.cpu_ratio = median(cpu_ratios);
  s.traced = median(traced);
  s.untraced = median(untraced);
  s.events_per_step = traced_steps > 0 ? static_cast<double>(events) / traced_steps : 0;
  s.dropped = dropped;
  s.writer_ns_per_event = events > 0 ? static_cast<double>(writer_cpu_ns) / events : 0;
  s.index_ns_per_event = events > 0 ? static_cast<double>(index_cpu_ns) / events : 0;
  s.writer_core_pct = traced_seconds > 0 ? 100.0 * writer_cpu_ns / 1e9 / traced_seconds : 0;
  state.counters["ratio"] = s.ratio;
  state.counters["overhead_pct"] = 100.0 * (1.0 - s.ratio);
  state.counters["cpu_overhead_pct"] = 100.0 * (s.cpu_ratio - 1.0);
  state.counters["traced_samples_per_s"] = s.traced;
  state.counters["untraced_samples_per_s"] = s.untraced;
  state.counters["events_per_step"] = s.events_per_step;
  state.counters["dropped"] = static_cast<double>(dropped);
  state.counters["writer_ns_per_event"] = s.writer_ns_per_event;
  state.counters["writer_core_pct"] = s.writer_core_pct;
  state.counters["index_ns_per_event"] = s.index_ns_per_event;
  state.counters["epochs_per_run"] = epochs;
  state.SetLabel(std::to_string(g_pairs) + " pairs");
}
BENCHMARK(BM_TraceOverhead)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

// Takes --pairs=N and --seconds=S out of argv before Google Benchmark parses the rest.
void take_own_flags(int& argc, char** argv) {
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--pairs=", 8) == 0)
      g_pairs = std::max(1, std::atoi(argv[i] + 8));
    else if (std::strncmp(argv[i], "--seconds=", 10) == 0)
      g_seconds = std::max(0.05, std::atof(argv[i] + 10));
    else if (std::strncmp(argv[i], "--backend=", 10) == 0)
      g_backend = argv[i] + 10;
    else if (std::strncmp(argv[i], "--model=", 8) == 0)
      g_model = argv[i] + 8;
    else if (std::strcmp(argv[i], "--device-events=off") == 0)
      g_device_events = false;
    else if (std::strncmp(argv[i], "--batch=", 8) == 0)
      g_batch = std::max(1, std::atoi(argv[i] + 8));
    else
      argv[out++] = argv[i];
  }
  argc = out;
}

}  // namespace

int main(int argc, char** argv) {
  take_own_flags(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  const Summary& s = g_summary;
  if (!s.valid) return 0;
  std::printf(
      "trace overhead: %.1f %% (traced %.0f samples/s vs untraced %.0f samples/s, %.1f "
      "events/step; median of %d pairs, %s batch %lld, %s backend%s)\n",
      100.0 * (1.0 - s.ratio), s.traced, s.untraced, s.events_per_step, g_pairs, g_model.c_str(),
      static_cast<long long>(g_batch), g_backend.c_str(),
      g_device_events ? "" : ", host events only");
  std::printf("CPU time per trained sample: %+.1f %% traced vs untraced (median of pairs)\n",
              100.0 * (s.cpu_ratio - 1.0));
  std::printf("trace writer thread: %.0f ns of CPU per event, %.1f %% of one core while training\n",
              s.writer_ns_per_event, s.writer_core_pct);
  std::printf("indexing the staged events when the session stopped: %.0f ns of CPU per event\n",
              s.index_ns_per_event);
  if (s.dropped > 0)
    std::printf("warning: the traced runs dropped %llu events (full buffers)\n",
                static_cast<unsigned long long>(s.dropped));
  return 0;
}
