// trainscope synth --events N --out OUT.db: a realistic synthetic training trace of any size, the
// one the benchmarks measure, so anyone can reproduce their figures.
#include <chrono>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/keep_analysis.hpp"
#include "profiler/analysis/figure_format.hpp"
#include "profiler/synth/kineto_job.hpp"
#include "profiler/synth/synth.hpp"

namespace ts::cli {

const char* const kSynthHelp = R"(usage: trainscope synth --events N --out OUT.db [options]

Writes a synthetic trace of about N events (whole steps) shaped like a traced training run on an
accelerator: a trainer thread (steps, input waits, launches, optimizer, syncs), input workers
(read, decode, map per batch), a compute queue with a dozen kernel names, a copy queue (h2d with
bytes, d2h) and the prefetch-fill counter. A chosen share of the steps wait for a slow batch
(input-bound by construction). Deterministic for a seed. The benchmarks (bench_analysis,
bench_gui) measure traces made this way.

  --events N                   events to write, at least one step's worth (required)
  -o, --out, --output OUT.db   the trace to write (an existing trace there is replaced)
  --input-bound-fraction F     share of steps made to wait for input, 0 to 1 (default 0.3)
  --workers N                  input worker threads (default 2)
  --prefetch N                 batches ready ahead at most (default 2)
  --batch N                    samples per step (default 32)
  --seed N                     the random seed (default 1)
  --no-analysis                write the events only: do not analyse the trace and keep the
                               report in it (which lets report and the viewer of a large
                               trace skip reading every event)

a data-parallel job as PyTorch's profiler writes it (one Kineto JSON file per rank):
  trainscope synth --kineto-job DIR [--ranks N] [--steps S | --rank-mb M] [--gzip]
  --kineto-job DIR             write DIR/rank-R.json for each rank
  --ranks N                    ranks (default 8)
  --steps S                    steps per rank (default 20)
  --rank-mb M                  instead of --steps: as many steps as make each file about M MB
  --gzip                       write rank-R.json.gz
  --straggler R, --slow-input R, --more-collectives R
                               the planted ranks (defaults 1, 2 and 3; -1 for none): one with
                               1.35x slower kernels that every other rank waits for in the
                               all-reduce, one whose DataLoader takes 3x as long, one with twice
                               the all-reduce operations
)";

namespace {

int run_kineto_job(Args& args, const std::string& dir) {
  synth::KinetoJobOptions o;
  o.ranks = static_cast<int>(args.integer("ranks", o.ranks, 1, 100000));
  const auto mb = args.real_in("rank-mb", 0.001, 1e6);
  const std::int64_t steps = args.integer("steps", 0, 1, 10'000'000);  // 0: not given
  if (mb && steps > 0) throw UsageError("give --steps or --rank-mb, not both");
  o.steps = steps > 0 ? steps : mb ? 0 : o.steps;
  if (mb) o.rank_bytes = static_cast<std::int64_t>(*mb * 1e6);
  o.gzip = args.flag("gzip");
  o.seed = static_cast<std::uint64_t>(args.integer("seed", 1, 0, INT64_MAX));
  o.straggler_rank = static_cast<int>(args.integer("straggler", o.straggler_rank, -1, 100000));
  o.slow_input_rank = static_cast<int>(args.integer("slow-input", o.slow_input_rank, -1, 100000));
  o.more_collectives_rank =
      static_cast<int>(args.integer("more-collectives", o.more_collectives_rank, -1, 100000));
  args.finish();
  const auto t0 = std::chrono::steady_clock::now();
  synth::KinetoJobResult r;
  try {
    r = synth::write_kineto_job(dir, o);
  } catch (const std::runtime_error& e) {
    throw UsageError(std::string("--kineto-job: ") + e.what());
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  namespace fmt = analysis::fmt;
  std::cout << "Wrote " << o.ranks << " rank files to " << dir << ": " << fmt::count(r.steps)
            << " steps each, " << fmt::count(r.events) << " events, "
            << fmt::printf("%.1f MB", static_cast<double>(r.bytes) / 1e6)
            << (o.gzip ? fmt::printf(" (%.1f MB of JSON)", static_cast<double>(r.raw_bytes) / 1e6)
                       : std::string())
            << fmt::printf(" in %.2f s.\n", s);
  std::cout << "Next: trainscope report " << dir << "\n";
  return 0;
}

}  // namespace

int run_synth(Args& args) {
  if (const auto job = args.value("kineto-job")) return run_kineto_job(args, *job);
  synth::SynthOptions o;
  o.target_events = args.integer("events", 0, 1, std::int64_t{1} << 40);
  o.input_bound_fraction = args.real_in("input-bound-fraction", 0, 1).value_or(0.3);
  o.workers = static_cast<int>(args.integer("workers", 2, 1, 64));
  o.prefetch = static_cast<int>(args.integer("prefetch", 2, 1, 1024));
  o.batch = static_cast<int>(args.integer("batch", 32, 1, 1 << 20));
  o.seed = static_cast<std::uint64_t>(args.integer("seed", 1, 0, INT64_MAX));
  const bool analyse = !args.flag("no-analysis");
  std::optional<std::string> out = args.value("output");
  if (std::optional<std::string> alias = args.value("out")) {
    if (out) throw UsageError("give the output once (-o, --out or --output)");
    out = std::move(alias);
  }
  const std::vector<std::string> words = args.positionals();
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i] != "-o")
      throw UsageError("'trainscope synth' takes no file argument but -o OUT.db");
    if (i + 1 == words.size()) throw UsageError("-o needs a value: the trace file to write");
    if (out) throw UsageError("give the output once (-o, --out or --output)");
    out = words[++i];
  }
  args.finish();
  if (o.target_events <= 0) throw UsageError("'trainscope synth' needs --events N (N >= 1)");
  if (!out || out->empty()) throw UsageError("'trainscope synth' needs -o OUT.db");

  const auto t0 = std::chrono::steady_clock::now();
  const synth::SynthResult r = synth::write_synthetic_trace(*out, o);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  namespace fmt = analysis::fmt;
  std::cout << "Wrote " << fmt::count(r.events) << " events (" << fmt::count(r.steps) << " steps, "
            << fmt::count(r.input_bound_steps) << " made input-bound) to " << *out
            << fmt::printf(" in %.2f s", s);
  if (s > 0)
    std::cout << fmt::printf(" (%.2f M events/s)", static_cast<double>(r.events) / s / 1e6);
  std::cout << ".\n";
  if (analyse) {
    const auto a0 = std::chrono::steady_clock::now();
    if (keep_analysis_of(*out, 0))
      std::cout << "Analysed it and kept the report in it"
                << fmt::printf(
                       " in %.2f s",
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - a0).count())
                << ".\n";
  }
  std::cout << "Next: trainscope report " << *out << "   (or trainscope-gui " << *out << ")\n";
  return 0;
}

}  // namespace ts::cli
