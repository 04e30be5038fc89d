// What `trainscope tune` measured, and its table (text and JSON).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/tune_plan.hpp"
#include "profiler/analysis/config_projection.hpp"
#include "profiler/analysis/report.hpp"

namespace ts::cli {

struct TuneMeasure {
  std::vector<double> step_ms;  // the analysed mean step of each repeat, in run order
  double median_step_ms = 0;
  std::int64_t batch = 0;
  std::int64_t epoch_samples = 0;  // fit.epoch_samples of the run
  double loss = 0;                 // fit.recent_loss of the median repeat
  std::string backend, device;     // what the run ran on
  std::string trace;               // the median repeat's trace file
};

struct TuneRow {
  TuneRun run;
  analysis::ConfigProjection projected;
  std::optional<TuneMeasure> measured;  // absent when the run failed
  std::string error;                    // why it failed: the run's last line of output
};

struct TuneTable {
  std::string model;
  std::int64_t steps = 0, repeat = 0;
  double price = 0;
  std::string currency = "$";
  std::string kept;           // the folder the traces were kept in (empty: removed)
  std::vector<TuneRow> rows;  // rows[0] is the job as given
};

// Per sample over the job as given: >1 faster. 0 when unknown.
double measured_speedup(const TuneTable& t, const TuneRow& row);
double projected_speedup(const TuneTable& t, const TuneRow& row);
// |projected − measured| / measured, per sample; nullopt where nothing was projected. For a bound
// (ConfigProjection::at_most) the miss is how far the measurement beat the bound, 0 if it did not.
std::optional<double> projection_miss(const TuneTable& t, const TuneRow& row);
double cost_per_epoch(const TuneTable& t, const TuneMeasure& m);
// How far one configuration's repeats differ: (slowest − fastest) / median, nullopt for one run.
// The repeats run the same job, so the spread is the machine's noise, not the change's effect.
std::optional<double> run_spread(const TuneMeasure& m);
// The largest spread of any configuration (0 with single runs): a miss within it may be noise.
double table_noise(const TuneTable& t);
// The measured row with the lowest cost per epoch (the most samples/s), or -1.
int cheapest_row(const TuneTable& t);

std::string tune_text(const TuneTable& t);
std::string tune_json(const TuneTable& t);

}  // namespace ts::cli
