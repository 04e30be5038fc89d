// Runs the trainscope binary on one hostile input as a child process and measures it: wall time,
// peak resident memory (wait4's rusage of the child), exit status, stderr, and stdout (to a file,
// or drained from a pipe when the case needs stdout to be a pipe).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ts::hostile {

struct RunResult {
  int status = -1;  // exit status; 128 + signal when killed
  double seconds = 0;
  std::uint64_t peak_rss_kib = 0;
  std::string out, err;
  std::uint64_t out_bytes = 0;  // stdout's size (kept whole only up to 1 MiB)
};

// args: the arguments after the binary. stdout_pipe: stdout is a pipe the parent drains.
RunResult run_trainscope(const std::vector<std::string>& args, const std::string& dir,
                         bool stdout_pipe = false);

// The longest line of `text`, in bytes.
std::size_t longest_line(const std::string& text);

}  // namespace ts::hostile
