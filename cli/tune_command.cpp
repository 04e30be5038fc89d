// trainscope tune: the built-in engine's job measured as it is and once per lever, each run
// traced, against what the first run's trace projected for it.
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>
#include <thread>
#include <variant>

#include "cli/child_process.hpp"
#include "cli/commands.hpp"
#include "cli/trace_input.hpp"
#include "cli/tune_plan.hpp"
#include "cli/tune_results.hpp"
#include "trainscope/meta_keys.hpp"

namespace ts::cli {

const char* const kTuneHelp = R"(usage: trainscope tune [train options] [options]

Runs the built-in engine's training job (the train options, as 'trainscope train' takes them)
for --steps N steps as it is, then once per lever it can change: the input pipeline tuned (when
it is not), the batch twice and half as large, the other optimizer, the other precision and the
other backend. Each run is traced and analysed; the table gives, per run, the lever, what it
changed, the step time the first run's trace projected for it, the step time measured, how far
the projection missed, samples/s, the cost of an epoch and the loss after N steps, then the
cheapest configuration measured. Speed-ups are per sample, so batch sizes compare.

  --steps N             training steps per run (default 200; the analysis leaves the
                        warm-up out)
  --repeat R            runs of each configuration, interleaved, the median measured
                        (default 3; a configuration over 3x slower per sample than the
                        job as given runs once)
  --gpu-hour-price X    what an hour of the device costs (default 2.50)
  --levers LIST         only these levers' runs, comma-separated: input_pipeline,
                        batch_memory, optimizer, mixed_precision, hardware (default all)
  --json                the table as JSON
  --keep DIR            keep every run's trace in DIR (created) for report, diff or the
                        viewer; by default they are removed
)";

namespace {

namespace fs = std::filesystem;

struct TuneOptions {
  std::int64_t steps = 200, repeat = 3;
  double price = 2.50;
  bool json = false;
  std::string keep;
  std::vector<std::string> levers;  // empty: all
};

std::vector<std::string> lever_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string id = text.substr(start, comma - start);
    const auto& known = tune_levers();
    if (std::find(known.begin(), known.end(), id) == known.end())
      throw UsageError("--levers: '" + id + "' is not a lever tune measures (" +
                       "input_pipeline, batch_memory, optimizer, mixed_precision, hardware)");
    out.push_back(id);
    start = comma + 1;
  }
  return out;
}

// A folder for the runs' traces, removed at the end unless it is --keep's.
class RunFolder {
 public:
  explicit RunFolder(const std::string& keep) : keep_(!keep.empty()) {
    if (keep_) {
      std::error_code ec;
      fs::create_directories(keep, ec);
      if (ec) throw UsageError("--keep " + keep + ": " + ec.message());
      path_ = keep;
      return;
    }
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/trainscope-tune-XXXXXX";
    if (!::mkdtemp(pattern.data()))
      throw UsageError("cannot make a folder for the runs' traces in " + pattern);
    path_ = pattern;
  }
  ~RunFolder() {
    std::error_code ec;
    if (!keep_) fs::remove_all(path_, ec);
  }
  RunFolder(const RunFolder&) = delete;
  RunFolder& operator=(const RunFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  bool keep_;
  std::string path_;
};

std::string last_line(const std::string& output) {
  std::string text = output;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  const auto nl = text.rfind('\n');
  std::string line = nl == std::string::npos ? text : text.substr(nl + 1);
  if (line.rfind("trainscope: ", 0) == 0) line.erase(0, 12);
  return line.empty() ? "it exited without a message" : line;
}

struct OneRun {
  analysis::Report report;
  double step_ms = 0, loss = 0;
  std::int64_t batch = 0, epoch_samples = 0;
  std::string backend, device, trace;
  // Whether its device has faster f16 math than f32: an OpenCL device with cl_khr_fp16 that is
  // not a CPU (the CPU backend and PoCL compute f16 in f32).
  bool fp16_faster = false;
  int cpu_threads = 0;  // the CPU backend's compute threads (0: another device)
};

// A run ended by a signal (Ctrl-C reaches tune's runs too): tune stops with it.
struct Interrupted {
  int status;
};

// Runs one configuration; a failure is returned as its message.
std::variant<OneRun, std::string> run_once(const TuneRun& run, const TuneOptions& o,
                                           const std::string& trace) {
  std::vector<std::string> words{"train"};
  words.insert(words.end(), run.train_args.begin(), run.train_args.end());
  for (const std::string& w : {std::string("--steps"), std::to_string(o.steps),
                               std::string("--trace"), trace, std::string("--quiet")})
    words.push_back(w);
  const ChildResult child = run_self(words);
  if (child.status == 128 + SIGINT || child.status == 128 + SIGTERM || child.status == 128 + SIGHUP)
    throw Interrupted{child.status};
  if (child.status != 0)
    return "exit " + std::to_string(child.status) + ": " + last_line(child.output);
  OneRun r;
  analysis::AnalysisOptions options;
  options.keep_gaps = false;
  options.gpu_hour_price = o.price;
  try {
    r.report = analyse_trace(trace, TraceOptions{}, options);
    const auto reader = open_trace(trace, TraceOptions{});
    const auto number = [&](const char* key) {
      const auto v = reader->meta(key);
      return v ? std::strtod(v->c_str(), nullptr) : 0.0;
    };
    r.loss = number(meta_key::kFitRecentLoss);
    r.epoch_samples = static_cast<std::int64_t>(number(meta_key::kFitEpochSamples));
    r.backend = reader->meta(meta_key::kEngineBackend).value_or("");
    r.device = reader->meta(meta_key::kEngineDevice).value_or("");
    const std::string type = reader->meta(meta_key::kDeviceOpenclType).value_or("");
    r.cpu_threads = static_cast<int>(number(meta_key::kEngineCpuThreads));
    r.fp16_faster = r.backend == "opencl" &&
                    reader->meta(meta_key::kDeviceOpenclFp16).value_or("") == "yes" &&
                    type.find("CPU") == std::string::npos;
  } catch (const std::exception& e) {
    return std::string("its trace could not be analysed: ") + e.what();
  }
  r.step_ms = r.report.step_time.mean_ms;
  r.batch = r.report.batch.value_or(0);
  r.trace = trace;
  return r;
}

// A run more than kClearlySlower times slower per sample than the job as given is measured once:
// repeats would not change what the table says of it (a slow device can take minutes a run).
constexpr double kClearlySlower = 3.0;

bool clearly_slower(const std::vector<OneRun>& runs, const OneRun& base) {
  if (runs.empty() || runs[0].batch <= 0 || base.batch <= 0) return false;
  return runs[0].step_ms / static_cast<double>(runs[0].batch) >
         kClearlySlower * base.step_ms / static_cast<double>(base.batch);
}

}  // namespace

static int run_tune_runs(const TuneOptions& o, const TuneJob& job);

int run_tune(Args& args) {
  TuneOptions o;
  o.steps = args.integer("steps", o.steps, 10, 1'000'000);
  o.repeat = args.integer("repeat", o.repeat, 1, 25);
  o.price = args.real_in("gpu-hour-price", 0, std::numeric_limits<double>::max()).value_or(o.price);
  o.json = args.flag("json");
  o.keep = args.text("keep", "");
  if (const auto levers = args.value("levers")) o.levers = lever_list(*levers);
  const TuneJob job = read_tune_job(args);
  args.finish();
  try {
    return run_tune_runs(o, job);
  } catch (const Interrupted& stop) {
    std::cerr << "trainscope: tune interrupted; the runs so far are not tabled\n";
    return stop.status;
  }
}

static int run_tune_runs(const TuneOptions& o, const TuneJob& job) {
  RunFolder folder(o.keep);
  std::ostream& log = std::cerr;
  const auto trace_path = [&](std::size_t index, const TuneRun& run, std::int64_t round) {
    return folder.path() + "/" + std::to_string(index) + "-" + run.lever + "-" +
           std::to_string(round + 1) + ".db";
  };
  const TuneRun first = as_is_run(job);
  log << "tune: the job as given, " << o.steps << " steps\n";
  auto base = run_once(first, o, trace_path(0, first, 0));
  if (auto* error = std::get_if<std::string>(&base))
    throw UsageError("the job as given did not run: " + *error);
  const OneRun& base_run = std::get<OneRun>(base);
  const std::vector<TuneRun> runs = tune_runs(job, base_run.backend, o.levers);

  std::vector<std::vector<OneRun>> done(runs.size());
  std::vector<std::string> errors(runs.size());
  done[0].push_back(base_run);
  const auto skipped = [&](std::int64_t round, std::size_t i) {
    return (round == 0 && i == 0) || !errors[i].empty() || clearly_slower(done[i], base_run);
  };
  // The runs still to come as far as known now: an error or a clearly slower configuration drops
  // its later rounds, so the count shrinks rather than ending short of it.
  const auto runs_from = [&](std::int64_t from_round, std::size_t from_i) {
    std::size_t n = 0;
    for (std::int64_t round = from_round; round < o.repeat; ++round)
      for (std::size_t i = round == from_round ? from_i : 0; i < runs.size(); ++i)
        n += skipped(round, i) ? 0 : 1;
    return n;
  };
  std::size_t count = 1;
  for (std::int64_t round = 0; round < o.repeat; ++round)
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (skipped(round, i)) continue;
      log << "tune: run " << count + 1 << " of " << count + runs_from(round, i) << ": "
          << runs[i].change << "\n";
      ++count;
      auto r = run_once(runs[i], o, trace_path(i, runs[i], round));
      if (auto* error = std::get_if<std::string>(&r))
        errors[i] = *error;
      else
        done[i].push_back(std::move(std::get<OneRun>(r)));
    }

  TuneTable table;
  table.model = job.model;
  table.steps = o.steps;
  table.repeat = o.repeat;
  table.price = o.price;
  table.currency = base_run.report.currency;
  table.kept = o.keep;
  // The projections come from the job's median run, as its measurement does.
  const auto median_of = [](std::vector<OneRun>& v) -> const OneRun& {
    std::sort(v.begin(), v.end(),
              [](const OneRun& a, const OneRun& b) { return a.step_ms < b.step_ms; });
    return v[v.size() / 2];
  };
  std::vector<std::vector<double>> in_order(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i)
    for (const OneRun& r : done[i]) in_order[i].push_back(r.step_ms);
  const OneRun& projection_base = median_of(done[0]);
  analysis::ProjectionContext context;
  context.fp16_faster = projection_base.fp16_faster;
  context.compute_threads = projection_base.cpu_threads;
  context.host_cores = projection_base.report.host_cpu
                           ? projection_base.report.host_cpu->cores
                           : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (std::size_t i = 0; i < runs.size(); ++i) {
    TuneRow row;
    row.run = runs[i];
    row.projected = analysis::project_change(projection_base.report, runs[i].projection, context);
    if (!done[i].empty()) {
      const OneRun& m = median_of(done[i]);
      TuneMeasure measure;
      measure.step_ms = in_order[i];
      measure.median_step_ms = m.step_ms;
      measure.batch = m.batch;
      measure.epoch_samples = m.epoch_samples;
      measure.loss = m.loss;
      measure.backend = m.backend;
      measure.device = m.device;
      measure.trace = m.trace;
      row.measured = measure;
    } else {
      row.error = errors[i];
    }
    table.rows.push_back(std::move(row));
  }
  std::cout << (o.json ? tune_json(table) + "\n" : tune_text(table));
  return 0;
}

}  // namespace ts::cli
