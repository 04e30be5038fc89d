#include "profiler/store/sqlite.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace ts::store {

namespace {

// The most useful explanation of rc: the OS error for I/O and open failures, else SQLite's.
// SQLite records the OS error of a failed statement, not of a failed commit: then os_errno, the
// errno the failed call left behind, names it (e.g. EFBIG for a file size limit).
std::string why(sqlite3* db, int rc, int os_errno) {
  const int primary = rc & 0xFF;
  if (db != nullptr && (primary == SQLITE_CANTOPEN || primary == SQLITE_IOERR ||
                        primary == SQLITE_FULL || primary == SQLITE_READONLY)) {
    int e = sqlite3_system_errno(db);
    if (e == 0 && (primary == SQLITE_IOERR || primary == SQLITE_FULL)) e = os_errno;
    if (e != 0) return std::strerror(e);
  }
  if (primary == SQLITE_FULL) return "the disk is full, or the file reached a size limit";
  if (primary == SQLITE_CORRUPT) return "the file is corrupt (database disk image is malformed)";
  if (db != nullptr && sqlite3_errcode(db) != SQLITE_OK) return sqlite3_errmsg(db);
  return sqlite3_errstr(rc);
}

// `path` as an SQLite file: URI with `query` (https://www.sqlite.org/uri.html): every byte but
// letters, digits, "-._~" and '/' percent-encoded, so '?', '#' and '%' in a name stay part of it.
// An absolute path gets an empty authority ("file:///..."), so one starting "//" is no host.
std::string file_uri(const std::string& path, std::string_view query) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string uri = path.starts_with('/') ? "file://" : "file:";
  for (const char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
    if (plain) {
      uri += ch;
    } else {
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 0xF];
    }
  }
  uri += '?';
  uri += query;
  return uri;
}

}  // namespace

Db::~Db() {
  close();
}

void Db::open(const std::string& path, int flags, std::string_view what,
              std::string_view uri_query) {
  close();
  path_ = path;
  const int rc = uri_query.empty() ? sqlite3_open_v2(path.c_str(), &db_, flags, nullptr)
                                   : sqlite3_open_v2(file_uri(path, uri_query).c_str(), &db_,
                                                     flags | SQLITE_OPEN_URI, nullptr);
  if (rc != SQLITE_OK) {
    // A file that cannot be created: SQLite retries read-only and keeps that attempt's errno
    // (ENOENT), which would hide why the folder refused it (EACCES, EROFS, no such folder).
    if ((rc & 0xFF) == SQLITE_CANTOPEN && (flags & SQLITE_OPEN_CREATE) != 0 &&
        ::access(path.c_str(), F_OK) != 0) {
      const std::size_t slash = path.rfind('/');
      const std::string folder =
          slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
      if (::access(folder.c_str(), W_OK | X_OK) != 0)
        throw Error(std::string(what) + " " + path + ": the folder " + folder +
                    " cannot take a new file (" + std::strerror(errno) + ")");
    }
    fail(rc, what);
  }
  sqlite3_extended_result_codes(db_, 1);
}

void Db::open_memory(const std::string& name, std::string_view what) {
  close();
  path_ = name;
  const int rc =
      sqlite3_open_v2(":memory:", &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) fail(rc, what);
  sqlite3_extended_result_codes(db_, 1);
}

void Db::close() noexcept {
  if (db_ != nullptr && budget_) sqlite3_progress_handler(db_, 0, nullptr, nullptr);
  if (db_ != nullptr) sqlite3_close_v2(db_);
  db_ = nullptr;
  budget_.reset();
}

namespace {

// Virtual-machine steps between two calls of the progress handler.
constexpr int kStepsPerProgressCall = 4096;

}  // namespace

void Db::set_work_budget(std::uint64_t steps) {
  if (steps == 0) {
    sqlite3_progress_handler(db_, 0, nullptr, nullptr);
    budget_.reset();
    return;
  }
  if (!budget_) budget_ = std::make_unique<WorkBudget>();
  budget_->steps = steps;
  budget_->limit = steps / kStepsPerProgressCall + 1;
  budget_->used = 0;
  sqlite3_progress_handler(db_, kStepsPerProgressCall, &Db::on_progress, budget_.get());
}

int Db::on_progress(void* budget) noexcept {
  auto* b = static_cast<WorkBudget*>(budget);
  if (++b->used <= b->limit) return 0;
  b->tripped = true;
  return 1;  // interrupts the statement: SQLITE_INTERRUPT
}

void Db::fail(int rc, std::string_view what, int os_errno) const {
  if ((rc & 0xFF) == SQLITE_INTERRUPT && budget_ && budget_->tripped) {
    budget_->tripped = false;
    throw Error(std::string(what) + " " + path_ + ": one query needed more than " +
                std::to_string(budget_->steps) +
                " steps of work, more than any trace of its size needs (the file is damaged or "
                "hostile)");
  }
  throw Error(std::string(what) + " " + path_ + ": " + why(db_, rc, os_errno));
}

void Db::check(int rc, std::string_view what) const {
  if (rc != SQLITE_OK && rc != SQLITE_ROW && rc != SQLITE_DONE) fail(rc, what);
}

void Db::exec(const char* sql, std::string_view what) const {
  restart_work();
  errno = 0;
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) fail(rc, what, errno);
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
  if (sqlite3_stmt_busy(st_) == 0) db_->restart_work();  // the statement starts
  errno = 0;
  const int rc = sqlite3_step(st_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  const int os_errno = errno;
  sqlite3_reset(st_);
  db_->fail(rc, what_, os_errno);
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

void set_durability(const Db& db, Durability durability) {
  db.exec(durability == Durability::synced ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=OFF",
          "cannot write trace");
}

Durability durability_of(const Db& db) {
  try {
    Stmt st(db, "SELECT 1 FROM meta WHERE key = 'import.format'", "cannot read trace");
    return st.step() ? Durability::not_synced : Durability::synced;
  } catch (const Error&) {
    return Durability::synced;  // no meta table: not a trace this store wrote
  }
}

}  // namespace ts::store
