#include "tests/hostile/hostile_run.hpp"

#include <fcntl.h>
#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

namespace ts::hostile {

namespace {

constexpr std::size_t kKeptOutput = std::size_t{1} << 20;

}  // namespace

std::string read_head(const std::string& path, std::uint64_t& size) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  size = in ? static_cast<std::uint64_t>(in.tellg()) : 0;
  in.seekg(0);
  std::string text(std::min<std::uint64_t>(size, kKeptOutput), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  return text;
}

namespace {

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Forks and execs the binary in `dir`, stdout to `out_fd` (or out_path), stderr to err_path.
pid_t spawn(const std::string& binary, const std::vector<std::string>& args, const std::string& dir,
            int out_fd, int close_fd, const std::string& out_path, const std::string& err_path) {
  // A child's peak memory starts at what it shares with this process when forked: give the
  // heap's free pages back first.
  ::malloc_trim(0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int out =
        out_fd >= 0 ? out_fd : ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int in = ::open("/dev/null", O_RDONLY);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    ::dup2(in, STDIN_FILENO);
    if (close_fd >= 0) ::close(close_fd);
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
    std::vector<std::string> copy = args;
    std::string bin = binary;
    std::vector<char*> argv{bin.data()};
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(bin.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

// Waits for `pid` and fills r's status, time, peak memory and stderr (and stdout from its file
// unless it was drained from a pipe).
void wait_child(pid_t pid, std::int64_t start_ns, const std::string& out_path,
                const std::string& err_path, bool stdout_read, RunResult& r) {
  int raw = 0;
  rusage usage{};
  ::wait4(pid, &raw, 0, &usage);
  r.seconds = static_cast<double>(now_ns() - start_ns) / 1e9;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.peak_rss_kib = static_cast<std::uint64_t>(usage.ru_maxrss);
  std::uint64_t err_size = 0;
  r.err = read_head(err_path, err_size);
  if (!stdout_read) r.out = read_head(out_path, r.out_bytes);
}

}  // namespace

RunResult run_trainscope(const std::vector<std::string>& args, const std::string& dir,
                         bool stdout_pipe, const std::string& binary) {
  const std::string out_path = dir + "/run.out", err_path = dir + "/run.err";
  int fds[2] = {-1, -1};
  if (stdout_pipe && ::pipe(fds) != 0) return {};
  const std::int64_t t0 = now_ns();
  const pid_t pid = spawn(binary, args, dir, fds[1], fds[0], out_path, err_path);
  RunResult r;
  if (stdout_pipe) {
    ::close(fds[1]);
    char buf[65536];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) {
      r.out_bytes += static_cast<std::uint64_t>(n);
      if (r.out.size() < kKeptOutput) r.out.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fds[0]);
  }
  wait_child(pid, t0, out_path, err_path, stdout_pipe, r);
  return r;
}

Started start_trainscope(const std::vector<std::string>& args, const std::string& dir,
                         const std::string& name) {
  Started s;
  s.out_path = dir + "/" + name + ".out";
  s.err_path = dir + "/" + name + ".err";
  s.start_ns = now_ns();
  s.pid = spawn(TRAINSCOPE_BIN, args, dir, -1, -1, s.out_path, s.err_path);
  return s;
}

RunResult wait_trainscope(const Started& started) {
  RunResult r;
  wait_child(started.pid, started.start_ns, started.out_path, started.err_path, false, r);
  return r;
}

std::size_t longest_line(const std::string& text) {
  std::size_t best = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) best = std::max(best, line.size());
  return best;
}

}  // namespace ts::hostile
