#include "tests/hostile/hostile_inputs.hpp"

#include <sqlite3.h>
#include <zlib.h>

#include <fstream>
#include <stdexcept>
#include <vector>

#include "tests/gzip_member.hpp"

namespace ts::hostile {

std::string kineto(const std::string& events, const std::string& top) {
  return "{\"schemaVersion\":1," + top + (top.empty() ? "" : ",") + "\"traceEvents\":[" + events +
         "]}";
}

std::string step_and_op(std::int64_t i, std::int64_t ts_us, std::int64_t step_us) {
  const std::string ts = std::to_string(ts_us);
  return "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#" + std::to_string(i) +
         "\",\"pid\":1,\"tid\":1,\"ts\":" + ts + ",\"dur\":" + std::to_string(step_us) +
         "},{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":" +
         std::to_string(ts_us + 1) + ",\"dur\":" + std::to_string(step_us / 2) + "}";
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

void write_gzip(const std::string& path, const std::string& text) {
  gzFile g = gzopen(path.c_str(), "wb1");
  if (g == nullptr) throw std::runtime_error("cannot write " + path);
  for (std::size_t at = 0; at < text.size(); at += 1u << 30)
    gzwrite(g, text.data() + at,
            static_cast<unsigned>(std::min<std::size_t>(text.size() - at, 1u << 30)));
  gzclose(g);
}

namespace {

// `text` deflated as one gzip member.
std::string gzip_member(const std::string& text) {
  return ts::test::gzip_member(text, 9);
}

}  // namespace

void write_gzip_bomb(const std::string& path, const std::string& prefix, char fill, int repeat,
                     const std::string& suffix) {
  // Concatenated members (which gzip readers inflate in turn): 1 MiB of `fill` deflated once.
  std::ofstream out(path, std::ios::binary);
  if (!prefix.empty()) out << gzip_member(prefix);
  const std::string mib = gzip_member(std::string(std::size_t{1} << 20, fill));
  for (int i = 0; i < repeat; ++i) out << mib;
  if (!suffix.empty()) out << gzip_member(suffix);
}

std::string read_gzip(const std::string& path) {
  gzFile g = gzopen(path.c_str(), "rb");
  if (g == nullptr) throw std::runtime_error("cannot read " + path);
  std::string out;
  char buf[65536];
  for (int n; (n = gzread(g, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  gzclose(g);
  return out;
}

void set_meta(const std::string& trace, const std::string& key, const std::string& value) {
  sqlite3* db = nullptr;
  if (sqlite3_open(trace.c_str(), &db) != SQLITE_OK)
    throw std::runtime_error("cannot open " + trace);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", -1, &st, nullptr);
  sqlite3_bind_text(st, 1, key.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 2, value.c_str(), -1, SQLITE_TRANSIENT);
  const int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  sqlite3_close(db);
  if (rc != SQLITE_DONE) throw std::runtime_error("cannot set meta in " + trace);
}

void exec_sql(const std::string& trace, const std::string& statements) {
  sqlite3* db = nullptr;
  char* error = nullptr;
  const bool ok = sqlite3_open(trace.c_str(), &db) == SQLITE_OK &&
                  sqlite3_exec(db, statements.c_str(), nullptr, nullptr, &error) == SQLITE_OK;
  const std::string why = error != nullptr ? error : sqlite3_errmsg(db);
  sqlite3_free(error);
  sqlite3_close(db);
  if (!ok) throw std::runtime_error("cannot edit " + trace + ": " + why);
}

}  // namespace ts::hostile
