// The reader against bad files: one clear Error naming the file, never a crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "profiler/store/reader.hpp"
#include "profiler/store/schema.hpp"
#include "profiler/store/writer.hpp"
#include "tests/profiler/store_fixture.hpp"
#include "tests/profiler/test_util.hpp"

namespace {

using ts::store::Reader;
using ts::test::contains;
using ts::test::good_trace;
using ts::test::open_error;
using ts::test::TempDir;

// Opens and queries everything; returns false when an Error was thrown on the way.
bool read_everything(const std::string& path) {
  try {
    Reader r(path);
    r.event_count();
    r.time_range();
    r.events(INT64_MIN, INT64_MAX);
    for (const auto& t : r.tracks()) r.events(0, INT64_MAX, t.id);
    for (const auto& s : r.steps()) r.step_events(s.step);
    r.meta();
    r.counter(3, 0, INT64_MAX);
    return true;
  } catch (const ts::store::Error& e) {
    EXPECT_TRUE(contains(e.what(), path)) << e.what();
    return false;
  }
}

TEST(ReaderErrors, MissingFile) {
  TempDir dir;
  const auto msg = open_error(dir.file("nope.db"));
  EXPECT_TRUE(contains(msg, "cannot open trace " + dir.file("nope.db"))) << msg;
  EXPECT_TRUE(contains(msg, "No such file")) << msg;
}

TEST(ReaderErrors, NotAnSqliteFile) {
  TempDir dir;
  const auto path = dir.file("notes.txt");
  ts::test::write_file(path, "step,loss\n1,0.5\n2,0.4\n");
  EXPECT_EQ(open_error(path), path + " is not a trainscope trace (not an SQLite database)");
}

TEST(ReaderErrors, EmptyFile) {
  TempDir dir;
  const auto path = dir.file("empty.db");
  ts::test::write_file(path, "");
  EXPECT_EQ(open_error(path), path + " is not a trainscope trace");
}

TEST(ReaderErrors, SqliteDatabaseThatIsNotATrace) {
  TempDir dir;
  const auto path = dir.file("other.db");
  ts::test::exec_rw(path, "CREATE TABLE t(x); INSERT INTO t VALUES (1);");
  EXPECT_EQ(open_error(path), path + " is not a trainscope trace");
}

TEST(ReaderErrors, NewerSchemaVersionIsRefusedByName) {
  TempDir dir;
  const auto path = good_trace(dir, 2);
  ts::test::exec_rw(path, "PRAGMA user_version = 7;");
  const auto msg = open_error(path);
  EXPECT_TRUE(contains(msg, path)) << msg;
  EXPECT_TRUE(contains(msg, "schema version 7")) << msg;
  EXPECT_TRUE(contains(msg, "version " + std::to_string(ts::store::kSchemaVersion))) << msg;
}

TEST(ReaderErrors, TraceWithATableMissing) {
  TempDir dir;
  const auto path = good_trace(dir, 2);
  ts::test::exec_rw(path, "DROP VIEW events; DROP TABLE event;");
  const auto msg = open_error(path);
  EXPECT_TRUE(contains(msg, path) && contains(msg, "event")) << msg;
}

TEST(ReaderErrors, HostileTablesReplacedByViewsAreNotFollowed) {
  TempDir dir;
  const auto path = good_trace(dir, 2);
  ts::test::exec_rw(path,
                    "DROP VIEW events; ALTER TABLE event RENAME TO event_real;"
                    "CREATE VIEW event AS SELECT * FROM event_real;");
  const auto msg = open_error(path);
  EXPECT_TRUE(contains(msg, path)) << msg;
}

TEST(ReaderErrors, OutOfRangeValuesAreMappedNotTrusted) {
  TempDir dir;
  const auto path = good_trace(dir, 2);
  ts::test::exec_rw(path,
                    "UPDATE label SET category = 999 WHERE id = 1;"
                    "UPDATE label SET name = 12345 WHERE id = 2;"
                    "UPDATE track SET kind = 77, name = 'x' WHERE id = 1;"
                    "INSERT INTO track VALUES (-5, 'neg', 0, NULL);"
                    "INSERT INTO event VALUES (5, 1, -10, 999999, 'text', x'00');");
  Reader r(path);
  for (const auto& e : r.events(0, INT64_MAX)) {
    EXPECT_LT(static_cast<int>(e.category), ts::trace::kCategoryCount);
    EXPECT_GE(e.dur_ns, 0);
  }
  EXPECT_EQ(r.label(1).category, ts::trace::Category::other);
  EXPECT_EQ(r.label(2).name, "?");
  EXPECT_EQ(r.label(424242).name, "?");
  EXPECT_EQ(r.tracks().size(), 3u);  // the negative id is skipped
}

// A trace cut short (a partial copy) is refused when opened, with a message that says so.
TEST(ReaderErrors, TruncatedTracesAreRefusedByName) {
  TempDir dir;
  const auto path = good_trace(dir);
  const std::string bytes = ts::test::read_file(path);
  ASSERT_GT(bytes.size(), 100000u);
  for (std::size_t cut :
       {std::size_t{10}, std::size_t{100}, std::size_t{4096}, std::size_t{65537}, bytes.size() / 3,
        bytes.size() / 2, bytes.size() - 1000, bytes.size() - 1}) {
    const auto t = dir.file("cut_" + std::to_string(cut) + ".db");
    ts::test::write_file(t, bytes.substr(0, cut));
    const auto msg = open_error(t);
    EXPECT_EQ(msg.rfind(t + " is truncated: it holds " + std::to_string(cut), 0), 0u) << msg;
    EXPECT_FALSE(read_everything(t));
  }
  const auto t = dir.file("cut_10.db");
  EXPECT_EQ(open_error(t), t + " is truncated: it holds 10 bytes, not even a whole SQLite header");
  const auto half = dir.file("cut_" + std::to_string(bytes.size() / 2) + ".db");
  EXPECT_EQ(open_error(half), half + " is truncated: it holds " + std::to_string(bytes.size() / 2) +
                                  " of its " + std::to_string(bytes.size()) + " bytes");
}

// Damage inside the file (not at its end) is found by SQLite: one error naming the file.
TEST(ReaderErrors, CorruptPagesAreReportedByName) {
  TempDir dir;
  const auto path = good_trace(dir);
  std::string bytes = ts::test::read_file(path);
  for (std::size_t i = 65536; i < bytes.size(); ++i) bytes[i] = '\x5a';  // every page but the first
  const auto t = dir.file("corrupt.db");
  ts::test::write_file(t, bytes);
  EXPECT_FALSE(read_everything(t));
  const auto msg = open_error(t);
  EXPECT_EQ(msg,
            "cannot read trace " + t + ": the file is corrupt (database disk image is malformed)");
}

TEST(ReaderErrors, CorruptedBytesNeverCrash) {
  TempDir dir;
  const auto path = good_trace(dir);
  const std::string bytes = ts::test::read_file(path);
  std::mt19937 rng(11);
  for (int round = 0; round < 60; ++round) {
    std::string bad = bytes;
    const int flips = 1 + round % 20;
    for (int i = 0; i < flips; ++i) {
      // Aim half the damage at the first pages, where the schema and the tree roots live.
      const std::size_t span =
          round % 2 == 0 ? std::min<std::size_t>(bad.size(), 200000) : bad.size();
      bad[rng() % span] = static_cast<char>(rng());
    }
    const auto t = dir.file("bad.db");
    ts::test::write_file(t, bad);
    read_everything(t);  // either works or throws Error; a crash fails the whole test binary
  }
  SUCCEED();
}

}  // namespace
