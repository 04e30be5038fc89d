#include "cli/commands.hpp"

#include <algorithm>

#include "cli/trace_input.hpp"

namespace ts::cli {
namespace {

const Command kCommands[] = {
    {"train", "train a model (and, with --trace, record its timeline)", run_train, kTrainHelp},
    {"report", "analyse a trace: is training input-bound, where does step time go", run_report,
     kReportHelp, true, true},
    {"check", "fail (exit 1) when a trace crosses limits or is slower than a baseline", run_check,
     kCheckHelp, true, true},
    {"diff", "compare two traces side by side", run_diff, kDiffHelp, true, true},
    {"tune", "measure the engine's job as it is and once per lever, against the projections",
     run_tune, kTuneHelp},
    {"export", "write a trace as Chrome trace-event JSON for Perfetto UI / chrome://tracing",
     run_export, kExportHelp, false, true},
    {"import", "import PyTorch/Chrome JSON traces or TensorFlow profiles into a trace file",
     run_import, kImportHelp},
    {"recover", "index the staged events of a killed capture into its trace file", run_recover,
     kRecoverHelp},
    {"merge", "merge the per-rank parts of a data-parallel job's trace into one trace", run_merge,
     kMergeHelp},
    {"synth", "write a synthetic training trace of N events (the benchmarks' traces)", run_synth,
     kSynthHelp},
    {"devices", "list the OpenCL devices", run_devices, kDevicesHelp},
    {"make-dataset", "write a dataset as a folder of PNG images, one sub-folder per class",
     run_make_dataset, kMakeDatasetHelp},
};

}  // namespace

std::span<const Command> commands() {
  return kCommands;
}

const Command* find_command(std::string_view name) {
  for (const Command& c : kCommands)
    if (name == c.name) return &c;
  return nullptr;
}

std::string help_text(const Command& command) {
  std::string text = command.help;
  if (command.step_scope) text += std::string("\n") + kStepScopeHelp;
  if (command.trace_input) text += std::string("\n") + kTraceOptionsHelp;
  return text;
}

std::string usage() {
  std::string text = "usage: trainscope <command> [options]\n\ncommands:\n";
  std::size_t width = 0;
  for (const Command& c : kCommands) width = std::max(width, std::string_view(c.name).size());
  for (const Command& c : kCommands) {
    const std::string name = c.name;
    text += "  " + name + std::string(width + 2 - name.size(), ' ') + c.summary + "\n";
  }
  text += R"(
Exit status: 0 success; 1 a failed check; 2 bad usage, or a file that cannot be read or
written; 3 an internal error (a bug: please report it); 128+N train stopped by signal N
(130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).

Run 'trainscope <command> --help' for a command's options.
)";
  return text;
}

}  // namespace ts::cli
