// The reader against hostile files: special files are never read, a schema that is not exactly
// the trace schema of the file's version is refused, and every statement has a work budget.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "profiler/store/file_check.hpp"
#include "profiler/store/file_header.hpp"
#include "profiler/store/placement.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/recover.hpp"
#include "profiler/store/schema.hpp"
#include "profiler/store/sqlite.hpp"
#include "profiler/store/writer.hpp"
#include "tests/profiler/store_fixture.hpp"
#include "tests/profiler/test_util.hpp"

namespace {

using ts::test::staged;

using ts::store::Reader;
using ts::test::TempDir;

using ts::test::contains;
using ts::test::good_trace;
using ts::test::open_error;

// A FIFO with no writer: opening it for reading would wait forever (the test's timeout).
TEST(HostileFiles, AFifoIsRefusedWithoutBeingOpened) {
  TempDir dir;
  const std::string fifo = dir.file("trace.db");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(open_error(fifo),
            fifo + " is not a regular file (a FIFO, device or socket is never read as a trace)");
  const auto h = ts::store::read_file_header(fifo);
  ASSERT_TRUE(h.has_value());
  EXPECT_FALSE(h->regular);
  EXPECT_EQ(ts::store::file_kind(fifo), ts::store::FileKind::special);
  EXPECT_THROW(ts::store::recover(fifo), ts::store::Error);
}

TEST(HostileFiles, AFifoBesideATraceIsRefusedByName) {
  TempDir dir;
  const std::string path = good_trace(dir);
  const std::string wal = path + "-wal";
  ASSERT_EQ(::mkfifo(wal.c_str(), 0600), 0);
  EXPECT_TRUE(contains(open_error(path), wal + " is not a regular file")) << open_error(path);
}

TEST(HostileFiles, DevicesAndDirectoriesAreRefusedByName) {
  EXPECT_TRUE(contains(open_error("/dev/zero"), "/dev/zero is not a regular file"));
  TempDir dir;
  EXPECT_EQ(open_error(dir.path()), dir.path() + " is a directory, not a trace file");
}

TEST(HostileFiles, NormalisedSqlIgnoresCommentsAndLayoutOnly) {
  using ts::store::normalise_sql;
  EXPECT_EQ(normalise_sql("CREATE TABLE t (\n  a   INTEGER, -- a note\n  b TEXT /* x */\n)"),
            "CREATE TABLE t(a INTEGER,b TEXT)");
  EXPECT_EQ(normalise_sql("CREATE TABLE t(a INTEGER,b TEXT)"),
            normalise_sql("CREATE  TABLE t ( a INTEGER , b TEXT )"));
  EXPECT_NE(normalise_sql("CREATE TABLE t(a INTEGER,b TEXT)"),
            normalise_sql("CREATE TABLE t(a INTEGER,b TEXT CHECK(length(b)>0))"));
  // Quoted text is kept as it is, comment markers and spaces included.
  EXPECT_EQ(normalise_sql("SELECT 'a  --  b', \"x  y\""), "SELECT'a  --  b',\"x  y\"");
  EXPECT_EQ(normalise_sql("SELECT 'it''s  --'"), "SELECT'it''s  --'");
}

TEST(HostileFiles, EverySupportedVersionsSchemaPassesTheCheck) {
  for (int v = 1; v <= ts::store::kSchemaVersion; ++v) {
    ts::store::Db db;
    db.open_memory("schema version " + std::to_string(v) + " in memory", "test");
    db.exec(ts::store::schema_sql_of_version(v).c_str(), "test");
    EXPECT_NO_THROW(ts::store::check_schema(db, v)) << v;
    if (v > 1) {
      EXPECT_THROW(ts::store::check_schema(db, v - 1), ts::store::Error) << v;
    }
  }
  EXPECT_THROW(ts::store::schema_sql_of_version(ts::store::kSchemaVersion + 1), ts::store::Error);
}

// Each alteration carries code SQLite would run on the reader's queries; none may be trusted.
TEST(HostileFiles, AlteredSchemasAreRefusedByName) {
  const struct {
    const char* what;
    const char* sql;
  } cases[] = {
      {"table string differs",
       "ALTER TABLE string ADD COLUMN g INTEGER GENERATED ALWAYS AS "
       "(length(hex(zeroblob(1000000)))) VIRTUAL"},
      {"an extra index bomb", "CREATE INDEX bomb ON event (length(hex(zeroblob(id % 99))))"},
      {"an extra trigger t", "CREATE TRIGGER t AFTER INSERT ON event BEGIN SELECT 1; END"},
      {"an extra view v", "CREATE VIEW v AS SELECT 1"},
      {"table event differs",
       "PRAGMA writable_schema=ON; UPDATE sqlite_schema SET sql = replace(sql, "
       "'id     INTEGER PRIMARY KEY,', 'id INTEGER PRIMARY KEY CHECK "
       "(length(hex(zeroblob(dur_ns % 99))) >= 0),') WHERE name = 'event'"},
      {"index event_long differs",
       "DROP INDEX event_long; CREATE INDEX event_long ON event (id) "
       "WHERE length(hex(zeroblob(dur_ns % 99))) >= 0"},
  };
  for (const auto& c : cases) {
    TempDir dir;
    const std::string path = good_trace(dir);
    ts::test::exec_rw(path, c.sql);
    const std::string msg = open_error(path);
    EXPECT_TRUE(contains(msg, path + " is not a trainscope trace: its schema was altered ("))
        << msg;
    EXPECT_TRUE(contains(msg, c.what)) << c.what << ": " << msg;
    EXPECT_THROW(ts::store::recover(path), ts::store::Error) << c.what;
  }
}

// ANALYZE adds SQLite's statistics tables, which hold no code: such a trace still opens.
TEST(HostileFiles, AnAnalysedTraceOpens) {
  TempDir dir;
  const std::string path = good_trace(dir);
  const auto events = Reader(path).event_count();
  ts::test::exec_rw(path, "ANALYZE");
  EXPECT_EQ(open_error(path), "");
  EXPECT_EQ(Reader(path).event_count(), events);
}

// What the reader's queries return from a trace: every event with its arguments, one track's
// window, the time range and a correlation lookup, as text to compare.
std::string everything_read(const std::string& path) {
  Reader r(path);
  std::string out;
  const auto put = [&](const ts::store::Event& e) {
    out += std::to_string(e.start_ns) + "," + std::to_string(e.track) + "," +
           std::to_string(e.dur_ns) + "," + std::to_string(e.label) + "," + std::to_string(e.step) +
           "," + std::to_string(e.bytes) + ";";
  };
  r.scan_with_args(
      std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(),
      [&](const ts::store::Event& e, const ts::store::EventArgs& a) {
        put(e);
        out += std::to_string(a.work_size) + "," + std::to_string(a.correlation) + "\n";
      });
  out += "window\n";
  for (const auto& e : r.events(1'050'000'000, 1'060'000'000, 2)) put(e);
  const auto range = r.time_range();
  out += "range " + std::to_string(range.start_ns) + " " + std::to_string(range.end_ns) + "\n";
  for (const auto& e : r.events_with_correlation(7, 0, 2'000'000'000)) put(e);
  return out;
}

TEST(HostileFiles, OlderVersionsOpenWithTheirOwnSchema) {
  TempDir dir;
  const std::string current = good_trace(dir);
  for (int v = 1; v < ts::store::kSchemaVersion; ++v) {
    char name[16];
    std::snprintf(name, sizeof name, "v%d.db", v);
    const std::string path = dir.file(name);
    ts::test::write_older_version(current, path, v);
    EXPECT_EQ(open_error(path), "") << v;
    EXPECT_EQ(Reader(path).event_count(), Reader(current).event_count());
    EXPECT_EQ(everything_read(path), everything_read(current)) << v;
    // A file that claims an older version but holds a newer table is altered, not older.
    if (v < 4) {
      ts::test::exec_rw(path, "CREATE TABLE overview (part INTEGER PRIMARY KEY, data BLOB)");
      EXPECT_TRUE(contains(open_error(path), "an extra table overview")) << open_error(path);
    }
  }
}

// The budget stops a statement that runs too long; the next statement starts a new count.
TEST(HostileFiles, TheWorkBudgetStopsOneStatementWithOneClearError) {
  ts::store::Db db;
  db.open_memory("budget.db", "cannot read trace");
  db.set_work_budget(1'000'000);
  const char* heavy =
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) "
      "SELECT count(*) FROM c";
  try {
    ts::store::Stmt st(db, heavy, "cannot read trace");
    st.step();
    ADD_FAILURE() << "the statement ran to its end";
  } catch (const ts::store::Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot read trace budget.db: one query needed more than 1000000 steps of work, "
              "more than any trace of its size needs (the file is damaged or hostile)");
  }
  const char* light =
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000) "
      "SELECT count(*) FROM c";
  for (int i = 0; i < 10; ++i) {  // ten statements, together over the budget, each within it
    ts::store::Stmt st(db, light, "cannot read trace");
    ASSERT_TRUE(st.step());
    EXPECT_EQ(st.col_int(0), 20000);
  }
  EXPECT_THROW(db.exec(heavy, "cannot read trace"), ts::store::Error);
  db.set_work_budget(0);
  ts::store::Stmt st(db, heavy, "cannot read trace");
  ASSERT_TRUE(st.step());
  EXPECT_EQ(st.col_int(0), 3000000);
}

TEST(HostileFiles, TheBudgetIsLinearInTheFileSize) {
  using ts::store::work_budget;
  EXPECT_EQ(work_budget(2'000'000) - work_budget(1'000'000),
            work_budget(1'000'000) - work_budget(0));
  EXPECT_GT(work_budget(1'000'000), work_budget(0));
  EXPECT_GT(work_budget(UINT64_MAX), work_budget(1'000'000));  // saturates, never wraps
}

// Free starts for n events on one key: each start is offered to claim() about once, however
// many events share the key (probing from the key for each event would offer n^2 / 2).
TEST(HostileFiles, PlacingManyEventsOnOneKeyIsLinear) {
  ts::store::FreeStarts starts;
  std::set<std::int64_t> taken{100, 103};  // written before, unknown to `starts`
  std::size_t offers = 0;
  const auto claim = [&](std::int64_t s) {
    ++offers;
    return taken.insert(s).second;
  };
  constexpr int kEvents = 20000;
  std::vector<std::int64_t> later, earlier;
  for (int i = 0; i < kEvents; ++i) later.push_back(*starts.place(7, 100, +1, claim));
  for (int i = 0; i < kEvents; ++i) earlier.push_back(*starts.place(7, 100, -1, claim));
  EXPECT_EQ(later[0], 101);
  EXPECT_EQ(later[1], 102);
  EXPECT_EQ(later[2], 104);  // 103 was taken
  EXPECT_EQ(later.back(), 100 + kEvents + 1);
  EXPECT_EQ(earlier[0], 99);
  EXPECT_EQ(earlier.back(), 100 - kEvents);
  EXPECT_EQ(std::set<std::int64_t>(later.begin(), later.end()).size(), std::size_t{kEvents});
  EXPECT_LE(offers, std::size_t{3 * kEvents});
  EXPECT_LE(starts.remembered(), std::size_t{3 * kEvents});
  // Another track has starts of its own.
  EXPECT_EQ(starts.place(8, 100, +1, [](std::int64_t) { return true; }), 100);
}

TEST(HostileFiles, PlacingStopsAtTheEndsOfTheTimeRange) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  ts::store::FreeStarts starts;
  std::set<std::int64_t> taken;
  const auto claim = [&](std::int64_t s) { return taken.insert(s).second; };
  EXPECT_EQ(starts.place(1, kMax - 1, +1, claim), kMax - 1);
  EXPECT_EQ(starts.place(1, kMax - 1, +1, claim), kMax);
  EXPECT_EQ(starts.place(1, kMax - 1, +1, claim), std::nullopt);
  EXPECT_EQ(starts.place(1, kMax, +1, claim), std::nullopt);
  EXPECT_EQ(starts.place(1, kMin, -1, claim), kMin);
  EXPECT_EQ(starts.place(1, kMin, -1, claim), std::nullopt);
}

// A staged block of 20000 events on one (start, track) and 5000 counter samples at one time:
// the reader indexes them all, each at a start of its own.
TEST(HostileFiles, ManyStagedEventsOnOneKeyAreAllIndexed) {
  TempDir dir;
  const std::string path = dir.file("same_start.db");
  ts::store::Writer w(path, staged());
  ts::test::write_dictionary(w);
  std::vector<ts::store::EventRow> rows(20000, ts::store::EventRow{5'000'000, 1'000'000, 1, 1});
  w.append(std::span<const ts::store::EventRow>(rows));
  std::vector<ts::store::CounterRow> samples(5000, ts::store::CounterRow{3, 5'000'000, 1.0});
  w.append(std::span<const ts::store::CounterRow>(samples));
  const std::vector<ts::store::CounterRow> nan(3,
                                               ts::store::CounterRow{3, 5'000'000, std::nan("")});
  w.append(std::span<const ts::store::CounterRow>(nan));  // never stored: skipped, not moved
  w.commit();
  Reader r(path);
  const auto events = r.events(0, std::numeric_limits<std::int64_t>::max());
  ASSERT_EQ(events.size(), rows.size());
  std::set<std::int64_t> starts;
  for (const auto& e : events) {
    starts.insert(e.start_ns);
    EXPECT_EQ(e.end_ns(), 6'000'000);  // moved events keep their end
  }
  EXPECT_EQ(starts.size(), rows.size());
  EXPECT_EQ(r.counter(3, 0, std::numeric_limits<std::int64_t>::max()).size(), samples.size());
}

// Rows no caller of the writer makes (fuzz_analysis_rows found each): a track beyond the 16 bits
// events.id keeps is dropped, not a 32 GiB table; a label id near 2^32 is a step label without a
// 512 MiB table or a wrapped size; a negative duration in a staged block is stored as 0 and the
// block still decodes.
TEST(HostileFiles, WriterTakesRowsBeyondWhatItsCallersMake) {
  for (const bool is_staged : {false, true}) {
    TempDir dir;
    const std::string path = dir.file("beyond.db");
    {
      ts::store::Writer w(path, is_staged ? staged() : ts::store::WriterOptions{});
      ts::test::write_dictionary(w);
      constexpr std::uint32_t kHugeLabel = 0xffffffffu;
      w.put_label(kHugeLabel, 3, ts::trace::Category::step);
      const std::vector<ts::store::EventRow> rows = {
          {2'000'000, 1'000'000, 1, kHugeLabel, 0},
          {2'100'000, 10, 0xffffffffu, 2},
          {2'200'000, 10, 65536, 2},
          {2'300'000, -5, 2, 2},
      };
      w.append(std::span<const ts::store::EventRow>(rows));
      w.finish();
    }
    Reader r(path);
    const auto events = r.events(0, std::numeric_limits<std::int64_t>::max());
    ASSERT_EQ(events.size(), 2u) << (is_staged ? "staged" : "plain");
    EXPECT_EQ(events[0].label, 0xffffffffu);
    EXPECT_EQ(events[1].track, 2u);
    EXPECT_EQ(events[1].dur_ns, 0);
    ASSERT_EQ(r.steps().size(), 1u);  // the label near 2^32 names a step
  }
}

// Times and durations at the ends of the 64-bit range: indexed and read without overflowing
// (the sanitizer build makes an overflow fatal).
TEST(HostileFiles, ExtremeTimesAreIndexedAndReadWithoutOverflow) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min() + 1;  // kMin is NULL
  // A trace's keys cover about 39 hours around its first event: each end of the range in a
  // trace of its own.
  for (const std::int64_t end : {kMax, kMin}) {
    TempDir dir;
    const std::string path = dir.file("extreme.db");
    ts::store::Writer w(path, staged());
    ts::test::write_dictionary(w);
    const std::vector<ts::store::EventRow> rows = {
        {end, kMax, 1, 3, 1}, {end, kMax, 1, 3, 1}, {end, 0, 1, 1, 1}, {end, kMax, 2, 3, 2},
        {end, kMax, 2, 3, 2}, {end, 0, 2, 1, 2},    {end, 5, 4, 2, 1}, {end, 5, 4, 2, 1}};
    w.append(std::span<const ts::store::EventRow>(rows));
    const std::vector<ts::store::CounterRow> samples = {{3, kMax, 1.0}, {3, kMax, 2.0}};
    w.append(std::span<const ts::store::CounterRow>(samples));
    w.commit();
    Reader r(path);
    EXPECT_GE(r.event_count(), 4) << end;
    for (const auto& e : r.events(kMin, kMax)) EXPECT_GE(e.end_ns(), e.start_ns);
    for (const auto& s : r.steps()) r.step_events(s.step);
    EXPECT_FALSE(r.step_events(1).empty()) << end;
    EXPECT_FALSE(r.step_events(2).empty()) << end;
    EXPECT_EQ(r.counter(3, kMin, kMax).size(), 0u);  // [t0, t1) never holds INT64_MAX
    const auto range = r.time_range();
    EXPECT_LE(range.start_ns, range.end_ns);
  }
}

// Starts more than about 39 hours from the trace's first event have no key: such events are
// dropped, counted, and the count is stored; the others are kept.
TEST(HostileFiles, EventsBeyondTheKeysRangeAreDroppedAndCounted) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kHour = 3'600'000'000'000;
  for (const bool is_staged : {false, true}) {
    TempDir dir;
    const std::string path = dir.file("far.db");
    {
      ts::store::Writer w(path, is_staged ? staged() : ts::store::WriterOptions{});
      ts::test::write_dictionary(w);
      const std::vector<ts::store::EventRow> rows = {{1'000, 10, 1, 1},
                                                     {1'000 + 38 * kHour, 10, 1, 1},
                                                     {1'000 - 38 * kHour, 10, 1, 1},
                                                     {1'000 + 40 * kHour, 10, 1, 1},
                                                     {kMax, 10, 2, 1},
                                                     {-41 * kHour, 10, 2, 1}};
      w.append(std::span<const ts::store::EventRow>(rows));
      w.finish();
      EXPECT_EQ(w.events_out_of_key_range(), 3u);
    }
    Reader r(path);
    const auto events = r.events(std::numeric_limits<std::int64_t>::min(), kMax);
    ASSERT_EQ(events.size(), 3u) << is_staged;
    EXPECT_EQ(events[0].start_ns, 1'000 - 38 * kHour);
    EXPECT_EQ(events[1].start_ns, 1'000);
    EXPECT_EQ(events[2].start_ns, 1'000 + 38 * kHour);
    EXPECT_EQ(r.meta("event.out_of_key_range"), "3");
    EXPECT_EQ(r.meta("event.key_origin_ns"), "1000");
  }
}

// Reverses the cells of the one-page (leaf) b-tree of WITHOUT ROWID table `table` in the file at
// `path`, and points its second cell at its first: SQLite then returns the rows in descending
// key order, with the first repeated and the second gone, despite ORDER BY (it trusts the b-tree
// for that order). The schema and the file's header stay as they were.
void scramble_leaf(const std::string& path, const std::string& table) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  const std::string sql =
      "SELECT rootpage, (SELECT page_size FROM pragma_page_size) "
      "FROM sqlite_schema WHERE name = '" +
      table + "'";
  ASSERT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  const std::int64_t root = sqlite3_column_int64(st, 0);
  const std::int64_t page_size = sqlite3_column_int64(st, 1);
  sqlite3_finalize(st);
  sqlite3_close(db);
  std::string bytes = ts::test::read_file(path);
  const std::size_t page = static_cast<std::size_t>((root - 1) * page_size);
  const std::size_t header = page + (root == 1 ? 100 : 0);
  ASSERT_EQ(static_cast<unsigned char>(bytes.at(header)), 0x0A) << table << ": one leaf page";
  const std::size_t cells = (static_cast<unsigned char>(bytes[header + 3]) << 8) |
                            static_cast<unsigned char>(bytes[header + 4]);
  ASSERT_GE(cells, 3u);
  std::vector<std::string> pointers;
  for (std::size_t i = 0; i < cells; ++i) pointers.push_back(bytes.substr(header + 8 + 2 * i, 2));
  std::reverse(pointers.begin(), pointers.end());
  pointers[1] = pointers[0];
  for (std::size_t i = 0; i < cells; ++i) bytes.replace(header + 8 + 2 * i, 2, pointers[i]);
  ts::test::write_file(path, bytes);
}

// Steps and counter samples come in time order, one per key, from a file whose b-trees return
// them backwards and with a row twice (what analysis and the viewer take as given).
TEST(HostileFiles, StepsAndCountersComeInOrderFromADamagedBtree) {
  TempDir dir;
  const std::string path = dir.file("backwards.db");
  {
    ts::store::Writer w(path);
    ts::test::write_dictionary(w);
    const auto rows = ts::test::step_rows(20);
    w.append(std::span<const ts::store::EventRow>(rows));
    std::vector<ts::store::CounterRow> samples;
    for (int i = 0; i < 20; ++i) samples.push_back({3, 1'000'000'000 + i * 1'000'000, 1.0 * i});
    w.append(std::span<const ts::store::CounterRow>(samples));
    w.finish();
  }
  scramble_leaf(path, "step_span");
  scramble_leaf(path, "counter_sample");
  Reader r(path);
  const std::vector<ts::store::Step> steps = r.steps();
  ASSERT_EQ(steps.size(), 19u) << "the repeated row once, the lost one not at all";
  for (std::size_t i = 1; i < steps.size(); ++i)
    EXPECT_LT(steps[i - 1].start_ns, steps[i].start_ns) << i;
  EXPECT_EQ(steps.front().step, 0);
  EXPECT_EQ(steps.back().step, 19);
  EXPECT_EQ(steps[17].step, 17) << "step 18 is the row the damage lost";
  for (const ts::store::Step& s : steps) EXPECT_EQ(r.step_events(s.step).size(), 11u) << s.step;
  const auto fill = r.counter(3, std::numeric_limits<std::int64_t>::min(),
                              std::numeric_limits<std::int64_t>::max());
  ASSERT_EQ(fill.size(), 19u);
  for (std::size_t i = 1; i < fill.size(); ++i) EXPECT_LT(fill[i - 1].ts_ns, fill[i].ts_ns) << i;
  EXPECT_EQ(fill.back().value, 19.0);
}

// Names beyond the cap are cut at a character boundary and counted; shorter ones are kept.
TEST(HostileFiles, LongNamesAreCutWhenRead) {
  TempDir dir;
  const std::string path = dir.file("long_names.db");
  std::string utf8;  // "x" then two-byte "é"s: the cap falls inside a character
  for (std::size_t i = 0; i < ts::store::kMaxNameBytes / 2 + 7; ++i) utf8 += "\xC3\xA9";
  {
    ts::store::Writer w(path);
    ts::test::write_dictionary(w);
    w.put_string(1, "x" + utf8);
    w.put_track(1, std::string(ts::store::kMaxNameBytes + 1, 't'), ts::trace::TrackKind::thread);
    auto rows = ts::test::step_rows(2);
    w.append(std::span<const ts::store::EventRow>(rows));
    w.finish();
  }
  Reader r(path);
  EXPECT_EQ(r.names_cut(), 2u);
  const std::string& name = r.label(1).name;
  EXPECT_LE(name.size(), ts::store::kMaxNameBytes + 3);
  EXPECT_GT(name.size(), ts::store::kMaxNameBytes - 4);
  EXPECT_TRUE(name.ends_with("\xC3\xA9\xE2\x80\xA6")) << name.substr(name.size() - 8);
  EXPECT_EQ(r.track(1)->name, std::string(ts::store::kMaxNameBytes, 't') + "\xE2\x80\xA6");
  EXPECT_EQ(r.label(2).name, "gemm");
}

}  // namespace
