// The subcommands of the `trainscope` program. Each returns the process exit status:
// 0 success, 1 a failed check, 2 bad usage or unreadable input.
#pragma once

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

// The --help text of the commands above that keep it with their code.
extern const char* const kReportHelp;
extern const char* const kCheckHelp;
extern const char* const kDiffHelp;
extern const char* const kExportHelp;
extern const char* const kRecoverHelp;
extern const char* const kImportHelp;
extern const char* const kMergeHelp;
extern const char* const kSynthHelp;

}  // namespace ts::cli
