#include "engine/data/mnist_fetch.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace ts {
namespace {

#ifndef TRAINSCOPE_SOURCE_DIR
#define TRAINSCOPE_SOURCE_DIR "."
#endif

std::string script_path() {
  return std::string(TRAINSCOPE_SOURCE_DIR) + "/scripts/fetch-mnist.sh";
}

// Single-quotes s for a POSIX shell unless it is made only of safe characters.
std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_-./=:,+@%") == std::string::npos)
    return s;
  std::string q = "'";
  for (const char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

std::string mnist_fetch_command(const std::string& dir) {
  return "bash " + shell_quote(script_path()) + " " + shell_quote(dir);
}

bool run_mnist_fetch(const std::string& dir) {
  const char* no_fetch = std::getenv("TRAINSCOPE_NO_FETCH");
  if (no_fetch && *no_fetch) return false;
  const std::string script = script_path();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(script, ec)) return false;

  std::fprintf(stderr, "trainscope: MNIST is not in '%s'; fetching it: %s\n", dir.c_str(),
               mnist_fetch_command(dir).c_str());
  std::fflush(stderr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  std::string arg0 = "bash";
  std::string arg1 = script;
  std::string arg2 = dir;
  char* argv[] = {arg0.data(), arg1.data(), arg2.data(), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, "bash", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    std::fprintf(stderr, "trainscope: cannot run bash: %s\n", std::strerror(rc));
    return false;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return false;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace ts
