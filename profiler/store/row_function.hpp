// Rows of a range query handed to C++ from inside SQLite's own loop. A query
//   SELECT 1 FROM t WHERE <range> AND ts_row(c1, c2, ...) ORDER BY <key>
// calls ts_row() once per row of the range, in scan order, and ts_row() hands the row's values to
// the callback RowFunction::run() was given, then answers 0, so that no row is returned. A row
// then costs what SQLite's virtual machine takes to read it (about 75 ns for an event row on
// the reference machine) instead of that plus a sqlite3_step() and a sqlite3_column_*() call per
// column through the API (about 110 ns): the floor under every scan of a trace (analysis,
// export, the viewer's summary).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <exception>
#include <functional>

#include "profiler/store/sqlite.hpp"

namespace ts::store {

// The values of one row, read as a Stmt's columns are.
class RowValues {
 public:
  RowValues(sqlite3_value** values, int count) : values_(values), count_(count) {}
  std::int64_t col_int(int i) const { return i < count_ ? sqlite3_value_int64(values_[i]) : 0; }
  bool col_null(int i) const {
    return i >= count_ || sqlite3_value_type(values_[i]) == SQLITE_NULL;
  }

 private:
  sqlite3_value** values_;
  int count_;
};

class RowFunction {
 public:
  using Callback = std::function<void(const RowValues&)>;

  // Defines ts_row() on `db` (again after the connection changes), for direct use in queries
  // only (never from a file's schema). This object must outlive the connection's statements.
  void install(Db& db);
  // Steps `st`, a query calling ts_row(), to its end, calling `fn` with each row; rethrows what
  // `fn` throws (the query stops there) and throws Error as Stmt::step() does. A statement
  // already running (a scan started from within its own callback) throws Error instead of
  // being entered again.
  void run(Stmt& st, const Callback& fn);

 private:
  static void call(sqlite3_context* context, int count, sqlite3_value** values);

  const Callback* fn_ = nullptr;  // the innermost run()'s
  std::exception_ptr error_;
};

}  // namespace ts::store
