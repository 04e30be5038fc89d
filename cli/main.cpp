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
  train      train a model (and, with --trace, record its timeline)
  devices    list the OpenCL devices

Run 'trainscope <command> --help' for a command's options.
)";

constexpr const char* kTrainHelp = R"(usage: trainscope train [options]

  --model mlp|cnn            model (default mlp)
  --dataset SPEC             synthetic[:N] | mnist[:DIR] | idx:IMAGES,LABELS (default synthetic)
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
  --summary-json FILE        write per-epoch loss/accuracy/seconds and samples/s as JSON
  --quiet                    no progress output
)";

constexpr const char* kDevicesHelp = R"(usage: trainscope devices

Lists every OpenCL platform and device: index (for --device), OpenCL version, memory, and
whether the device has f16 arithmetic (cl_khr_fp16).
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
    std::cerr << "trainscope: unknown command '" << command
              << "' (commands: train, devices; see 'trainscope --help')\n";
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
