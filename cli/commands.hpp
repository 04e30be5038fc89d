// The subcommands of the `trainscope` program. Each returns the process exit status:
// 0 success, 1 a failed check, 2 bad usage or unreadable input.
#pragma once

#include "cli/args.hpp"

namespace ts::cli {

int run_train(Args& args);
int run_devices(Args& args);
int run_make_dataset(Args& args);

}  // namespace ts::cli
