// Helpers shared by the profiler tests: scratch directories, child processes, raw SQL.
#pragma once

#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace ts::test {

// A fresh directory under /tmp, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "tsprof_XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

inline std::int64_t monotonic_ns_for_test() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

inline std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

inline void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << bytes;
}

// Starts `argv` with extra environment variables; its stdout and stderr go to files.
inline pid_t spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env_extra,
                   const std::string& out_file, const std::string& err_file) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  std::vector<char*> args, env;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (char** e = environ; *e != nullptr; ++e)
    if (std::string(*e).rfind("TRAINSCOPE_", 0) != 0) env.push_back(*e);
  for (const auto& e : env_extra) env.push_back(const_cast<char*>(e.c_str()));
  env.push_back(nullptr);
  FILE* out = std::fopen(out_file.c_str(), "w");
  FILE* err = std::fopen(err_file.c_str(), "w");
  if (out == nullptr || err == nullptr) ::_exit(126);
  ::dup2(::fileno(out), 1);
  ::dup2(::fileno(err), 2);
  ::execve(args[0], args.data(), env.data());
  ::_exit(127);
}

inline int wait_exit_code(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Runs one SQL statement on a plain SQLite connection and returns all cells as text.
struct SqlResult {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};
inline SqlResult sql(const std::string& db_path, const std::string& query) {
  SqlResult r;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return r;
  }
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, query.c_str(), -1, &st, nullptr) == SQLITE_OK) {
    for (int i = 0; i < sqlite3_column_count(st); ++i)
      r.columns.push_back(sqlite3_column_name(st, i));
    while (sqlite3_step(st) == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int i = 0; i < sqlite3_column_count(st); ++i) {
        const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st, i));
        row.push_back(t != nullptr ? t : "NULL");
      }
      r.rows.push_back(std::move(row));
    }
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return r;
}

inline void exec_rw(const std::string& db_path, const std::string& statements) {
  sqlite3* db = nullptr;
  sqlite3_open(db_path.c_str(), &db);
  sqlite3_exec(db, statements.c_str(), nullptr, nullptr, nullptr);
  sqlite3_close(db);
}

}  // namespace ts::test
