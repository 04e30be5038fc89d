// What `trainscope tune` runs: the job as given, then one change per lever the engine can apply
// to it (profiler/analysis/README.md, "Levers"), each a `trainscope train` command line.
#pragma once

#include <string>
#include <vector>

#include "cli/args.hpp"
#include "profiler/analysis/config_projection.hpp"

namespace ts::cli {

// The job's train flags as tune read them: those a lever changes, and the rest as given.
struct TuneJob {
  std::int64_t batch = 32;
  std::string optimizer = "adam", precision = "fp32", backend = "auto", model = "mlp";
  std::string pipeline_preset = "tuned";
  std::vector<std::string> pipeline_words;  // --pipeline and its overrides, as given
  std::vector<std::string> other_words;     // every other train flag, as given
  bool pipeline_tuned() const;              // the tuned preset with nothing overridden
};

// Reads the train flags of a tune command line (refusing those tune sets itself: --trace,
// --summary-json, --epochs, --trace-steps, --quiet).
TuneJob read_tune_job(Args& args);

struct TuneRun {
  std::string lever;   // the lever id the run measures ("as_is" for the job as given)
  std::string change;  // the flags that differ from the job: "--batch 64"
  std::vector<std::string> train_args;  // the train command's flags, without tracing ones
  analysis::ConfigChange projection;
};

// The lever ids tune can measure, in the order it runs them.
const std::vector<std::string>& tune_levers();

// The job as given first, then each lever's change, for the levers in `levers` (all when empty).
// `resolved_backend`: the backend the job as given ran on ("cpu" or "opencl"), which decides the
// hardware lever's run.
std::vector<TuneRun> tune_runs(const TuneJob& job, const std::string& resolved_backend,
                               const std::vector<std::string>& levers = {});
// The first of them alone (run before the backend is known).
TuneRun as_is_run(const TuneJob& job);

}  // namespace ts::cli
