// Runs the trainscope binary and captures its exit status, stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/profiler/test_util.hpp"  // read_file, write_file, TempDir

namespace ts::test {

struct CommandResult {
  int status = -1;
  std::string out, err;
};

// Runs a shell command line with stdin closed; stdout and stderr captured apart.
inline CommandResult run_shell(const std::string& command) {
  static int counter = 0;
  const std::string base =
      "/tmp/ts_cli_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
  const int raw =
      std::system((command + " >" + base + ".out 2>" + base + ".err </dev/null").c_str());
  CommandResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.out = read_file(base + ".out");
  r.err = read_file(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

#ifdef TRAINSCOPE_BIN
// args: the shell-quoted arguments after the binary; env: assignments prefixed to the command.
inline CommandResult run_trainscope(const std::string& args, const std::string& env = "") {
  return run_shell(env + " " TRAINSCOPE_BIN " " + args);
}
#endif

}  // namespace ts::test
