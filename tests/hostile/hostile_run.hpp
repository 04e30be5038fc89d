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
// binary: the program to run (the viewer's cases run trainscope-gui).
RunResult run_trainscope(const std::vector<std::string>& args, const std::string& dir,
                         bool stdout_pipe = false, const std::string& binary = TRAINSCOPE_BIN);

// A trainscope process started and not yet waited for, for cases that run two at once. Its
// stdout and stderr go to DIR/NAME.out and DIR/NAME.err.
struct Started {
  int pid = -1;
  std::int64_t start_ns = 0;  // steady clock
  std::string out_path, err_path;
};
Started start_trainscope(const std::vector<std::string>& args, const std::string& dir,
                         const std::string& name);
// Waits for it to end and measures it as run_trainscope does.
RunResult wait_trainscope(const Started& started);

// The first MiB of the file at `path`; size: its whole size (0 when absent).
std::string read_head(const std::string& path, std::uint64_t& size);

// The longest line of `text`, in bytes.
std::size_t longest_line(const std::string& text);

}  // namespace ts::hostile
