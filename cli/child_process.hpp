// Running this program again as a child process (trainscope tune runs `trainscope train` once per
// configuration, each in a process of its own so that one run's trace session, threads and
// device never meet the next one's).
#pragma once

#include <string>
#include <vector>

namespace ts::cli {

struct ChildResult {
  int status = 0;       // the exit status, or 128 + the signal that ended the child
  std::string output;   // its stdout and stderr together, the last kOutputKept bytes
  int stop_signal = 0;  // SIGINT, SIGTERM or SIGHUP sent to this process while the child ran
  static constexpr std::size_t kOutputKept = 4096;
};

// Runs this executable (/proc/self/exe) with `args` (the words after the program's name) and
// waits for it. Throws std::runtime_error when the child cannot be started. While it runs, a
// SIGINT, SIGTERM or SIGHUP to this process is noted, not acted on: a terminal's Ctrl-C reaches
// the child as well, which stops after its step and keeps its trace; the caller decides what the
// noted signal ends (ChildResult::stop_signal). The child starts with those signals' default
// handling.
ChildResult run_self(const std::vector<std::string>& args);

}  // namespace ts::cli
