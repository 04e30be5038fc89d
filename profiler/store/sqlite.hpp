// Thin RAII wrappers over the SQLite C API, used by the writer and the reader. Every failure
// becomes a store::Error whose message names the trace file.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "profiler/store/error.hpp"

namespace ts::store {

class Db {
 public:
  Db() = default;
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  // Opens `path` with sqlite3_open_v2 flags; on failure throws Error("<what> <path>: <why>").
  // uri_query: URI parameters for the file ("immutable=1"); the path is then handed to SQLite as
  // a file: URI, every byte that could be read as URI syntax percent-encoded.
  void open(const std::string& path, int flags, std::string_view what,
            std::string_view uri_query = {});
  // Opens an empty in-memory database; `name` stands for it in error messages.
  void open_memory(const std::string& name, std::string_view what);
  void close() noexcept;
  void swap(Db& other) noexcept {
    std::swap(db_, other.db_);
    path_.swap(other.path_);
    budget_.swap(other.budget_);
  }
  // Bounds every statement (each exec() and each statement from its first step() to its reset)
  // to about `steps` SQLite virtual-machine steps, through a progress handler: one that needs
  // more stops, and fails with an Error saying the file needs more work than a trace of its
  // size can. 0 lifts the bound.
  void set_work_budget(std::uint64_t steps);
  // Starts the count of the statement about to run over.
  void restart_work() const noexcept {
    if (budget_) {
      budget_->used = 0;
      budget_->tripped = false;
    }
  }
  sqlite3* get() const { return db_; }
  const std::string& path() const { return path_; }

  void exec(const char* sql, std::string_view what) const;
  // Throws Error("<what> <path>: <sqlite message>") unless rc is OK, ROW or DONE.
  void check(int rc, std::string_view what) const;
  // os_errno: errno as the failed call left it, the explanation of last resort.
  [[noreturn]] void fail(int rc, std::string_view what, int os_errno = 0) const;
  std::int64_t pragma_int(const char* pragma, std::string_view what) const;

 private:
  struct WorkBudget {
    std::uint64_t limit = 0;  // progress handler calls allowed per statement
    std::uint64_t used = 0;
    std::uint64_t steps = 0;  // the budget as given, for the message
    bool tripped = false;
  };
  static int on_progress(void* budget) noexcept;

  sqlite3* db_ = nullptr;
  std::string path_;
  std::unique_ptr<WorkBudget> budget_;  // on the heap: SQLite holds its address
};

class Stmt {
 public:
  Stmt() = default;
  Stmt(const Db& db, std::string_view sql, std::string_view what);
  ~Stmt();
  Stmt(Stmt&& o) noexcept;
  Stmt& operator=(Stmt&& o) noexcept;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  sqlite3_stmt* get() const { return st_; }
  explicit operator bool() const { return st_ != nullptr; }

  void bind(int i, std::int64_t v) { sqlite3_bind_int64(st_, i, v); }
  void bind(int i, double v) { sqlite3_bind_double(st_, i, v); }
  void bind(int i, std::string_view v) {
    sqlite3_bind_text(st_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void bind_null(int i) { sqlite3_bind_null(st_, i); }
  // Binds v, or NULL when v is the null sentinel.
  void bind_opt(int i, std::int64_t v, std::int64_t null_value) {
    if (v == null_value)
      sqlite3_bind_null(st_, i);
    else
      sqlite3_bind_int64(st_, i, v);
  }

  // Steps once: true with a row, false when done; throws on error.
  bool step();
  void reset() { sqlite3_reset(st_); }  // errors were reported by step()
  // Executes a statement that returns no rows, then resets it.
  void run();

  std::int64_t col_int(int i) const { return sqlite3_column_int64(st_, i); }
  double col_double(int i) const { return sqlite3_column_double(st_, i); }
  bool col_null(int i) const { return sqlite3_column_type(st_, i) == SQLITE_NULL; }
  std::string col_text(int i) const;

 private:
  const Db* db_ = nullptr;
  sqlite3_stmt* st_ = nullptr;
  std::string what_;
};

// Whether a connection's commits sync the file (SQLite's default) or leave the writing to the
// kernel. An import's trace is never synced: written without journal or fsync under a temporary
// name (WriterOptions::bulk), it can be made again from its sources, so what is stored into it
// afterwards (its overview, kept analysis, cache fingerprint) is not synced either; the first
// synced commit would otherwise wait for the disk to take the whole trace (0.5 s for a 1.9 GB
// trace here). A crash of the process loses nothing either way; a power loss may lose a trace
// that was not synced. A capture's trace is synced, and so is a merge's
// (WriterOptions::durability).
enum class Durability { synced, not_synced };
// Sets `db`'s synchronous pragma for `durability` (FULL, the default, or OFF).
void set_durability(const Db& db, Durability durability);
// Durability::not_synced for an import's trace (its meta holds import.format), else synced.
Durability durability_of(const Db& db);

}  // namespace ts::store
