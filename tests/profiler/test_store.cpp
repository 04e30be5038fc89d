// The SQLite store: writer -> file -> reader and the public views.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <set>

#include "profiler/store/file_header.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/schema.hpp"
#include "profiler/store/writer.hpp"
#include "tests/profiler/store_fixture.hpp"
#include "tests/profiler/test_util.hpp"

namespace {

using ts::store::EventRow;
using ts::store::kNull;
using ts::store::Reader;
using ts::store::Writer;
using ts::store::WriterOptions;
using ts::test::sql;
using ts::test::TempDir;
namespace tt = ts::trace;

std::string make_trace(const TempDir& dir, int steps) {
  const std::string path = dir.file("t.db");
  Writer w(path);
  ts::test::write_dictionary(w);
  auto rows = ts::test::step_rows(steps);
  w.append(std::span<EventRow>(rows));
  std::vector<ts::store::CounterRow> counters;
  for (int i = 0; i < 10; ++i) counters.push_back({3, 1'000'000'000 + i * 100'000, i * 0.5});
  w.append(std::span<const ts::store::CounterRow>(counters));
  w.put_meta("engine.model", "mlp");
  w.finish();
  return path;
}

TEST(Store, SchemaIsEmbeddedAndVersioned) {
  const auto sql_text = ts::store::schema_sql();
  EXPECT_NE(sql_text.find("CREATE TABLE event"), std::string_view::npos);
  EXPECT_NE(sql_text.find("PRAGMA user_version = 5;"), std::string_view::npos);
  EXPECT_EQ(ts::store::kSchemaVersion, 5);
}

TEST(Store, CategoryTableMatchesTheTaxonomy) {
  TempDir dir;
  const auto path = make_trace(dir, 1);
  const auto r = sql(path, "SELECT id, name FROM category ORDER BY id");
  ASSERT_EQ(r.rows.size(), static_cast<std::size_t>(tt::kCategoryCount));
  for (int i = 0; i < tt::kCategoryCount; ++i) {
    EXPECT_EQ(r.rows[i][0], std::to_string(i));
    EXPECT_EQ(r.rows[i][1], tt::category_name(static_cast<tt::Category>(i)));
  }
  const auto k = sql(path, "SELECT name FROM track_kind ORDER BY id");
  ASSERT_EQ(k.rows.size(), static_cast<std::size_t>(tt::kTrackKindCount));
  for (int i = 0; i < tt::kTrackKindCount; ++i)
    EXPECT_EQ(k.rows[i][0], tt::track_kind_name(static_cast<tt::TrackKind>(i)));
}

TEST(Store, FinishedTraceIsOneSelfContainedFile) {
  TempDir dir;
  const auto path = make_trace(dir, 3);
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
  EXPECT_EQ(sql(path, "PRAGMA journal_mode").rows.at(0).at(0), "delete");
  EXPECT_EQ(sql(path, "PRAGMA application_id").rows.at(0).at(0),
            std::to_string(ts::store::kApplicationId));
}

TEST(Store, ViewsHaveExactlyThePublicColumns) {
  TempDir dir;
  const auto path = make_trace(dir, 2);
  using V = std::vector<std::string>;
  EXPECT_EQ(sql(path, "SELECT * FROM events LIMIT 0").columns,
            (V{"id", "track", "category", "name", "start_ns", "dur_ns", "step", "bytes"}));
  EXPECT_EQ(sql(path, "SELECT * FROM tracks LIMIT 0").columns,
            (V{"id", "name", "kind", "process"}));
  EXPECT_EQ(sql(path, "SELECT * FROM processes LIMIT 0").columns,
            (V{"id", "name", "rank", "pid", "host"}));
  EXPECT_EQ(sql(path, "SELECT * FROM steps LIMIT 0").columns, (V{"step", "start_ns", "dur_ns"}));
}

TEST(Store, ViewsReturnWhatWasWritten) {
  TempDir dir;
  const auto path = make_trace(dir, 4);
  EXPECT_EQ(sql(path, "SELECT count(*), count(DISTINCT id) FROM events").rows.at(0),
            (std::vector<std::string>{"44", "44"}));
  const auto k = sql(path,
                     "SELECT category, name, count(*), sum(bytes) FROM events "
                     "GROUP BY category, name ORDER BY category");
  ASSERT_EQ(k.rows.size(), 3u);
  EXPECT_EQ(k.rows[0], (std::vector<std::string>{"host_compute", "fwd", "20", "20480"}));
  EXPECT_EQ(k.rows[1], (std::vector<std::string>{"kernel", "gemm", "20", "NULL"}));
  EXPECT_EQ(k.rows[2], (std::vector<std::string>{"step", "step", "4", "NULL"}));
  const auto s = sql(path, "SELECT step, start_ns, dur_ns FROM steps ORDER BY step");
  ASSERT_EQ(s.rows.size(), 4u);
  EXPECT_EQ(s.rows[2], (std::vector<std::string>{"2", "1002000000", "1000000"}));
  const auto t = sql(path, "SELECT id, name, kind FROM tracks ORDER BY id");
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[1], (std::vector<std::string>{"2", "gpu0", "device_queue"}));
  // id encodes (start, track): ((start_ns - origin) << 16) | track.
  EXPECT_EQ(sql(path, "SELECT id FROM events WHERE start_ns = 1000000000").rows.at(0).at(0),
            std::to_string(1));
  EXPECT_EQ(
      sql(path, "SELECT work_size, correlation FROM event_args ORDER BY id LIMIT 1").rows.at(0),
      (std::vector<std::string>{"64", "0"}));
}

TEST(Store, ReaderRangeQueriesByTrackAndTime) {
  TempDir dir;
  const auto path = make_trace(dir, 10);
  Reader r(path);
  EXPECT_EQ(r.schema_version(), ts::store::kSchemaVersion);
  EXPECT_EQ(r.event_count(), 110);
  EXPECT_EQ(r.event_count(50), 50);  // counted up to a threshold
  EXPECT_EQ(r.event_count(500), 110);
  EXPECT_TRUE(r.has_events());
  const auto range = r.time_range();
  EXPECT_EQ(range.start_ns, 1'000'000'000);
  EXPECT_EQ(range.end_ns, 1'010'000'000);

  // Step 3 spans [1.003 s, 1.004 s): its own step event, 5 zones and 5 kernels.
  const std::int64_t s3 = 1'003'000'000;
  auto all = r.events(s3, s3 + 1'000'000);
  EXPECT_EQ(all.size(), 11u + 1u);  // plus step 2's event, which ends exactly at s3
  for (std::size_t i = 1; i < all.size(); ++i) EXPECT_LE(all[i - 1].start_ns, all[i].start_ns);
  auto gpu = r.events(s3, s3 + 1'000'000, 2);
  ASSERT_EQ(gpu.size(), 5u);
  for (const auto& e : gpu) {
    EXPECT_EQ(e.track, 2u);
    EXPECT_EQ(e.category, tt::Category::kernel);
    EXPECT_EQ(r.name(e), "gemm");
    EXPECT_EQ(e.step, 3);
    EXPECT_EQ(r.args(e).work_size, 64);
    EXPECT_EQ(r.args(e).correlation, 3);
  }
  // A window inside one zone finds the zone that overlaps it.
  auto inside = r.events(s3 + 50'000, s3 + 60'000, 1);
  ASSERT_EQ(inside.size(), 2u);  // the step and the first fwd zone
  EXPECT_EQ(inside[1].start_ns, s3 + 10'000);
  EXPECT_EQ(inside[1].bytes, 1024);
  EXPECT_EQ(r.label(inside[1].label).file, "model.cpp");
  EXPECT_EQ(r.label(inside[1].label).line, 12);
}

TEST(Store, ProcessesGroupTracksAndReadBack) {
  TempDir dir;
  const std::string path = dir.file("ranks.db");
  {
    Writer w(path);
    w.put_process(1, "rank 0 (node-a pid 11)", 0, 11, "node-a");
    w.put_process(2, "rank 1", 1);
    w.put_track(1, "main", tt::TrackKind::thread, 11, 1);
    w.put_track(2, "main", tt::TrackKind::thread, 12, 2);
    w.put_track(3, "GPU 0 stream 7", tt::TrackKind::device_queue, kNull, 2);
    w.put_track(4, "unowned", tt::TrackKind::thread);
    w.finish();
  }
  Reader r(path);
  ASSERT_EQ(r.processes().size(), 2u);
  EXPECT_EQ(r.processes()[0].name, "rank 0 (node-a pid 11)");
  EXPECT_EQ(r.processes()[0].rank, 0);
  EXPECT_EQ(r.processes()[0].pid, 11);
  EXPECT_EQ(r.processes()[0].host, "node-a");
  EXPECT_EQ(r.processes()[1].rank, 1);
  EXPECT_EQ(r.processes()[1].pid, kNull);
  EXPECT_EQ(r.processes()[1].host, "");
  ASSERT_NE(r.process(2), nullptr);
  EXPECT_EQ(r.process(2)->name, "rank 1");
  EXPECT_EQ(r.process(3), nullptr);
  ASSERT_NE(r.track(3), nullptr);
  EXPECT_EQ(r.track(3)->process, 2);
  EXPECT_EQ(r.track(1)->process, 1);
  EXPECT_EQ(r.track(4)->process, kNull);
  EXPECT_EQ(r.track(99), nullptr);
  EXPECT_EQ(sql(path, "SELECT process FROM tracks WHERE id = 3").rows.at(0).at(0), "2");
  EXPECT_EQ(sql(path, "SELECT rank FROM processes WHERE id = 1").rows.at(0).at(0), "0");
}

// A file of schema version 2 (no process table, four track columns) still opens: every track
// belongs to its one process.
TEST(Store, ReadsVersion2FilesWithoutProcesses) {
  TempDir dir;
  const auto path = dir.file("v2.db");
  ts::test::write_older_version(make_trace(dir, 2), path, 2);
  EXPECT_EQ(sql(path, "SELECT count(*) FROM sqlite_schema WHERE name = 'process'").rows.at(0).at(0),
            "0");
  Reader r(path);
  EXPECT_EQ(r.schema_version(), 2);
  ASSERT_EQ(r.tracks().size(), 3u);
  EXPECT_EQ(r.tracks()[0].process, kNull);
  EXPECT_TRUE(r.processes().empty());
  EXPECT_EQ(r.event_count(), 22);
}

TEST(Store, ReaderByStepTracksCountersAndMeta) {
  TempDir dir;
  const auto path = make_trace(dir, 10);
  Reader r(path);
  const auto steps = r.steps();
  ASSERT_EQ(steps.size(), 10u);
  EXPECT_EQ(steps[4].step, 4);
  EXPECT_EQ(steps[4].start_ns, 1'004'000'000);
  EXPECT_EQ(steps[4].dur_ns, 1'000'000);
  const auto in_step = r.step_events(7);
  EXPECT_EQ(in_step.size(), 11u);
  for (const auto& e : in_step) EXPECT_EQ(e.step, 7);

  ASSERT_EQ(r.tracks().size(), 3u);
  EXPECT_EQ(r.tracks()[0].name, "main");
  EXPECT_EQ(r.tracks()[0].os_tid, 4242);
  EXPECT_EQ(r.tracks()[2].kind, tt::TrackKind::counter);

  const auto c = r.counter(3, 1'000'200'000, 1'000'500'000);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_DOUBLE_EQ(c[1].value, 1.5);
  EXPECT_EQ(r.meta("engine.model"), "mlp");
  EXPECT_EQ(r.meta("schema_version"), std::to_string(ts::store::kSchemaVersion));
  EXPECT_FALSE(r.meta("no such key").has_value());
  EXPECT_GE(r.meta().size(), 3u);
}

TEST(Store, LongEventsAreFoundFromAnyWindowInsideThem) {
  TempDir dir;
  const std::string path = dir.file("long.db");
  {
    Writer w(path);
    ts::test::write_dictionary(w);
    std::vector<EventRow> rows;
    rows.push_back({1'000'000'000, 600'000'000'000, 1, 1});  // a 10-minute zone
    for (std::int64_t i = 0; i < 1000; ++i)
      rows.push_back({2'000'000'000 + i * 1'000'000, 10'000, 1, 1});
    w.append(std::span<EventRow>(rows));
    w.finish();
  }
  Reader r(path);
  const auto e = r.events(300'000'000'000, 300'000'001'000, 1);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].dur_ns, 600'000'000'000);
  EXPECT_EQ(r.time_range().end_ns, 601'000'000'000);
  EXPECT_EQ(r.events(2'000'000'000, 2'000'500'000).size(), 2u);
}

TEST(Store, CollidingStartsMoveAndLoseNothing) {
  TempDir dir;
  const std::string path = dir.file("c.db");
  Writer w(path);
  ts::test::write_dictionary(w);
  std::vector<EventRow> rows(70, EventRow{5'000, 100, 1, 1});  // 70 identical events
  rows.push_back({5'000, 10, 2, 2});                           // other track: no collision
  w.append(std::span<const EventRow>(rows));
  EXPECT_EQ(w.events_moved(), 69u);
  w.finish();
  Reader r(path);
  EXPECT_EQ(r.event_count(), 71);
  std::set<std::int64_t> starts;
  for (const auto& e : r.events(0, 10'000, 1)) {
    starts.insert(e.start_ns);
    EXPECT_EQ(e.end_ns(), 5'100);  // moved later, end kept
  }
  EXPECT_EQ(starts.size(), 70u);
  EXPECT_EQ(*starts.begin(), 5'000);
}

// A zone and its first child start on the same clock tick: whichever is written first, the
// enclosing zone ends up starting first and the child stays inside it.
TEST(Store, SameTickNestingSurvivesEitherArrivalOrder) {
  TempDir dir;
  for (bool child_first : {true, false}) {
    const std::string path = dir.file(child_first ? "a.db" : "b.db");
    Writer w(path);
    ts::test::write_dictionary(w);
    const EventRow parent{7'000, 500, 1, 1}, child{7'000, 20, 1, 2};
    std::vector<EventRow> first{child_first ? child : parent}, second{child_first ? parent : child};
    w.append(std::span<const EventRow>(first));
    w.append(std::span<const EventRow>(second));
    w.finish();
    Reader r(path);
    const auto e = r.events(0, 10'000, 1);
    ASSERT_EQ(e.size(), 2u);
    EXPECT_EQ(r.name(e[0]), "fwd") << child_first;
    EXPECT_LT(e[0].start_ns, e[1].start_ns);
    EXPECT_LE(e[1].end_ns(), e[0].end_ns());
    EXPECT_EQ(e[0].end_ns(), 7'500);
    EXPECT_EQ(e[1].end_ns(), 7'020);
  }
}

// Zones nested in one another that all start on the same clock tick, given to the writer as
// a thread records them (when each ends: the innermost first) and split over appends in every
// possible way, as the collector's periodic drains split them. Durations may be equal (the
// zones also end on the same tick): the later-recorded one still encloses the earlier. Stored,
// the outermost starts first, each zone starts strictly after and ends no later than the one
// enclosing it, and every end is kept.
TEST(Store, SameTickNestedChainsKeepTheirNestingWhateverTheBatching) {
  TempDir dir;
  const std::vector<std::vector<std::int64_t>> chains = {
      {20, 20},           {10, 20},        {20, 20, 20},     {10, 20, 20},
      {20, 20, 500},      {10, 20, 500},   {20, 20, 20, 20}, {5, 20, 20, 500},
      {20, 20, 500, 500}, {5, 10, 15, 20}, {0, 0, 20, 20},
  };
  constexpr std::int64_t kStart = 9'000;
  int file = 0;
  for (const auto& durs : chains) {  // durations in record order: innermost first
    const std::size_t n = durs.size();
    const unsigned splits = 1u << (n - 1);  // bit k of a split: an append after row k
    const std::string path = dir.file(std::to_string(file++) + ".db");
    {
      Writer w(path);
      ts::test::write_dictionary(w);
      for (std::uint32_t k = 0; k < n; ++k) {
        w.put_string(10 + k, std::to_string(k) + " deep");
        w.put_label(10 + k, 10 + k, tt::Category::host_compute);
      }
      for (unsigned split = 0; split < splits; ++split) {  // one track per way of splitting
        const std::uint32_t track = 10 + split;
        std::vector<EventRow> pending;
        pending.push_back({kStart - 500, 400, track, 1});  // an earlier sibling
        for (std::uint32_t k = 0; k < n; ++k) {
          pending.push_back({kStart, durs[k], track, 10 + k});
          if (k + 1 == n || (split >> k & 1u) != 0) {
            w.append(std::span<const EventRow>(pending));
            pending.clear();
          }
        }
      }
      w.finish();
    }
    Reader r(path);
    for (unsigned split = 0; split < splits; ++split) {
      const std::string what =
          "chain " + ::testing::PrintToString(durs) + " split " + std::to_string(split);
      const auto e = r.events(kStart - 50, kStart + 1'000, 10 + split);
      ASSERT_EQ(e.size(), n) << what;
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t k = static_cast<std::uint32_t>(n - 1 - i);  // outermost first
        EXPECT_EQ(e[i].label, 10 + k) << what << ", position " << i;
        EXPECT_EQ(e[i].end_ns(), kStart + durs[k]) << what << ", position " << i;
        EXPECT_LE(std::abs(e[i].start_ns - kStart), static_cast<std::int64_t>(n)) << what;
        if (i > 0) {
          EXPECT_LT(e[i - 1].start_ns, e[i].start_ns) << what << ", position " << i;
          EXPECT_LE(e[i].end_ns(), e[i - 1].end_ns()) << what << ", position " << i;
        }
      }
    }
  }
}

// Rows given out of order are sorted; rows with equal start and duration keep the given order.
TEST(Store, UnsortedRowsAreTakenInKeyOrder) {
  TempDir dir;
  const std::string path = dir.file("u.db");
  {
    Writer w(path);
    ts::test::write_dictionary(w);
    const std::vector<EventRow> rows{
        {3'000, 10, 1, 1}, {1'000, 5, 1, 1},   {2'000, 50, 1, 2},
        {2'000, 50, 1, 1}, {2'000, 500, 1, 3}, {1'500, 5, 2, 2},
    };
    w.append(std::span<const EventRow>(rows));
    EXPECT_EQ(w.events_written(), 6u);
    EXPECT_EQ(w.events_moved(), 2u);
    w.finish();
  }
  Reader r(path);
  const auto e = r.events(0, 10'000, 1);
  ASSERT_EQ(e.size(), 5u);
  EXPECT_EQ(e[0].start_ns, 1'000);
  EXPECT_EQ(e[1].label, 3u);  // the longest of the three at 2 us keeps its start
  EXPECT_EQ(e[1].start_ns, 2'000);
  EXPECT_EQ(e[2].label, 1u);  // equal durations: the one given later encloses
  EXPECT_EQ(e[3].label, 2u);
  EXPECT_EQ(e[2].start_ns, 2'001);
  EXPECT_EQ(e[3].start_ns, 2'002);
  EXPECT_EQ(e[3].end_ns(), 2'050);
  EXPECT_EQ(e[4].start_ns, 3'000);
}

// The documented way to list a thread's zones, parents before children, is ORDER BY start_ns.
TEST(Store, EventsViewOrderedByStartListsParentsBeforeChildren) {
  TempDir dir;
  const std::string path = dir.file("v.db");
  {
    Writer w(path);
    ts::test::write_dictionary(w);
    // Recorded as a thread records them: child (fwd, 20 ns), then its parent (step, 20 ns, the
    // same tick), in two appends; then a gemm zone and its parent on another tick.
    const std::vector<EventRow> a{{4'000, 20, 1, 1}}, b{{4'000, 20, 1, 3, 0}},
        c{{5'000, 10, 1, 2}, {5'000, 30, 1, 1}};
    w.append(std::span<const EventRow>(a));
    w.append(std::span<const EventRow>(b));
    w.append(std::span<const EventRow>(c));
    w.finish();
  }
  const auto q = sql(path,
                     "SELECT name, start_ns, dur_ns FROM events WHERE track = 1 "
                     "ORDER BY start_ns");
  ASSERT_EQ(q.rows.size(), 4u);
  using V = std::vector<std::string>;
  EXPECT_EQ(q.rows[0], (V{"step", "3999", "21"}));
  EXPECT_EQ(q.rows[1], (V{"fwd", "4000", "20"}));
  EXPECT_EQ(q.rows[2], (V{"fwd", "5000", "30"}));
  EXPECT_EQ(q.rows[3], (V{"gemm", "5001", "9"}));
  EXPECT_EQ(sql(path, "SELECT start_ns, dur_ns FROM steps").rows.at(0), (V{"3999", "21"}));
}

TEST(Store, ReplacesAnOldTraceButNeverAnotherFile) {
  TempDir dir;
  const auto path = make_trace(dir, 2);
  EXPECT_NO_THROW(make_trace(dir, 1));
  EXPECT_EQ(Reader(path).event_count(), 11);

  const std::string notes = dir.file("notes.txt");
  ts::test::write_file(notes, "precious");
  try {
    Writer w(notes);
    FAIL() << "replaced a file that is not a trace";
  } catch (const ts::store::Error& e) {
    EXPECT_NE(std::string(e.what()).find(notes), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not a trainscope trace"), std::string::npos);
  }
  EXPECT_EQ(ts::test::read_file(notes), "precious");
}

// A second writer of a path a writer still holds (a second `train --trace` into the file a running
// capture writes) is refused with one sentence, and the running one's file is left as it is;
// once the first has finished, the path can be written again.
TEST(Store, ASecondWriterOfAFileBeingWrittenIsRefused) {
  TempDir dir;
  const std::string path = dir.file("busy.db");
  WriterOptions staged;
  staged.staged = true;
  Writer first(path, staged);
  first.put_string(1, "step");
  first.put_label(1, 1, ts::trace::Category::step);
  first.put_track(1, "main", ts::trace::TrackKind::thread);
  const EventRow step{1000, 500, 1, 1, 0};
  first.append(std::span<const EventRow>(&step, 1));
  first.commit();
  try {
    Writer second(path);
    FAIL() << "a second writer replaced a file being written";
  } catch (const ts::store::Error& e) {
    EXPECT_NE(std::string(e.what()).find(path + " is being written by another capture"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(std::filesystem::exists(path + "-wal")) << "the running capture's log was kept";
  first.append(std::span<const EventRow>(&step, 1));  // the first goes on writing
  first.finish();
  EXPECT_EQ(Reader(path).event_count(), 2);
  EXPECT_NO_THROW(Writer{path}.finish());
  EXPECT_EQ(Reader(path).event_count(), 0);
  EXPECT_FALSE(Reader(path).has_events());
}

// A trace that cannot be created says why its folder refused it, not SQLite's read-only retry's
// "No such file or directory".
TEST(Store, AFolderThatCannotTakeTheTraceIsNamed) {
  TempDir dir;
  const std::string missing = dir.file("no/such/folder/run.db");
  try {
    Writer w(missing);
    FAIL() << "created a trace in a missing folder";
  } catch (const ts::store::Error& e) {
    EXPECT_NE(std::string(e.what()).find("the folder " + dir.file("no/such/folder") +
                                         " cannot take a new file (No such file or directory)"),
              std::string::npos)
        << e.what();
  }
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into a read-only folder";
  const std::string locked = dir.file("locked");
  std::filesystem::create_directory(locked);
  std::filesystem::permissions(
      locked, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  try {
    Writer w(locked + "/run.db");
    FAIL() << "created a trace in a read-only folder";
  } catch (const ts::store::Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot take a new file (Permission denied)"),
              std::string::npos)
        << e.what();
  }
  std::filesystem::permissions(locked, std::filesystem::perms::owner_all);
}

// A WAL-mode SQLite file whose application_id (and schema) live in its -wal only, as a capture
// killed before its first checkpoint leaves it: the connection closes without checkpointing.
void write_wal_only_database(const std::string& path, std::int32_t application_id) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  const std::string sql = "PRAGMA application_id=" + std::to_string(application_id) +
                          "; CREATE TABLE t (x); INSERT INTO t VALUES (1)";
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

TEST(Store, ReplacesATraceWhoseCaptureDiedBeforeItsFirstCheckpoint) {
  TempDir dir;
  const std::string dead = dir.file("dead.db");
  write_wal_only_database(dead, ts::store::kApplicationId);
  ASSERT_TRUE(std::filesystem::exists(dead + "-wal"));
  EXPECT_NO_THROW({
    Writer w(dead);
    w.finish();
  });
  EXPECT_EQ(Reader(dead).event_count(), 0);

  // Someone else's WAL-mode database is still not replaced.
  const std::string foreign = dir.file("foreign.db");
  write_wal_only_database(foreign, 1234);
  const auto before = std::filesystem::file_size(foreign + "-wal");
  EXPECT_THROW(Writer{foreign}, ts::store::Error);
  EXPECT_EQ(std::filesystem::file_size(foreign + "-wal"), before);
}

TEST(Store, ANewTraceCarriesItsApplicationIdInTheFileHeaderAtOnce) {
  TempDir dir;
  const std::string path = dir.file("new.db");
  Writer w(path, {.staged = true});  // open, nothing checkpointed yet
  const auto header = ts::store::read_file_header(path);
  ASSERT_TRUE(header && header->sqlite);
  EXPECT_EQ(header->application_id, ts::store::kApplicationId);
}

// Size on disk per event, indexes included, for a capture-like stream (not a timing assertion):
// four threads on one clock, rows sorted by start in each 10 ms batch as the collector does.
TEST(Store, StoredSizeIsAtMost32BytesPerEventPlusTheOverview) {
  TempDir dir;
  const std::string path = dir.file("size.db");
  constexpr int kEvents = 300000;
  {
    Writer w(path);
    ts::test::write_dictionary(w);
    std::mt19937 rng(3);
    std::vector<EventRow> rows;
    std::int64_t now = 250'000'000'000'000;  // ~3 days of uptime: 8-byte timestamps
    std::int64_t free_at[4] = {now, now, now, now};
    std::int64_t batch_end = now + 10'000'000;
    for (int i = 0; i < kEvents; ++i) {
      const auto tr = static_cast<std::uint32_t>(i % 4);
      const std::int64_t dur = 200 + rng() % 20'000;
      const std::int64_t start = std::max(now, free_at[tr]);
      free_at[tr] = start + dur + 100;
      now += 3000;
      rows.push_back({start, dur, tr + 1, static_cast<std::uint32_t>(1 + rng() % 2), i / 1000});
      if (now >= batch_end) {
        std::sort(rows.begin(), rows.end(), [](const EventRow& a, const EventRow& b) {
          return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.track < b.track;
        });
        w.append(std::span<const EventRow>(rows));
        if ((batch_end / 10'000'000) % 10 == 0) w.commit();
        rows.clear();
        batch_end += 10'000'000;
      }
    }
    w.append(std::span<const EventRow>(rows));
    w.finish();
  }
  // The events with their indexes, and the overview the viewer opens with (a few bytes a zone).
  const double overview_bytes =
      std::stod(ts::test::sql(path, "SELECT sum(length(data)) FROM overview").rows.at(0).at(0));
  const double per_event =
      (static_cast<double>(std::filesystem::file_size(path)) - overview_bytes) / kEvents;
  EXPECT_LE(per_event, 32.0);
  EXPECT_GT(overview_bytes, 0);
  EXPECT_LE(overview_bytes / kEvents, 2.0);
  RecordProperty("bytes_per_event", std::to_string(per_event));
  RecordProperty("overview_bytes_per_event", std::to_string(overview_bytes / kEvents));
}

// The bulk scan reads each event's arguments in the same pass: the same events, in the same
// order, with the same arguments as scan() and one args() lookup per event.
TEST(Store, ScanWithArgsMatchesScanAndLookups) {
  TempDir dir;
  const std::string path = ts::test::good_trace(dir, 50);
  {
    // A long event (2^28 ns) starting before the range, with arguments of its own.
    Writer w(path + ".long.db");
    ts::test::write_dictionary(w);
    auto rows = ts::test::step_rows(50);
    rows.push_back({500'000'000, std::int64_t{1} << 28, 2, 2, kNull, kNull, 7, 99});
    w.append(std::span<const EventRow>(rows));
  }
  {
    // 150 000 events on two tracks, two in three with arguments: the argument cursor steps past
    // rows without any, across both tracks' interleaved keys.
    Writer w(path + ".many.db");
    ts::test::write_dictionary(w);
    std::vector<EventRow> rows;
    for (std::int64_t i = 0; i < 150'000; ++i)
      rows.push_back({1'000'000 + i * 1000, 500, static_cast<std::uint32_t>(1 + i % 2), 2, kNull,
                      kNull, i % 3 == 0 ? kNull : i, i % 3 == 0 ? kNull : 1000 + i});
    w.append(std::span<const EventRow>(rows));
  }
  for (const std::string& p : {path, path + ".long.db", path + ".many.db"}) {
    const Reader r(p);
    const auto range = r.time_range();
    for (const auto& [t0, t1] : {std::pair{range.start_ns, range.end_ns + 1},
                                 std::pair{range.start_ns + (range.end_ns - range.start_ns) / 3,
                                           range.end_ns - (range.end_ns - range.start_ns) / 3}}) {
      std::vector<std::pair<ts::store::Event, ts::store::EventArgs>> want, got;
      r.scan(t0, t1, 0, [&](const ts::store::Event& e) { want.emplace_back(e, r.args(e)); });
      r.scan_with_args(t0, t1, [&](const ts::store::Event& e, const ts::store::EventArgs& a) {
        got.emplace_back(e, a);
      });
      ASSERT_EQ(got.size(), want.size());
      std::size_t with_args = 0;
      for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].first.start_ns, want[i].first.start_ns);
        EXPECT_EQ(got[i].first.track, want[i].first.track);
        EXPECT_EQ(got[i].second.work_size, want[i].second.work_size);
        EXPECT_EQ(got[i].second.correlation, want[i].second.correlation);
        with_args += got[i].second.correlation != kNull;
      }
      EXPECT_GT(with_args, 0u);
    }
  }
}

}  // namespace

namespace {

// Scans get their rows from within SQLite's loop (row_function.hpp): what the callback throws
// stops the scan and comes out unchanged; a scan started again from within its own callback is
// refused, not entered twice; either way the reader goes on answering.
TEST(Store, ScanCallbacksMayThrowAndScansDoNotNest) {
  TempDir dir;
  const std::string path = ts::test::good_trace(dir, 50);
  const Reader r(path);
  const auto range = r.time_range();
  const std::size_t all = r.events(range.start_ns, range.end_ns + 1).size();
  ASSERT_GT(all, 100u);
  struct Enough {};
  std::size_t seen = 0;
  EXPECT_THROW(r.scan(range.start_ns, range.end_ns + 1, 0,
                      [&](const ts::store::Event&) {
                        if (++seen == 10) throw Enough{};
                      }),
               Enough);
  EXPECT_EQ(seen, 10u);
  EXPECT_THROW(r.scan_with_args(range.start_ns, range.end_ns + 1,
                                [&](const ts::store::Event&, const ts::store::EventArgs&) {
                                  throw std::runtime_error("stop");
                                }),
               std::runtime_error);
  try {
    r.scan(range.start_ns, range.end_ns + 1, 0,
           [&](const ts::store::Event& e) { r.events(e.start_ns, e.start_ns + 1); });
    ADD_FAILURE() << "a scan within its own scan";
  } catch (const ts::store::Error& e) {
    EXPECT_NE(std::string(e.what()).find("from within itself"), std::string::npos) << e.what();
  }
  // Other queries within a scan are fine, and the reader answers as before afterwards.
  std::size_t with_args = 0;
  r.scan(range.start_ns, range.end_ns + 1, 0,
         [&](const ts::store::Event& e) { with_args += r.args(e).correlation != kNull; });
  EXPECT_GT(with_args, 0u);
  EXPECT_EQ(r.events(range.start_ns, range.end_ns + 1).size(), all);
}

}  // namespace
