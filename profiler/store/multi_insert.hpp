// Prepared multi-row INSERTs: rows go in statements of 64, 8 and 1 rows, since SQLite's cost per
// statement outweighs its cost per row. The writer uses them for events, event arguments and
// steps. Not thread-safe, like the connection it belongs to.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "profiler/store/sqlite.hpp"

namespace ts::store {

class MultiRowInsert {
 public:
  static constexpr int kChunkRows[3] = {64, 8, 1};

  MultiRowInsert() = default;
  // head: the statement before its rows, e.g. "INSERT OR IGNORE INTO event VALUES ".
  MultiRowInsert(const Db& db, std::string_view head, int columns, std::string_view what)
      : db_(&db), columns_(columns) {
    for (int k = 0; k < 3; ++k) st_[k] = Stmt(db, std::string(head) + values(k), what);
  }

  // Inserts `rows`: bind(stmt, first_parameter, row) binds the columns of one row. After each
  // statement, done(chunk, inserted) learns how many of the chunk's rows SQLite inserted.
  template <class Row, class Bind, class Done>
  void insert(std::span<Row> rows, Bind&& bind, Done&& done) {
    std::size_t i = 0;
    for (int k = 0; k < 3; ++k) {
      const auto n = static_cast<std::size_t>(kChunkRows[k]);
      for (; rows.size() - i >= n; i += n) {
        int p = 1;
        for (std::size_t r = i; r < i + n; ++r, p += columns_) bind(st_[k], p, rows[r]);
        st_[k].run();
        done(rows.subspan(i, n), static_cast<std::size_t>(sqlite3_changes(db_->get())));
      }
    }
  }
  template <class Row, class Bind>
  void insert(std::span<Row> rows, Bind&& bind) {
    insert(rows, bind, [](std::span<Row>, std::size_t) {});
  }

  // Finalizes the statements (before the connection closes).
  void clear() {
    for (Stmt& s : st_) s = Stmt();
  }

 private:
  std::string values(int k) const {
    std::string row = "(?";
    for (int c = 1; c < columns_; ++c) row += ",?";
    row += ")";
    std::string out;
    for (int r = 0; r < kChunkRows[k]; ++r) out += (r == 0 ? "" : ",") + row;
    return out;
  }

  const Db* db_ = nullptr;
  int columns_ = 0;
  Stmt st_[3];
};

}  // namespace ts::store
