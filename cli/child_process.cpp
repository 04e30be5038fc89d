#include "cli/child_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

extern char** environ;

namespace ts::cli {

namespace {

// Closes a descriptor when it goes out of scope.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::atomic<int> g_stop_signal{0};
extern "C" void note_stop_signal(int sig) {
  g_stop_signal.store(sig);
}

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Notes the stop signals for its lifetime (keeping those that were ignored ignored).
class NotedSignals {
 public:
  NotedSignals() {
    g_stop_signal.store(0);
    for (const int s : kStopSignals) {
      struct sigaction old {};
      if (::sigaction(s, nullptr, &old) != 0 || old.sa_handler == SIG_IGN) continue;
      struct sigaction noted {};
      noted.sa_handler = note_stop_signal;
      sigemptyset(&noted.sa_mask);
      ::sigaction(s, &noted, &old);
      saved_.emplace_back(s, old);
    }
  }
  ~NotedSignals() {
    for (const auto& [s, old] : saved_) ::sigaction(s, &old, nullptr);
  }
  NotedSignals(const NotedSignals&) = delete;
  NotedSignals& operator=(const NotedSignals&) = delete;

 private:
  std::vector<std::pair<int, struct sigaction>> saved_;
};

}  // namespace

ChildResult run_self(const std::vector<std::string>& args) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("cannot make a pipe: ") + std::strerror(errno));
  Fd read_end{pipe_fds[0]}, write_end{pipe_fds[1]};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, write_end.fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, write_end.fd, STDERR_FILENO);
  std::vector<std::string> words{"trainscope"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (const int s : kStopSignals) sigaddset(&defaults, s);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
  const NotedSignals noted;
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, "/proc/self/exe", &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) throw std::runtime_error(std::string("cannot start a run: ") + std::strerror(rc));
  ::close(write_end.fd);
  write_end.fd = -1;
  ChildResult result;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(read_end.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.output.append(buffer, static_cast<std::size_t>(n));
    if (result.output.size() > 2 * ChildResult::kOutputKept)
      result.output.erase(0, result.output.size() - ChildResult::kOutputKept);
  }
  if (result.output.size() > ChildResult::kOutputKept)
    result.output.erase(0, result.output.size() - ChildResult::kOutputKept);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.stop_signal = g_stop_signal.load();
  return result;
}

}  // namespace ts::cli
