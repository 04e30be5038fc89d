#include "cli/tune_plan.hpp"

#include <algorithm>
#include <array>

namespace ts::cli {

namespace {

// The pipeline flags a preset's overrides are made of (cli/pipeline_flags.hpp).
constexpr std::array<const char*, 4> kPipelineOverrides = {"parallel", "prefetch", "cache",
                                                           "prefetch-to-device"};
// Train flags tune passes through unchanged.
constexpr std::array<const char*, 10> kPassedValues = {
    "model",   "dataset", "lr",      "seed",         "device",
    "threads", "shuffle", "augment", "trace-device", "allreduce"};
constexpr std::array<const char*, 4> kRefused = {"trace", "summary-json", "epochs", "trace-steps"};

void add(std::vector<std::string>& words, const std::string& flag, const std::string& value) {
  words.push_back("--" + flag);
  words.push_back(value);
}

std::vector<std::string> flags(const TuneJob& job, std::int64_t batch, const std::string& optimizer,
                               const std::string& precision, const std::string& backend,
                               bool tuned_pipeline) {
  std::vector<std::string> w = job.other_words;
  add(w, "batch", std::to_string(batch));
  add(w, "optimizer", optimizer);
  add(w, "precision", precision);
  add(w, "backend", backend);
  if (tuned_pipeline)
    add(w, "pipeline", "tuned");
  else
    w.insert(w.end(), job.pipeline_words.begin(), job.pipeline_words.end());
  return w;
}

}  // namespace

bool TuneJob::pipeline_tuned() const {
  return pipeline_preset == "tuned" && pipeline_words.size() <= 2;
}

TuneJob read_tune_job(Args& args) {
  for (const char* flag : kRefused)
    if (args.value(flag))
      throw UsageError(std::string("--") + flag +
                       " is set by tune itself: it runs each configuration for --steps N "
                       "steps, traced");
  if (args.flag("quiet"))
    throw UsageError("--quiet: tune's runs are quiet; its progress goes to stderr");
  TuneJob job;
  job.batch = args.integer("batch", 32, 1, 1 << 20);
  job.optimizer = args.choice("optimizer", "adam", {"adam", "sgd"});
  job.precision = args.choice("precision", "fp32", {"fp32", "mixed"});
  job.backend = args.choice("backend", "auto", {"auto", "cpu", "opencl"});
  job.pipeline_preset = args.choice("pipeline", "tuned", {"naive", "tuned"});
  add(job.pipeline_words, "pipeline", job.pipeline_preset);
  for (const char* flag : kPipelineOverrides)
    if (const auto v = args.value(flag)) add(job.pipeline_words, flag, *v);
  for (const char* flag : kPassedValues)
    if (const auto v = args.value(flag)) {
      add(job.other_words, flag, *v);
      if (std::string(flag) == "model") job.model = *v;
    }
  if (args.flag("skip-bad")) job.other_words.push_back("--skip-bad");
  return job;
}

TuneRun as_is_run(const TuneJob& job) {
  return {"as_is",
          "as given",
          flags(job, job.batch, job.optimizer, job.precision, job.backend, false),
          {}};
}

const std::vector<std::string>& tune_levers() {
  static const std::vector<std::string> levers = {"input_pipeline", "batch_memory", "optimizer",
                                                  "mixed_precision", "hardware"};
  return levers;
}

std::vector<TuneRun> tune_runs(const TuneJob& job, const std::string& resolved_backend,
                               const std::vector<std::string>& levers) {
  using Kind = analysis::ConfigChange::Kind;
  std::vector<TuneRun> runs{as_is_run(job)};
  const auto run = [&](std::string lever, std::string change, std::vector<std::string> train,
                       analysis::ConfigChange projection) {
    if (!levers.empty() && std::find(levers.begin(), levers.end(), lever) == levers.end()) return;
    runs.push_back({std::move(lever), std::move(change), std::move(train), std::move(projection)});
  };
  if (!job.pipeline_tuned())
    run("input_pipeline", "--pipeline tuned",
        flags(job, job.batch, job.optimizer, job.precision, job.backend, true),
        {Kind::pipeline_tuned, 1, ""});
  for (const std::int64_t batch : {job.batch * 2, job.batch / 2}) {
    if (batch < 1 || batch > (1 << 20)) continue;
    run("batch_memory", "--batch " + std::to_string(batch),
        flags(job, batch, job.optimizer, job.precision, job.backend, false),
        {Kind::batch_scale, static_cast<double>(batch) / static_cast<double>(job.batch), ""});
  }
  const std::string optimizer = job.optimizer == "adam" ? "sgd" : "adam";
  run("optimizer", "--optimizer " + optimizer,
      flags(job, job.batch, optimizer, job.precision, job.backend, false),
      {Kind::optimizer, 1, optimizer});
  const std::string precision = job.precision == "fp32" ? "mixed" : "fp32";
  run("mixed_precision", "--precision " + precision,
      flags(job, job.batch, job.optimizer, precision, job.backend, false),
      {Kind::precision, 1, precision});
  const std::string backend = resolved_backend == "cpu" ? "opencl" : "cpu";
  run("hardware", "--backend " + backend,
      flags(job, job.batch, job.optimizer, job.precision, backend, false),
      {Kind::backend, 1, backend});
  return runs;
}

}  // namespace ts::cli
