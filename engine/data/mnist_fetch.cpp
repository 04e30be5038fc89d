#include "engine/data/mnist_fetch.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ts {
namespace {

namespace fs = std::filesystem;

// From the executable's directory to the installed data directory ("../share/trainscope").
#ifndef TRAINSCOPE_DATA_FROM_BIN
#define TRAINSCOPE_DATA_FROM_BIN "../share/trainscope"
#endif
// The source tree, for a build that was never installed.
#ifndef TRAINSCOPE_SOURCE_DIR
#define TRAINSCOPE_SOURCE_DIR "."
#endif

constexpr const char* kScriptName = "fetch-mnist.sh";
constexpr const char* kOverride = "TRAINSCOPE_FETCH_MNIST";

const char* override_path() {
  const char* v = std::getenv(kOverride);
  return v && *v ? v : nullptr;
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// The running program's path ("" when /proc is not mounted).
fs::path executable() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe;
}

fs::path source_tree_script() {
  return fs::path(TRAINSCOPE_SOURCE_DIR) / "scripts" / kScriptName;
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

fs::path mnist_fetch_script_beside(const fs::path& executable) {
  return (executable.parent_path() / TRAINSCOPE_DATA_FROM_BIN / kScriptName).lexically_normal();
}

std::string find_mnist_fetch_script() {
  if (const char* path = override_path()) return is_file(path) ? path : "";
  if (const fs::path exe = executable(); !exe.empty()) {
    if (const fs::path beside = mnist_fetch_script_beside(exe); is_file(beside))
      return beside.string();
  }
  const fs::path source = source_tree_script();
  return is_file(source) ? source.string() : "";
}

std::string mnist_fetch_command(const std::string& dir) {
  std::string script = find_mnist_fetch_script();
  // Not found: name the script as the source tree has it, for a user who has one.
  if (script.empty()) script = "scripts/" + std::string(kScriptName);
  return "bash " + shell_quote(script) + " " + shell_quote(dir);
}

bool run_mnist_fetch(const std::string& dir) {
  const char* no_fetch = std::getenv("TRAINSCOPE_NO_FETCH");
  if (no_fetch && *no_fetch) return false;
  const std::string script = find_mnist_fetch_script();
  if (script.empty()) return false;

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
