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

std::string read_head(const std::string& path, std::uint64_t& size) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  size = in ? static_cast<std::uint64_t>(in.tellg()) : 0;
  in.seekg(0);
  std::string text(std::min<std::uint64_t>(size, kKeptOutput), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  return text;
}

}  // namespace

RunResult run_trainscope(const std::vector<std::string>& args, const std::string& dir,
                         bool stdout_pipe) {
  const std::string out_path = dir + "/run.out", err_path = dir + "/run.err";
  int fds[2] = {-1, -1};
  if (stdout_pipe && ::pipe(fds) != 0) return {};
  // A child's peak memory starts at what it shares with this process when forked: give the
  // heap's free pages back first.
  ::malloc_trim(0);
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int out =
        stdout_pipe ? fds[1] : ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int in = ::open("/dev/null", O_RDONLY);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    ::dup2(in, STDIN_FILENO);
    if (stdout_pipe) ::close(fds[0]);
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
    std::vector<std::string> copy = args;
    std::string bin = TRAINSCOPE_BIN;
    std::vector<char*> argv{bin.data()};
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(bin.c_str(), argv.data());
    ::_exit(127);
  }
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
  int raw = 0;
  rusage usage{};
  ::wait4(pid, &raw, 0, &usage);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.peak_rss_kib = static_cast<std::uint64_t>(usage.ru_maxrss);
  std::uint64_t err_size = 0;
  r.err = read_head(err_path, err_size);
  if (!stdout_pipe) r.out = read_head(out_path, r.out_bytes);
  return r;
}

std::size_t longest_line(const std::string& text) {
  std::size_t best = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) best = std::max(best, line.size());
  return best;
}

}  // namespace ts::hostile
