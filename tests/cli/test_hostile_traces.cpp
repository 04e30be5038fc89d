// Hostile trace files for every command that reads one: a FIFO or a device given as the trace,
// a schema carrying code (a generated column, an expression index), a capture's staged events
// piling onto one key. Each command answers at once: one line on stderr and exit status 2 for a
// file it refuses, the usual output for one it can read. A command that hung would run into
// the test's time limit.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "profiler/store/reader.hpp"
#include "profiler/store/writer.hpp"
#include "run_command.hpp"
#include "tests/profiler/store_fixture.hpp"

namespace ts::test {
namespace {

void expect_refused(const CommandResult& r, const std::string& needle, const std::string& what) {
  EXPECT_EQ(r.status, 2) << what << "\n" << r.err;
  EXPECT_EQ(r.out, "") << what;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << "\n" << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << what << ": '" << needle << "' not in\n"
                                                   << r.err;
}

// Every command that reads a trace, with `path` as the trace (or as either side of a diff).
std::vector<std::pair<std::string, std::string>> readers_of(const std::string& path,
                                                            const TempDir& dir) {
  const std::string good = "traces/input_bound.db";
  return {
      {"report", "report " + path},
      {"report --json", "report --json " + path},
      {"check", "check " + path + " --max-input-pct 5"},
      {"diff A", "diff " + path + " " + good},
      {"diff B", "diff " + good + " " + path},
      {"export", "export " + path + " --chrome " + dir.file("out.json")},
      {"recover", "recover " + path},
  };
}

// The trace a capture killed after committing `rows` (staged, not yet indexed) leaves: the
// file and its write-ahead log, copied while the writer is still open.
std::string killed_capture(const TempDir& dir, const std::string& name,
                           const std::vector<store::EventRow>& rows) {
  const std::string live = dir.file("live_" + name);
  const std::string path = dir.file(name);
  store::WriterOptions staged;
  staged.staged = true;
  store::Writer w(live, staged);
  write_dictionary(w);
  w.append(std::span<const store::EventRow>(rows));
  w.commit();
  std::filesystem::copy_file(live, path);
  std::filesystem::copy_file(live + "-wal", path + "-wal");
  return path;
}

TEST(HostileTraces, AFifoIsNeverOpenedForReading) {
  TempDir dir;
  const std::string fifo = dir.file("trace.db");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const auto& [name, args] : readers_of(fifo, dir))
    expect_refused(run_trainscope(args), fifo + " is not a regular file", name);
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.json")));
}

TEST(HostileTraces, ADeviceIsNeverReadAsATrace) {
  TempDir dir;
  for (const char* device : {"/dev/zero", "/dev/null"})
    expect_refused(run_trainscope(std::string("report ") + device),
                   std::string(device) + " is not a regular file", device);
}

// A copy of a sample trace (about 100 KB) whose string.text is a generated column that SQLite
// computes for every string read, from innocuous built-in functions that trusted_schema=OFF
// allows: megabytes of work per row, however small the file.
TEST(HostileTraces, AGeneratedColumnIsRefusedBeforeAnyQuery) {
  TempDir dir;
  const std::string path = dir.file("generated.db");
  std::filesystem::copy_file("traces/tuned.db", path);
  exec_rw(path,
          "PRAGMA writable_schema=ON; UPDATE sqlite_schema SET sql = 'CREATE TABLE string (id "
          "INTEGER PRIMARY KEY, raw TEXT NOT NULL, text TEXT GENERATED ALWAYS AS (raw || "
          "substr(replace(hex(zeroblob(4000000)), ''0'', ''1''), 1, 0)) VIRTUAL)' "
          "WHERE name = 'string'");
  ASSERT_EQ(sql(path, "SELECT count(*) FROM pragma_table_xinfo('string')").rows.at(0).at(0), "3");
  ASSERT_FALSE(sql(path, "SELECT text FROM string LIMIT 1").rows.empty());
  for (const auto& [name, args] : readers_of(path, dir))
    expect_refused(run_trainscope(args),
                   path +
                       " is not a trainscope trace: its schema was altered (table string "
                       "differs)",
                   name);
}

// A killed capture's staged block, with an expression index the reader's in-memory indexing
// (and recover's) would evaluate for every event.
TEST(HostileTraces, AnIndexOnAStagedTraceIsRefused) {
  TempDir dir;
  const std::string path = killed_capture(dir, "staged.db", step_rows(5));
  exec_rw(path, "CREATE INDEX bomb ON event (length(replace(hex(zeroblob(4000000)), '0', '00')))");
  ASSERT_EQ(sql(path, "SELECT count(*) FROM sqlite_schema WHERE name = 'bomb'").rows.at(0).at(0),
            "1");
  for (const auto& [name, args] : readers_of(path, dir))
    expect_refused(run_trainscope(args), "its schema was altered (an extra index bomb)", name);
}

// 20000 staged events on one (start, track): indexed in a fraction of a second, each moved to
// a start of its own.
TEST(HostileTraces, ManyStagedEventsOnOneKeyAreRecovered) {
  TempDir dir;
  const std::vector<store::EventRow> rows(20000, store::EventRow{5'000'000, 1'000'000, 1, 1});
  const std::string path = killed_capture(dir, "same_start.db", rows);
  ASSERT_EQ(sql(path, "SELECT count(*) FROM event").rows.at(0).at(0), "0");
  const CommandResult recovered = run_trainscope("recover " + path);
  EXPECT_EQ(recovered.status, 0) << recovered.err;
  EXPECT_EQ(sql(path, "SELECT count(*), count(DISTINCT start_ns) FROM events").rows.at(0),
            (std::vector<std::string>{"20000", "20000"}));
  const CommandResult r = run_trainscope("export " + path + " --chrome " + dir.file("out.json"));
  EXPECT_EQ(r.status, 0) << r.err;
}

}  // namespace
}  // namespace ts::test
