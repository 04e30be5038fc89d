#include "profiler/store/analysis_table.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "profiler/store/events_checksum.hpp"
#include "profiler/store/read_only_open.hpp"
#include "profiler/store/schema.hpp"

namespace ts::store {

namespace {

constexpr std::string_view kKeep = "cannot keep the analysis in";

bool has_table(const Db& db) {
  Stmt st(db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'analysis'", kKeep);
  return st.step();
}

}  // namespace

std::string_view analysis_table_sql() {
  const std::string_view sql = schema_sql();
  const std::size_t begin = sql.find("CREATE TABLE analysis (");
  const std::size_t end = sql.find(");", begin);
  if (begin == std::string_view::npos || end == std::string_view::npos) std::abort();
  return sql.substr(begin, end + 2 - begin);
}

std::string encode_seal(const KeptSeal& seal) {
  std::string out;
  for (const std::uint64_t v : {seal.events, seal.parts})
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
  return out;
}

std::optional<KeptSeal> decode_seal(std::string_view bytes) {
  if (bytes.size() != 16) return std::nullopt;
  auto at = [&](std::size_t from) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[from + i]);
    return v;
  };
  return KeptSeal{at(0), at(8)};
}

SealHash::SealHash(std::uint64_t events, std::string_view key) : hash_(events) {
  hash_.update_u64(key.size());
  hash_.update(key);
}

void SealHash::part(std::string_view bytes) {
  hash_.update_u64(bytes.size());
  hash_.update(bytes);
}

std::uint64_t SealHash::digest() const {
  return hash_.digest();
}

void clear_kept_analysis(const Db& db) {
  if (has_table(db)) db.exec("DELETE FROM analysis", kKeep);
}

bool keep_analysis(const std::string& path, std::string_view key, std::string_view family,
                   std::size_t parts, const std::function<std::string(std::size_t)>& part,
                   int most_keys) noexcept {
  try {
    if (parts == 0) return false;
    Db db;
    db.open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, kKeep);
    sqlite3_busy_timeout(db.get(), 2000);  // a viewer's short reads; never a long wait
    // The file is the user's, perhaps hostile: none of its triggers or schema tricks run.
    sqlite3_db_config(db.get(), SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(db.get(), SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
    db.exec("PRAGMA trusted_schema=OFF", kKeep);
    set_durability(db, durability_of(db));
    // Only a finished trace: a running or killed capture's events are still to come.
    auto finished = [&db] {
      Stmt st(db,
              "SELECT EXISTS (SELECT 1 FROM overview) AND NOT EXISTS (SELECT 1 FROM event_block)",
              kKeep);
      return st.step() && st.col_int(0) != 0;
    };
    // The table is created in a transaction of its own: in a file with auto_vacuum, creating a
    // table moves a page of another to make room for its root, which must happen before the
    // events' checksum is taken.
    if (!has_table(db)) {
      db.exec("BEGIN IMMEDIATE", kKeep);
      if (!finished()) return false;
      if (!has_table(db)) db.exec(std::string(analysis_table_sql()).c_str(), kKeep);
      db.exec("COMMIT", kKeep);
    }
    db.exec("BEGIN IMMEDIATE", kKeep);
    if (!finished()) return false;
    if (!has_table(db)) return false;
    // Before this transaction writes anything: the file then holds what other readers see.
    const std::optional<EventsChecksum> events = events_checksum(db);
    if (!events) return false;
    SealHash seal(events->checksum, key);
    {
      Stmt drop(db, "DELETE FROM analysis WHERE key = ? OR substr(key, 1, ?) <> ?", kKeep);
      drop.bind(1, key);
      drop.bind(2, static_cast<std::int64_t>(family.size()));
      drop.bind(3, family);
      drop.run();
      // The oldest keys past most_keys - 1, making room for this one.
      Stmt old(db,
               "DELETE FROM analysis WHERE key IN (SELECT key FROM analysis GROUP BY key "
               "ORDER BY min(rowid) DESC LIMIT -1 OFFSET ?)",
               kKeep);
      old.bind(1, static_cast<std::int64_t>(std::max(0, most_keys - 1)));
      old.run();
      Stmt put(db, "INSERT INTO analysis (key, part, data) VALUES (?, ?, ?)", kKeep);
      for (std::size_t i = 0; i < parts; ++i) {
        const std::string bytes = part(i);
        if (bytes.size() > kAnalysisPartBytes) return false;
        put.bind(1, key);
        put.bind(2, static_cast<std::int64_t>(i));
        sqlite3_bind_blob(put.get(), 3, bytes.data(), static_cast<int>(bytes.size()),
                          SQLITE_STATIC);
        put.run();
        seal.part(bytes);
      }
      const std::string sealed = encode_seal({events->checksum, seal.digest()});
      put.bind(1, key);
      put.bind(2, kSealPart);
      sqlite3_bind_blob(put.get(), 3, sealed.data(), static_cast<int>(sealed.size()),
                        SQLITE_STATIC);
      put.run();
    }
    db.exec("COMMIT", kKeep);
    return true;
  } catch (...) {
    return false;  // an open transaction rolls back as the connection closes
  }
}

bool forget_kept_analysis(const std::string& path, std::string_view key) noexcept {
  try {
    Db db;
    db.open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, kKeep);
    sqlite3_busy_timeout(db.get(), 2000);
    sqlite3_db_config(db.get(), SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(db.get(), SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
    db.exec("PRAGMA trusted_schema=OFF", kKeep);
    if (!has_table(db)) return true;
    Stmt drop(db, "DELETE FROM analysis WHERE key = ?", kKeep);
    drop.bind(1, key);
    drop.run();
    return true;
  } catch (...) {
    return false;
  }
}

KeptParts::KeptParts(const std::string& path) {
  constexpr std::string_view kRead = "cannot read the analysis kept in";
  open_read_only(db_, path, kRead);
  sqlite3_busy_timeout(db_.get(), 2000);  // a report being kept by another process
  sqlite3_db_config(db_.get(), SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db_.get(), SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
  db_.exec("PRAGMA trusted_schema=OFF; PRAGMA query_only=ON; PRAGMA cache_size=-2048", kRead);
  if (has_table(db_))
    read_ = Stmt(db_, "SELECT data FROM analysis WHERE key = ? AND part = ?", kRead);
}

std::optional<std::string> KeptParts::part(std::string_view key, std::int64_t part) noexcept {
  try {
    if (!read_.get()) return std::nullopt;
    read_.reset();
    read_.bind(1, key);
    read_.bind(2, part);
    if (!read_.step()) return std::nullopt;
    const auto* p = static_cast<const char*>(sqlite3_column_blob(read_.get(), 0));
    const auto n = static_cast<std::size_t>(sqlite3_column_bytes(read_.get(), 0));
    std::string bytes(p ? p : "", p ? n : 0);
    read_.reset();
    return bytes;
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace ts::store
