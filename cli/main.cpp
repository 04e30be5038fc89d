// trainscope: train with a built-in engine and profile why training is slow.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/dist_trace.hpp"
#include "cli/trace_input.hpp"
#include "engine/backend/factory.hpp"
#include "engine/data/dataset.hpp"
#include "engine/dist/runtime.hpp"
#include "profiler/import/import.hpp"
#include "profiler/io/chrome_trace.hpp"
#include "profiler/store/error.hpp"

namespace {

constexpr const char* kUsage = R"(usage: trainscope <command> [options]

commands:
  train         train a model (and, with --trace, record its timeline)
  report        analyse a trace: is training input-bound, where does step time go
  check         fail (exit 1) when a trace crosses limits or is slower than a baseline
  diff          compare two traces side by side
  export        write a trace as Chrome trace-event JSON for Perfetto UI / chrome://tracing
  import        import PyTorch/Chrome JSON traces or TensorFlow profiles into a trace file
  recover       index the staged events of a killed capture into its trace file
  merge         merge the per-rank parts of a data-parallel job's trace into one trace
  synth         write a synthetic training trace of N events (the benchmarks' traces)
  devices       list the OpenCL devices
  make-dataset  write a dataset as a folder of PNG images, one sub-folder per class

Exit status: 0 success; 1 a failed check; 2 bad usage, or a file that cannot be read or
written; 3 an internal error (a bug: please report it); 128+N train stopped by signal N
(130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).

Run 'trainscope <command> --help' for a command's options.
)";

constexpr const char* kTrainHelp = R"(usage: trainscope train [options]

  --model mlp|cnn            model (default mlp)
  --dataset SPEC             synthetic[:N] | mnist[:DIR] | idx:IMAGES,LABELS | images:DIR
                             (images:DIR: one sub-folder of PNG/JPEG files per class, as
                             'trainscope make-dataset' writes; default synthetic)
  --epochs N                 epochs (default 5)
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

constexpr const char* kDevicesHelp = R"(usage: trainscope devices

Lists every OpenCL platform and device: index (for --device), OpenCL version, memory, and
whether the device has f16 arithmetic (cl_khr_fp16).
)";

constexpr const char* kMakeDatasetHelp =
    R"(usage: trainscope make-dataset --from SPEC --to images:DIR [--seed N]

Writes a dataset as an image folder that '--dataset images:DIR' reads: DIR/<class>/<index>.png,
one sub-folder per class, 8-bit grey or RGB PNG files. DIR must not exist or be empty.

  --from SPEC        synthetic[:N] | mnist[:DIR] | idx:IMAGES,LABELS
  --to images:DIR    the folder to create
  --seed N           seed for synthetic data (default 1, as for 'train')
)";

struct Command {
  const char* name;
  int (*run)(ts::cli::Args&);
  const char* help;
  bool reads_traces = false;  // takes other tools' traces too (--step-marker, the import cache)
};

bool wants_help(const std::vector<std::string>& words) {
  for (const auto& w : words)
    if (w == "--help" || w == "-h") return true;
  return false;
}

// The exit status of an unexpected exception (1 is a failed check's, 2 bad usage or input).
constexpr int kInternalError = 3;

// Prints the error (with the rank in a job of several). A rank of a job whose error the other
// ranks do not share marks its trace part, then ends the job (MPI_Abort) so that none waits in a
// collective forever; an error every rank found (`agreed`) lets each rank exit on its own.
int fail(const std::string& message, int status, bool agreed = false) {
  const bool distributed = ts::dist::is_distributed();
  const std::string rank =
      distributed ? "rank " + std::to_string(ts::dist::world().rank()) + ": " : "";
  // One write per line: the ranks' stderr streams interleave at write boundaries.
  std::cerr << "trainscope: " + rank + message + "\n";
  if (distributed) {
    ts::cli::mark_part_failed(message);
    if (!agreed) std::cerr << "trainscope: " + rank + "ending the whole job (MPI_Abort)\n";
    ts::dist::end_job_after_error(status, agreed);
  }
  ts::dist::finalize();
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string command = argv[1];
  std::vector<std::string> words(argv + 2, argv + argc);
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kUsage;
    return 0;
  }
  if (command == "--version") {
    std::cout << "trainscope 0.1.0\n";
    return 0;
  }
  try {
    ts::cli::Args args(command, words);
    const Command commands[] = {
        {"train", ts::cli::run_train, kTrainHelp},
        {"devices", ts::cli::run_devices, kDevicesHelp},
        {"make-dataset", ts::cli::run_make_dataset, kMakeDatasetHelp},
        {"report", ts::cli::run_report, ts::cli::kReportHelp, true},
        {"check", ts::cli::run_check, ts::cli::kCheckHelp, true},
        {"diff", ts::cli::run_diff, ts::cli::kDiffHelp, true},
        {"export", ts::cli::run_export, ts::cli::kExportHelp, true},
        {"import", ts::cli::run_import, ts::cli::kImportHelp},
        {"recover", ts::cli::run_recover, ts::cli::kRecoverHelp},
        {"merge", ts::cli::run_merge, ts::cli::kMergeHelp},
        {"synth", ts::cli::run_synth, ts::cli::kSynthHelp},
    };
    for (const Command& c : commands) {
      if (command != c.name) continue;
      if (wants_help(words)) {
        std::cout << c.help;
        if (c.reads_traces) {
          if (std::string(c.name) != "export") std::cout << "\n" << ts::cli::kStepScopeHelp;
          std::cout << "\n" << ts::cli::kTraceOptionsHelp;
        }
        return 0;
      }
      const int status = c.run(args);
      // What the command printed must have reached standard output: a full disk or a closed
      // device behind it is an error, not a silent success.
      if (std::fflush(stdout) != 0 || std::ferror(stdout))
        return fail(std::string("cannot write to standard output: ") +
                        std::strerror(errno != 0 ? errno : EIO),
                    2);
      ts::dist::finalize();
      return status;
    }
    std::cerr << "trainscope: unknown command '" << command
              << "' (commands: train, report, check, diff, export, import, recover, merge, "
                 "synth, devices, make-dataset; see 'trainscope --help')\n";
    return 2;
  } catch (const ts::cli::UsageError& e) {
    return fail(e.what(), 2);
  } catch (const ts::dist::AgreedError& e) {
    return fail(e.what(), 2, true);
  } catch (const ts::store::Error& e) {
    return fail(e.what(), 2);
  } catch (const ts::import::ImportError& e) {
    return fail(e.what(), 2);
  } catch (const ts::io::WriteError& e) {
    return fail(e.what(), 2);
  } catch (const ts::BackendError& e) {
    return fail(e.what(), 2);
  } catch (const ts::DatasetError& e) {
    return fail(e.what(), 2);
  } catch (const std::invalid_argument& e) {
    return fail(e.what(), 2);
  } catch (const std::exception& e) {
    // Not an error the program expects: exit 1 stays a failed check's alone.
    return fail(std::string("internal error: ") + e.what(), kInternalError);
  } catch (...) {
    return fail("internal error: an unknown exception", kInternalError);
  }
}
