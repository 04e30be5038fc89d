#include "profiler/store/file_check.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <mutex>
#include <tuple>
#include <vector>

#include "profiler/store/schema.hpp"

namespace ts::store {

namespace {

// Version 4 keyed events by (start_ns, track) in WITHOUT ROWID tables.
constexpr const char* kBackToVersion4 = R"sql(
DROP VIEW events;
DROP VIEW event_args;
DROP TABLE event_arg;
DROP TABLE event;
CREATE TABLE event (
  start_ns INTEGER NOT NULL,
  track    INTEGER NOT NULL REFERENCES track (id),
  dur_ns   INTEGER NOT NULL,
  label    INTEGER NOT NULL REFERENCES label (id),
  step     INTEGER,
  bytes    INTEGER,
  PRIMARY KEY (start_ns, track)
) WITHOUT ROWID;
CREATE INDEX event_long ON event (track, start_ns) WHERE dur_ns >= 134217728;
CREATE TABLE event_arg (
  start_ns    INTEGER NOT NULL,
  track       INTEGER NOT NULL,
  work_size   INTEGER,
  correlation INTEGER,
  PRIMARY KEY (start_ns, track)
) WITHOUT ROWID;
CREATE VIEW events (id, track, category, name, start_ns, dur_ns, step, bytes) AS
  SELECT ((e.start_ns - (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'clock.origin_ns'))
          << 16) | e.track,
         e.track, c.name, s.text, e.start_ns, e.dur_ns, e.step, e.bytes
  FROM event AS e
  JOIN label AS l ON l.id = e.label
  JOIN category AS c ON c.id = l.category
  JOIN string AS s ON s.id = l.name;
CREATE VIEW event_args (id, work_size, correlation) AS
  SELECT ((a.start_ns - (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'clock.origin_ns'))
          << 16) | a.track,
         a.work_size, a.correlation
  FROM event_arg AS a;
PRAGMA user_version = 4;
)sql";

// Version 3 had no stored overview, nor a kept analysis.
constexpr const char* kBackToVersion3 = R"sql(
DROP TABLE overview;
DROP TABLE analysis;
PRAGMA user_version = 3;
)sql";

// schema.sql's objects as version 2 had them: no process table, tracks without their process.
constexpr const char* kBackToVersion2 = R"sql(
DROP VIEW processes;
DROP VIEW tracks;
DROP TABLE track;
DROP TABLE process;
CREATE TABLE track (
  id     INTEGER PRIMARY KEY,
  name   TEXT NOT NULL,
  kind   INTEGER NOT NULL REFERENCES track_kind (id),
  os_tid INTEGER
);
CREATE VIEW tracks (id, name, kind) AS
  SELECT t.id, t.name, k.name FROM track AS t JOIN track_kind AS k ON k.id = t.kind;
PRAGMA user_version = 2;
)sql";

// Version 1 had no staged events either.
constexpr const char* kBackToVersion1 = R"sql(
DROP TABLE event_block;
PRAGMA user_version = 1;
)sql";

struct SchemaObject {
  std::string type, name, table, sql;
  bool operator<(const SchemaObject& o) const {
    return std::tie(type, name) < std::tie(o.type, o.name);
  }
  bool operator==(const SchemaObject& o) const = default;
};

std::vector<SchemaObject> schema_objects(const Db& db) {
  std::vector<SchemaObject> out;
  // SQLite's own statistics tables (a user ran ANALYZE) hold no code, only steer the query
  // planner, and every plan is bounded by the work budget: they are not an alteration.
  Stmt st(db,
          "SELECT type, name, tbl_name, sql FROM sqlite_schema "
          "WHERE name NOT IN ('sqlite_stat1', 'sqlite_stat4')",
          "cannot read trace");
  while (st.step())
    out.push_back({st.col_text(0), st.col_text(1), st.col_text(2), normalise_sql(st.col_text(3))});
  std::sort(out.begin(), out.end());
  return out;
}

// The objects of every supported version, built once from schema.sql in memory.
const std::vector<SchemaObject>& expected_objects(int version) {
  static std::array<std::vector<SchemaObject>, kSchemaVersion + 1> expected;
  static std::once_flag built;
  std::call_once(built, [] {
    for (int v = 1; v <= kSchemaVersion; ++v) {
      Db db;
      db.open_memory("schema.sql", "cannot build the trace schema");
      db.exec(schema_sql_of_version(v).c_str(), "cannot build the trace schema");
      expected[static_cast<std::size_t>(v)] = schema_objects(db);
    }
  });
  return expected[static_cast<std::size_t>(version)];
}

// The kept analysis's table (analysis_table.hpp) is created in a version 4 or 5 file when an
// analysis is first kept in it: a file may lack it, but one that has it has it as schema.sql
// defines it.
bool is_optional(const SchemaObject& o) {
  return o.table == "analysis";
}

bool separates_words(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}

}  // namespace

std::string normalise_sql(std::string_view sql) {
  std::string out;
  out.reserve(sql.size());
  bool space = false;  // white space or a comment since the last character kept
  for (std::size_t i = 0; i < sql.size();) {
    const char c = sql[i];
    if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      const std::size_t eol = sql.find('\n', i);
      i = eol == std::string_view::npos ? sql.size() : eol;
      space = true;
      continue;
    }
    if (c == '/' && i + 1 < sql.size() && sql[i + 1] == '*') {
      const std::size_t close = sql.find("*/", i + 2);
      i = close == std::string_view::npos ? sql.size() : close + 2;
      space = true;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      space = true;
      ++i;
      continue;
    }
    if (space && !out.empty() && separates_words(out.back()) && separates_words(c)) out += ' ';
    space = false;
    if (c == '\'' || c == '"' || c == '`' || c == '[') {
      // A quoted string or name, copied whole; a doubled quote inside it stands for one.
      const char close = c == '[' ? ']' : c;
      std::size_t j = i + 1;
      while (j < sql.size()) {
        if (sql[j] == close) {
          if (close != ']' && j + 1 < sql.size() && sql[j + 1] == close) {
            j += 2;
            continue;
          }
          ++j;
          break;
        }
        ++j;
      }
      out.append(sql.substr(i, j - i));
      i = j;
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

std::string schema_sql_of_version(int version) {
  if (version < 1 || version > kSchemaVersion)
    throw Error("no trace schema of version " + std::to_string(version));
  std::string sql(schema_sql());
  if (version <= 4) sql += kBackToVersion4;
  if (version <= 3) sql += kBackToVersion3;
  if (version <= 2) sql += kBackToVersion2;
  if (version <= 1) sql += kBackToVersion1;
  return sql;
}

void check_schema(const Db& db, int version) {
  const std::vector<SchemaObject>& want = expected_objects(version);
  const std::vector<SchemaObject> have = schema_objects(db);
  std::vector<std::string> changes;
  const auto named = [](const SchemaObject& o) { return o.type + " " + o.name; };
  auto w = want.begin();
  auto h = have.begin();
  while (w != want.end() || h != have.end()) {
    if (h == have.end() || (w != want.end() && *w < *h)) {
      if (!is_optional(*w)) changes.push_back(named(*w) + " is missing");
      ++w;
    } else if (w == want.end() || *h < *w) {
      changes.push_back("an extra " + named(*h++));
    } else {
      if (!(*w == *h)) changes.push_back(named(*h) + " differs");
      ++w;
      ++h;
    }
  }
  if (changes.empty()) return;
  std::string what = changes[0];
  if (changes.size() > 1) what += ", and " + std::to_string(changes.size() - 1) + " more changes";
  throw Error(db.path() + " is not a trainscope trace: its schema was altered (" + what + ")");
}

std::uint64_t work_budget(std::uint64_t bytes) {
  // A full scan of the event table costs a few steps per byte of the file; staged events
  // indexed in memory take about three times the bytes they took staged.
  constexpr std::uint64_t kBase = std::uint64_t{1} << 27;
  constexpr std::uint64_t kPerByte = 256;
  constexpr std::uint64_t kMax = std::uint64_t{1} << 62;
  return bytes >= (kMax - kBase) / kPerByte ? kMax : kBase + kPerByte * bytes;
}

// Defensive settings: the file may be hostile. The reader only touches tables.
void harden_for_reading(const Db& d) {
  sqlite3* db = d.get();
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 24);  // no giant strings or blobs
  d.exec("PRAGMA trusted_schema=OFF; PRAGMA cell_size_check=ON", "cannot read trace");
}

}  // namespace ts::store
