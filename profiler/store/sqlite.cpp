#include "profiler/store/sqlite.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

namespace ts::store {

namespace {

// The most useful explanation of rc: the OS error for I/O and open failures, else SQLite's.
std::string why(sqlite3* db, int rc) {
  const int primary = rc & 0xFF;
  if (db != nullptr && (primary == SQLITE_CANTOPEN || primary == SQLITE_IOERR ||
                        primary == SQLITE_FULL || primary == SQLITE_READONLY)) {
    const int e = sqlite3_system_errno(db);
    if (e != 0) return std::strerror(e);
  }
  if (primary == SQLITE_FULL) return "the disk is full";
  if (db != nullptr && sqlite3_errcode(db) != SQLITE_OK) return sqlite3_errmsg(db);
  return sqlite3_errstr(rc);
}

}  // namespace

Db::~Db() {
  close();
}

void Db::open(const std::string& path, int flags, std::string_view what) {
  close();
  path_ = path;
  const int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) fail(rc, what);
  sqlite3_extended_result_codes(db_, 1);
}

void Db::close() noexcept {
  if (db_ != nullptr) sqlite3_close_v2(db_);
  db_ = nullptr;
}

void Db::fail(int rc, std::string_view what) const {
  throw Error(std::string(what) + " " + path_ + ": " + why(db_, rc));
}

void Db::check(int rc, std::string_view what) const {
  if (rc != SQLITE_OK && rc != SQLITE_ROW && rc != SQLITE_DONE) fail(rc, what);
}

void Db::exec(const char* sql, std::string_view what) const {
  check(sqlite3_exec(db_, sql, nullptr, nullptr, nullptr), what);
}

std::int64_t Db::pragma_int(const char* pragma, std::string_view what) const {
  Stmt st(*this, std::string("PRAGMA ") + pragma, what);
  return st.step() ? st.col_int(0) : 0;
}

Stmt::Stmt(const Db& db, std::string_view sql, std::string_view what) : db_(&db), what_(what) {
  const int rc = sqlite3_prepare_v3(db.get(), sql.data(), static_cast<int>(sql.size()),
                                    SQLITE_PREPARE_PERSISTENT, &st_, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(st_);
    st_ = nullptr;
    db.fail(rc, what);
  }
}

Stmt::~Stmt() {
  sqlite3_finalize(st_);
}

Stmt::Stmt(Stmt&& o) noexcept
    : db_(o.db_), st_(std::exchange(o.st_, nullptr)), what_(std::move(o.what_)) {}

Stmt& Stmt::operator=(Stmt&& o) noexcept {
  if (this != &o) {
    sqlite3_finalize(st_);
    db_ = o.db_;
    st_ = std::exchange(o.st_, nullptr);
    what_ = std::move(o.what_);
  }
  return *this;
}

bool Stmt::step() {
  const int rc = sqlite3_step(st_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  sqlite3_reset(st_);
  db_->fail(rc, what_);
}

void Stmt::run() {
  while (step()) {
  }
  reset();
}

std::string Stmt::col_text(int i) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st_, i));
  if (p == nullptr) return {};
  return std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(st_, i)));
}

}  // namespace ts::store
