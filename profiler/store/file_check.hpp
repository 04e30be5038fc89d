// What a reader checks before it trusts a trace file with its queries. A hostile file is an
// SQLite database whose schema carries code: a generated column, a CHECK constraint, an
// expression or partial index, a default that SQLite evaluates on every row read or written.
// SQLite's defensive settings (trusted_schema=OFF, SQLITE_DBCONFIG_DEFENSIVE) stop functions
// with side effects, not expensive built-in ones, so the schema must be exactly the one
// schema.sql creates for the file's version. A work budget per statement, scaled to the file's
// size, bounds whatever the schema check cannot see (a damaged b-tree, a query plan gone wrong).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "profiler/store/sqlite.hpp"

namespace ts::store {

// The SQL text with comments removed and white space reduced to what separates two words:
// two texts that differ only in comments and layout normalise to the same string.
std::string normalise_sql(std::string_view sql);

// The script that creates an empty trace of schema `version` (1 to kSchemaVersion): schema.sql,
// taken back to the older version's tables and views. Throws Error for other versions.
std::string schema_sql_of_version(int version);

// Throws Error("<path> is not a trainscope trace: its schema was altered (<what>)") unless the
// objects of db's sqlite_schema (type, name, table, normalised SQL) are exactly those that
// schema_sql_of_version(version) creates.
void check_schema(const Db& db, int version);

// Defensive settings for a connection reading a file that may be hostile: no triggers, views,
// extensions or untrusted schema functions, cell checks, no giant strings or blobs.
void harden_for_reading(const Db& db);

// SQLite virtual-machine steps one statement may take on a file (and write-ahead log) of
// `bytes` bytes: far more than any query of a trace this size needs, linear in its size.
std::uint64_t work_budget(std::uint64_t bytes);

}  // namespace ts::store
