// trainscope: train with a built-in engine and profile why training is slow.
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "engine/backend/factory.hpp"
#include "engine/data/dataset.hpp"

namespace {

constexpr const char* kUsage = R"(usage: trainscope <command> [options]

commands:
  train         train a model (and, with --trace, record its timeline)
  devices       list the OpenCL devices
  make-dataset  write a dataset as a folder of PNG images, one sub-folder per class

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
  --backend auto|cpu|opencl  compute backend (default auto: OpenCL if a device exists)
  --device N                 OpenCL device index from 'trainscope devices' (default 0)
  --threads N                CPU backend threads (default 0: all cores)
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
)";

constexpr const char* kDevicesHelp = R"(usage: trainscope devices

Lists every OpenCL platform and device: index (for --device), OpenCL version, memory, and
whether the device has f16 arithmetic (cl_khr_fp16).
)";

constexpr const char* kMakeDatasetHelp = R"(usage: trainscope make-dataset --from SPEC --to images:DIR [--seed N]

Writes a dataset as an image folder that '--dataset images:DIR' reads: DIR/<class>/<index>.png,
one sub-folder per class, 8-bit grey or RGB PNG files. DIR must not exist or be empty.

  --from SPEC        synthetic[:N] | mnist[:DIR] | idx:IMAGES,LABELS
  --to images:DIR    the folder to create
  --seed N           seed for synthetic data (default 1, as for 'train')
)";

bool wants_help(const std::vector<std::string>& words) {
  for (const auto& w : words)
    if (w == "--help" || w == "-h") return true;
  return false;
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
    if (command == "train") {
      if (wants_help(words)) return std::cout << kTrainHelp, 0;
      return ts::cli::run_train(args);
    }
    if (command == "devices") {
      if (wants_help(words)) return std::cout << kDevicesHelp, 0;
      return ts::cli::run_devices(args);
    }
    if (command == "make-dataset") {
      if (wants_help(words)) return std::cout << kMakeDatasetHelp, 0;
      return ts::cli::run_make_dataset(args);
    }
    std::cerr << "trainscope: unknown command '" << command
              << "' (commands: train, devices, make-dataset; see 'trainscope --help')\n";
    return 2;
  } catch (const ts::cli::UsageError& e) {
    std::cerr << "trainscope: " << e.what() << "\n";
  } catch (const ts::BackendError& e) {
    std::cerr << "trainscope: " << e.what() << "\n";
  } catch (const ts::DatasetError& e) {
    std::cerr << "trainscope: " << e.what() << "\n";
  } catch (const std::invalid_argument& e) {
    std::cerr << "trainscope: " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "trainscope: error: " << e.what() << "\n";
    return 1;
  }
  return 2;
}
