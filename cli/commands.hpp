// The subcommands of the `trainscope` program, in one table: name, the line `trainscope --help`
// gives it, what runs it and its --help text (kept beside each command's code). Each run
// function returns the process exit status: 0 success, 1 a failed check, 2 bad usage or
// unreadable input.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "cli/args.hpp"

namespace ts::cli {

int run_train(Args& args);
int run_devices(Args& args);
int run_make_dataset(Args& args);
int run_report(Args& args);
int run_check(Args& args);
int run_diff(Args& args);
int run_export(Args& args);
int run_recover(Args& args);
int run_import(Args& args);
int run_merge(Args& args);
int run_synth(Args& args);
int run_tune(Args& args);

// The --help text of each command, defined in its own source file.
extern const char* const kTrainHelp;
extern const char* const kDevicesHelp;
extern const char* const kMakeDatasetHelp;
extern const char* const kReportHelp;
extern const char* const kCheckHelp;
extern const char* const kDiffHelp;
extern const char* const kExportHelp;
extern const char* const kRecoverHelp;
extern const char* const kImportHelp;
extern const char* const kMergeHelp;
extern const char* const kSynthHelp;
extern const char* const kTuneHelp;

struct Command {
  const char* name;
  const char* summary;  // its line in `trainscope --help`
  int (*run)(Args&);
  const char* help;          // `trainscope NAME --help`, before the shared option groups below
  bool step_scope = false;   // takes --steps and --skip-warmup (kStepScopeHelp)
  bool trace_input = false;  // takes other tools' traces too (kTraceOptionsHelp)
};

// Every command, in the order `trainscope --help` lists them.
std::span<const Command> commands();
// The command called `name`, or nullptr.
const Command* find_command(std::string_view name);
// `trainscope NAME --help`: the command's text and the option groups it shares with others.
std::string help_text(const Command& command);
// `trainscope --help`: the commands with their summaries, the exit statuses.
std::string usage();

}  // namespace ts::cli
