// trainscope train: build a model, load a dataset, fit it on the chosen backend.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <optional>
#include <thread>
#include <trainscope/session.hpp>
#include <trainscope/trace.hpp>
#include <utility>
#include <vector>

#include "cli/commands.hpp"
#include "cli/dist_job.hpp"
#include "cli/dist_trace.hpp"
#include "cli/keep_analysis.hpp"
#include "cli/pipeline_flags.hpp"
#include "engine/backend/factory.hpp"
#include "engine/data/pipeline/augment_map.hpp"
#include "engine/data/pipeline/make_source.hpp"
#include "engine/dist/runtime.hpp"
#include "engine/nn/models.hpp"
#include "profiler/analysis/figure_format.hpp"
#include "profiler/io/output_file.hpp"
#include "profiler/json/writer.hpp"
#include "profiler/store/file_header.hpp"
#include "trainscope/meta_keys.hpp"

namespace ts::cli {

const char* const kTrainHelp = R"(usage: trainscope train [options]

  --model mlp|cnn            model (default mlp)
  --dataset SPEC             synthetic[:N] | mnist[:DIR] | idx:IMAGES,LABELS | images:DIR
                             (images:DIR: one sub-folder of PNG/JPEG files per class, as
                             'trainscope make-dataset' writes; default synthetic)
  --epochs N                 epochs (default 5; with --steps, as many as the steps need)
  --steps N                  stop after N training steps over all epochs (a step budget, as
                             'trainscope tune' runs; exit 0)
  --batch N                  batch size (default 32)
  --optimizer adam|sgd       optimizer (default adam; sgd uses momentum 0.9)
  --lr X                     learning rate (default: adam 0.001, sgd 0.01)
  --seed N                   seed for weights, data and shuffling (default 1)
  --backend auto|cpu|opencl  compute backend (default auto: an OpenCL GPU or accelerator
                             if there is one, else the CPU backend; an OpenCL CPU device
                             such as PoCL only with --backend opencl)
  --device N                 OpenCL device index from 'trainscope devices' (default 0)
  --threads N                CPU backend threads (default 0: all cores; under mpirun,
                             the host's cores shared among its ranks)
  --precision fp32|mixed     mixed: f16 activations and weight copies, f32 master weights,
                             dynamic loss scaling (default fp32)

input pipeline (a preset, then flags that override it):
  --pipeline naive|tuned     naive: no parallelism, no prefetch, no cache; tuned (default):
                             --parallel auto --prefetch auto --cache memory
                             --prefetch-to-device on
  --parallel N|auto          worker threads that read, decode and map samples (0: the
                             training thread does it); auto tunes it while running
  --prefetch N|auto          batches prepared ahead of the training step (0: none)
  --cache none|memory|file:PATH
                             keep decoded samples after the first epoch (file: also for
                             later runs with the same data)
  --shuffle N|full           shuffle buffer in samples (0: off; default full)
  --prefetch-to-device on|off
                             copy the next batch to the device on a second queue while the
                             current step computes
  --augment LIST             seeded random transforms per sample and epoch, e.g.
                             crop:2,shift:2,flip,noise:0.05 (default none)
  --skip-bad                 skip samples that cannot be read or decoded (counted) instead
                             of stopping with an error naming the file

profiling:
  --trace FILE               record the run's timeline into FILE (SQLite; see traces/README.md)
  --trace-steps A-B          with --trace: record steps A to B only (step numbers, inclusive,
                             counted from 0 across epochs), as a profiler schedule does: the
                             rest of the run costs nothing to trace
  --trace-device on|off|auto|every:K
                             with --trace: record each device command's own interval (default
                             on: every step); off records host events only, for the host-side
                             cost alone (a GPU driver spends microseconds of host time on each
                             command's timestamps); every:K records them on one step in K
                             (steps 0, K, 2K, ...; the others host events only) and the report
                             extrapolates the device figures from those steps; auto chooses K
                             from the event cost measured at start-up and step 1, for about
                             1 % overhead
  --summary-json FILE        write per-epoch loss/accuracy/seconds and samples/s as JSON
  --quiet                    no progress output

data parallelism (mpirun -np N trainscope train ...; README "Distributed training"):
  every rank trains the same model on its shard of each step's N x --batch samples and the
  gradients are averaged over the ranks; rank 0 prints, every rank writes its summary
  (--summary-json run.json: rank r > 0 writes run.rank<r>.json); --trace FILE gives one trace
  with one process per rank (parts FILE.rank<r>.part until rank 0 merges them)
  --allreduce blocking|bucketed
                             one allreduce of all gradients after backward (default), or
                             buckets started while earlier layers' backward runs
  --bucket-kib N             bucket size for --allreduce bucketed (default 256)
)";

namespace {

struct TrainOptions {
  std::string model, dataset, optimizer, backend, precision, summary_json, trace, allreduce;
  bool trace_device = true;
  std::uint32_t device_event_every = 1;  // SessionOptions::device_event_every
  std::optional<std::pair<std::int64_t, std::int64_t>> trace_steps;
  std::string trace_file;  // the file --trace names: its target when it is a symbolic link
  std::int64_t epochs, batch, seed, device, threads, bucket_kib;
  std::int64_t steps = 0;  // --steps: 0 for every epoch's steps
  double lr;
  bool quiet;
  PipelineFlags pipeline;
};

// Ctrl-C (SIGINT), and SIGTERM and SIGHUP (what a batch scheduler or a closed terminal sends),
// ask the fit loop to stop after the current step; the summary and the trace are written and the
// exit status is 128 + the signal. A second signal ends the process as usual.
std::atomic<bool> g_interrupted{false};
std::atomic<int> g_stop_signal{0};
extern "C" void on_stop_signal(int sig) {
  int none = 0;
  g_stop_signal.compare_exchange_strong(none, sig);
  g_interrupted.store(true);
  for (const int s : {SIGINT, SIGTERM, SIGHUP}) std::signal(s, SIG_DFL);
}

// Installs on_stop_signal for the whole run and restores the previous handlers after it. A signal
// the process was started with ignored stays ignored (nohup, a shell's background job). Under an
// MPI launcher only SIGINT: SIGTERM is the launcher ending the job (a rank with a trace commits its
// part and exits, dist_trace.hpp), which a rank must not answer by waiting for the next step.
class StopSignals {
 public:
  StopSignals() {
    const bool launched = !dist::mpi_launcher_variable().empty();
    for (const int s : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      if ((s != SIGINT && launched) || ::sigaction(s, nullptr, &old) != 0 ||
          old.sa_handler == SIG_IGN)
        continue;
      saved_.emplace_back(s, std::signal(s, on_stop_signal));
    }
  }
  ~StopSignals() {
    for (const auto& [s, previous] : saved_) std::signal(s, previous);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  std::vector<std::pair<int, void (*)(int)>> saved_;
};

// A file flag's value: absent is "", present but empty is refused.
std::string file_flag(Args& args, const std::string& name) {
  const auto v = args.value(name);
  if (v && v->empty()) throw UsageError("--" + name + " needs a file name");
  return v.value_or("");
}

TrainOptions parse(Args& args) {
  TrainOptions o;
  o.model = args.choice("model", "mlp", {"mlp", "cnn"});
  o.dataset = args.text("dataset", "synthetic");
  o.steps = args.integer("steps", 0, 1, INT64_MAX);
  o.epochs = args.integer("epochs", o.steps > 0 ? 100000 : 5, 1, 100000);
  o.batch = args.integer("batch", 32, 1, 1 << 20);
  o.optimizer = args.choice("optimizer", "adam", {"adam", "sgd"});
  o.lr = args.real("lr", 0.0, 0.0);  // absent: the optimizer's default
  o.seed = args.integer("seed", 1, 0, INT64_MAX);
  o.backend = args.choice("backend", "auto", {"auto", "cpu", "opencl"});
  o.device = args.integer("device", 0, 0, 1024);
  o.threads = args.integer("threads", 0, 0, 1024);
  o.precision = args.choice("precision", "fp32", {"fp32", "mixed"});
  o.summary_json = file_flag(args, "summary-json");
  o.trace = file_flag(args, "trace");
  const std::optional<std::string> trace_device = args.value("trace-device");
  if (trace_device) {
    ts::trace::SessionOptions device;
    if (!ts::trace::parse_device_event_choice(*trace_device, device))
      throw UsageError(
          "--trace-device must be on, off, auto or every:K (K from 1 to 1048576), "
          "not '" +
          *trace_device + "'");
    o.trace_device = device.device_events;
    o.device_event_every = device.device_event_every;
  }
  o.trace_steps = args.step_range("trace-steps");
  o.quiet = args.flag("quiet");
  o.allreduce = args.choice("allreduce", "blocking", {"blocking", "bucketed"});
  o.bucket_kib =
      args.integer("bucket-kib", dist::GradientReducer::kDefaultBucketBytes >> 10, 1, 1 << 20);
  o.pipeline = parse_pipeline_flags(args, o.batch, static_cast<std::uint64_t>(o.seed));
  args.finish();
#if defined(TRAINSCOPE_TRACE_DISABLED)
  if (!o.trace.empty())
    throw UsageError("--trace " + o.trace +
                     ": this trainscope was built with its instrumentation compiled out "
                     "(-DTRAINSCOPE_WITH_TRACING=OFF), so a trace would hold no events");
#endif
  if (trace_device && o.trace.empty())
    throw UsageError("--trace-device needs --trace FILE: it says what the trace records");
  if (o.trace_steps && o.trace.empty())
    throw UsageError("--trace-steps needs --trace FILE: it says what the trace records");
  if (o.trace_steps && o.trace_steps->first < 0)
    throw UsageError("--trace-steps counts steps from 0, not from " +
                     std::to_string(o.trace_steps->first));
  if (!o.trace.empty() && ts::trace::session_active())
    throw UsageError("--trace " + o.trace +
                     " conflicts with the TRAINSCOPE_TRACE session already recording");
  const float lr = static_cast<float>(o.lr);
  if (o.lr != 0.0 && !(lr > 0.0f && std::isfinite(lr))) {
    char text[64];
    std::snprintf(text, sizeof text, "--lr %g is out of the range of a float", o.lr);
    throw UsageError(text);
  }
  if (!o.trace.empty() && !o.summary_json.empty() && io::same_output(o.trace, o.summary_json))
    throw UsageError("--trace " + o.trace + " and --summary-json " + o.summary_json +
                     " name the same file; give each its own");
  if (!o.trace.empty()) {
    try {
      o.trace_file = io::regular_output_path(o.trace);
    } catch (const json::WriteError& e) {
      throw UsageError(std::string("--trace: ") + e.what());
    }
  }
  return o;
}

void write_summary(const std::string& path, const TrainOptions& o, const SampleSource& data,
                   const Backend& backend, const Sequential& model, const FitResult& fit,
                   const PipelineStats& input, const JobInfo& job) {
  json::Writer j;
  j.begin_object();
  j.key("epochs").begin_array();
  for (const auto& e : fit.epochs)
    j.begin_object()
        .key("loss")
        .real(e.loss)
        .key("accuracy")
        .real(e.accuracy)
        .key("seconds")
        .real(e.seconds)
        .end_object();
  j.end_array();
  j.key("samples_per_s").real(fit.samples_per_s);
  j.key("backend").str(backend.kind());
  j.key("device").str(backend.device_name());
  j.key("model").str(o.model);
  j.key("dataset").str(data.description());
  j.key("samples").integer(static_cast<std::int64_t>(data.count()));
  j.key("steps").integer(static_cast<std::int64_t>(fit.steps));
  j.key("recent_loss").real(fit.recent_loss);
  j.key("recent_loss_steps")
      .integer(std::min<std::int64_t>(fit.steps, FitResult::kRecentLossSteps));
  j.key("stopped_early").boolean(fit.stopped_early);
  j.key("pipeline").begin_object();
  j.key("preset").str(o.pipeline.preset);
  j.key("options").str(describe(o.pipeline.options));
  j.key("parallel").integer(static_cast<std::int64_t>(input.parallel));
  j.key("prefetch").integer(static_cast<std::int64_t>(input.prefetch));
  j.key("cache").str(input.cache);
  j.key("prefetch_to_device").boolean(o.pipeline.options.prefetch_to_device);
  j.key("input_wait_s").real(input.wait_seconds);
  j.key("samples_loaded").integer(static_cast<std::int64_t>(input.samples_loaded));
  j.key("cache_hits").integer(static_cast<std::int64_t>(input.cache_hits));
  j.key("skipped_bad").integer(static_cast<std::int64_t>(input.skipped_bad));
  j.key("autotune").begin_array();
  for (const auto& line : input.autotune_log) j.str(line);
  j.end_array();
  j.end_object();
  j.key("batch").integer(static_cast<std::int64_t>(o.batch));
  j.key("optimizer").str(o.optimizer);
  j.key("precision").str(o.precision);
  if (model.precision() == Precision::Mixed) {
    j.key("mixed_precision_arithmetic").str(backend.native_fp16() ? "f16" : "f32 on f16 storage");
    j.key("skipped_steps").integer(static_cast<std::int64_t>(fit.skipped_steps));
    j.key("final_loss_scale").real(static_cast<double>(fit.final_loss_scale));
  }
  j.key("rank").integer(static_cast<std::int64_t>(job.rank));
  j.key("world_size").integer(static_cast<std::int64_t>(job.size));
  if (job.distributed()) {
    const double steps = static_cast<double>(std::max<std::int64_t>(1, fit.reduce.steps));
    j.key("allreduce").begin_object();
    j.key("mode").str(o.allreduce);
    j.key("bucket_bytes").integer(static_cast<std::int64_t>(o.bucket_kib << 10));
    j.key("steps").integer(static_cast<std::int64_t>(fit.reduce.steps));
    j.key("bytes_per_step").real(static_cast<double>(fit.reduce.bytes) / steps);
    j.key("operations_per_step").real(static_cast<double>(fit.reduce.buckets) / steps);
    j.key("seconds_per_step").real(static_cast<double>(fit.reduce.exposed_ns) * 1e-9 / steps);
    j.key("gradient_copy_seconds_per_step").real(fit.gradient_copy_seconds / steps);
    j.end_object();
  }
  j.end_object();
  const std::string text = j.finish();
  io::write_output(
      path, [&](std::ostream& out) { out << text; }, "--summary-json " + path);
}

// A trace this run created, discarded when the run fails before training starts (no device, a
// dataset that cannot be read): it would hold nothing but the set-up. Once training starts, a
// failure keeps what was captured.
class SetUpTrace {
 public:
  void created(std::string path) { path_ = std::move(path); }
  void training_started() { path_.clear(); }
  ~SetUpTrace() {
    if (path_.empty() || !ts::trace::session_active()) return;
    ts::trace::stop();
    ts::store::discard_trace_files(path_);
  }

 private:
  std::string path_;
};

// Starts the --trace session before anything else runs, so an unwritable path fails at once (in a
// job of several ranks, once the ranks agree on what they train): this rank's part of the job's
// trace (dist_trace.hpp).
void start_trace(const TrainOptions& o, const JobInfo& job, SetUpTrace& set_up) {
  if (o.trace.empty()) return;
  // 512 Ki events (16 MB) per thread: the trainer of a fast CPU-backend run records ~300 k
  // events/s, so this rides out a writer stalled for more than a second (a busy machine, a slow
  // disk's fsync at a WAL checkpoint) without dropping any.
  ts::trace::SessionOptions options;
  options.ring_events = 1u << 19;
  options.device_events = o.trace_device;
  options.device_event_every = o.device_event_every;
  if (o.trace_steps)
    options.steps =
        ts::trace::SessionOptions::StepRange{o.trace_steps->first, o.trace_steps->second};
  const std::string path = capture_path(job, o.trace_file);
  const bool existed = ::access(path.c_str(), F_OK) == 0;
  try {
    ts::trace::Meta meta{{"engine.model", o.model},
                         {"engine.dataset", o.dataset},
                         {"engine.batch", std::to_string(o.batch)},
                         {"engine.optimizer", o.optimizer},
                         {"engine.precision", o.precision},
                         {"engine.epochs", std::to_string(o.epochs)},
                         {"pipeline.preset", o.pipeline.preset},
                         {"pipeline.options", describe(o.pipeline.options)}};
    if (job.distributed()) meta.emplace_back("engine.allreduce", o.allreduce);
    for (auto& kv : part_meta(job)) meta.push_back(std::move(kv));
    ts::trace::start(path, meta, options);
  } catch (const ts::trace::TraceError& e) {
    // A trace that could not be started (a full disk) leaves no file that is not a trace.
    if (!existed) ts::store::discard_trace_files(path);
    throw UsageError(std::string("--trace: ") + e.what());
  }
  if (!existed) set_up.created(path);
  record_clock_offsets(job, false);
}

// What every rank of a job must agree on: the model, the data's size and shape, and whatever
// decides the batches, the gradients and the collectives each step makes. The input pipeline's
// levers, the backend and the device may differ (MPMD launches).
std::vector<std::pair<std::string, std::string>> job_config(const TrainOptions& o,
                                                            const SampleSource& data) {
  const SampleShape s = data.shape();
  return {{"--model", o.model},
          {"the dataset's sample count", std::to_string(data.count())},
          {"the dataset's sample shape", std::to_string(s.height) + "x" + std::to_string(s.width) +
                                             "x" + std::to_string(s.channels)},
          {"the dataset's classes", std::to_string(s.classes)},
          {"--batch", std::to_string(o.batch)},
          {"--epochs", std::to_string(o.epochs)},
          {"--steps", std::to_string(o.steps)},
          {"--seed", std::to_string(o.seed)},
          {"--optimizer", o.optimizer},
          {"--lr", std::to_string(o.lr)},
          {"--precision", o.precision},
          {"--shuffle", std::to_string(o.pipeline.options.shuffle_buffer)},
          {"--skip-bad", o.pipeline.options.skip_bad ? "on" : "off"},
          {"--allreduce", o.allreduce},
          {"--bucket-kib", std::to_string(o.bucket_kib)}};
}

void report_trace(const TrainOptions& o, const JobInfo& job, bool quiet, std::ostream& log) {
  if (o.trace.empty()) return;
  std::vector<std::string> warnings;
  const std::string merged = finish_job_trace(job, o.trace_file, warnings);
  if (!job.distributed() || job.rank == 0) keep_analysis_of(o.trace_file);
  for (const std::string& w : warnings) std::cerr << "trainscope: " << w << "\n";
  const ts::trace::SessionStats s = ts::trace::session_stats();
  if (quiet) return;
  const std::string next =
      "Next: trainscope report " + o.trace + "   (or trainscope-gui " + o.trace + ")\n";
  if (!merged.empty()) {
    log << merged << "\n" << next;
    return;
  }
  if (job.distributed()) return;  // rank 0's merge failed: said above
  log << "Trace: " << o.trace << " (" << s.events_written << " events";
  if (s.events_dropped) log << ", " << s.events_dropped << " dropped";
  if (s.write_failed) log << ", writing stopped early after an error";
  log << ")\n" << next;
}

int default_threads(const JobInfo& job) {
  if (!job.distributed()) return 0;  // the backend takes every core
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, cores / std::max(1, job.ranks_on_host));
}

}  // namespace

int run_train(Args& args) {
  TrainOptions o = parse(args);
  const StopSignals stop_signals;
  std::ostream& log = std::cout;
  // A rank of an MPI job: SIGTERM (the launcher ending the job) must commit its part first.
  if (!o.trace.empty() && dist::built_with_mpi() && !dist::mpi_launcher_variable().empty())
    watch_for_termination();
  std::string notice;
  const JobInfo job = join_job(notice);
  if (!notice.empty()) std::cerr << "trainscope: " << notice << "\n";
  const bool quiet = o.quiet || job.rank != 0;  // rank 0 speaks for the job
  SetUpTrace set_up;
  if (!job.distributed()) start_trace(o, job, set_up);

  // The data and the model are checked before any device is set up.
  const std::shared_ptr<const SampleSource> source =
      make_sample_source(o.dataset, static_cast<std::uint64_t>(o.seed));
  const SampleShape shape = source->shape();
  auto model = make_model(o.model, Shape{shape.height, shape.width, shape.channels},
                          std::max(10, shape.classes));
  const SampleMap augment =
      make_augment_map(o.pipeline.augment, shape, static_cast<std::uint64_t>(o.seed));
  check_agreement(job, job_config(o, *source));
  if (job.distributed()) {
    start_trace(o, job, set_up);
    o.pipeline.options.shard_index = job.rank;
    o.pipeline.options.shard_count = job.size;
    if (o.pipeline.options.cache == CacheMode::file)  // one cache file per rank
      o.pipeline.options.cache_path = rank_path(o.pipeline.options.cache_path, job.rank);
    if (o.pipeline.options.max_parallel == 0)
      o.pipeline.options.max_parallel = default_threads(job);
  }

  BackendRequest request;
  request.kind = o.backend;
  request.device = static_cast<int>(o.device);
  request.cpu_threads = o.threads > 0 ? static_cast<int>(o.threads) : default_threads(job);
  BackendChoice choice = make_backend(request);
  if (!choice.notice.empty() && job.rank == 0) std::cerr << "trainscope: " << choice.notice << "\n";
  Backend& backend = *choice.backend;
  TS_META(meta_key::kEngineBackend, backend.kind());
  TS_META(meta_key::kEngineDevice, backend.device_name());
  if (backend.kind() == "cpu")
    TS_META(
        meta_key::kEngineCpuThreads,
        std::to_string(request.cpu_threads > 0
                           ? request.cpu_threads
                           : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))));
  CompileOptions compile;
  compile.precision = o.precision == "mixed" ? Precision::Mixed : Precision::FP32;
  compile.seed = static_cast<std::uint64_t>(o.seed);
  model->compile(backend, make_optimizer(o.optimizer, static_cast<float>(o.lr)), compile);

  Pipeline input(source, o.pipeline.options, augment);
  if (!quiet) {
    log << "Backend: " << backend.kind() << " (" << backend.device_name() << ")";
    if (compile.precision == Precision::Mixed)
      log << ", mixed precision: "
          << (backend.native_fp16() ? "f16 arithmetic" : "f32 arithmetic on f16 storage");
    log << "\nDataset: " << source->description() << "\nPipeline: " << o.pipeline.preset << " ("
        << describe(o.pipeline.options) << ")"
        << (o.pipeline.augment.any() ? ", augment " + o.pipeline.augment.to_string() : "")
        << "\nModel: " << o.model << ", " << o.optimizer << ", batch " << o.batch << "\n";
    if (job.distributed())
      log << "Data parallel: " << job.size << " ranks (" << job.comm->backend() << "), batch "
          << o.batch << " per rank = " << o.batch * job.size << " per step, allreduce "
          << o.allreduce << "\n";
    log << model->summary();
  }
  FitOptions fit;
  fit.epochs = static_cast<int>(o.epochs);
  fit.max_steps = o.steps;
  fit.progress = quiet ? nullptr : &log;
  fit.progress_is_terminal = isatty(STDOUT_FILENO) != 0;
  fit.stop = &g_interrupted;
  fit.data_parallel.comm = job.comm;
  fit.data_parallel.allreduce = dist::parse_allreduce_mode(o.allreduce);
  fit.data_parallel.bucket_bytes = static_cast<std::size_t>(o.bucket_kib) << 10;
  FitResult result;
  set_up.training_started();
  try {
    result = model->fit(input, fit);
  } catch (...) {
    input.stop();
    throw;
  }
  input.stop();
  if (job.distributed()) model->verify_replicas(*job.comm);
  const PipelineStats stats = input.stats();
  TS_META(meta_key::kPipelineParallel, std::to_string(stats.parallel));
  TS_META(meta_key::kPipelinePrefetch, std::to_string(stats.prefetch));
  TS_META(meta_key::kPipelineCache, stats.cache);
  TS_META(meta_key::kFitSamplesPerS, std::to_string(result.samples_per_s));
  TS_META(meta_key::kFitSteps, std::to_string(result.steps));
  TS_META(meta_key::kFitRecentLoss, analysis::fmt::printf("%.6g", result.recent_loss));
  TS_META(meta_key::kFitEpochSamples, std::to_string(source->count()));
  if (!quiet) {
    if (result.stopped_early) log << "Interrupted after " << result.steps << " step(s)\n";
    if (!result.epochs.empty()) {
      const auto& last = result.epochs.back();
      log << "Trained " << result.epochs.size()
          << " epoch(s): " << static_cast<long long>(result.samples_per_s)
          << " samples/s, final loss " << analysis::fmt::printf("%.4f", last.loss) << ", accuracy "
          << analysis::fmt::pct(100.0 * last.accuracy) << "\n";
    }
    log << "Input: waited " << analysis::fmt::duration(std::llround(stats.wait_seconds * 1e9))
        << " for batches; parallel " << stats.parallel << ", prefetch " << stats.prefetch
        << ", cache " << stats.cache;
    if (stats.skipped_bad) log << ", " << stats.skipped_bad << " bad sample(s) skipped";
    log << "\n";
    for (const auto& line : stats.autotune_log) log << "  autotune: " << line << "\n";
    if (compile.precision == Precision::Mixed)
      log << "Loss scale " << result.final_loss_scale << ", " << result.skipped_steps
          << " step(s) skipped for inf/NaN gradients\n";
    if (job.distributed() && result.reduce.steps > 0) {
      const double steps = static_cast<double>(result.reduce.steps);
      log << "Allreduce (" << o.allreduce << "): " << result.reduce.bytes / result.reduce.steps
          << " bytes per step, " << static_cast<long long>(result.reduce.exposed_ns / steps / 1e3)
          << " us per step on rank 0's trainer";
      if (result.gradient_copy_seconds > 0)
        log << ", + " << static_cast<long long>(result.gradient_copy_seconds / steps * 1e6)
            << " us per step copying gradients between device and host";
      log << "; weights identical on every rank\n";
    }
  }
  // A summary that cannot be written must not cost the trace: its error waits for the trace.
  std::optional<json::WriteError> summary_error;
  if (!o.summary_json.empty()) {
    try {
      write_summary(rank_path(o.summary_json, job.rank), o, *source, backend, *model, result, stats,
                    job);
    } catch (const json::WriteError& e) {
      summary_error = e;
    }
  }
  // Steps are numbered from 0: a range beyond the run's last step recorded none.
  if (o.trace_steps && o.trace_steps->first >= result.steps && job.rank == 0)
    std::cerr << "trainscope: --trace-steps " << o.trace_steps->first << "-"
              << o.trace_steps->second << ": the run's steps were 0-" << result.steps - 1
              << ", so the trace holds no step\n";
  report_trace(o, job, quiet, log);
  if (summary_error) throw *summary_error;
  if (const int sig = g_stop_signal.load()) return 128 + sig;
  return result.stopped_early ? 130 : 0;
}

}  // namespace ts::cli
