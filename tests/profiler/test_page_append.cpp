// The writer's page append (page_event_table.hpp): events appended straight into the file's
// pages make the trace SQLite's INSERTs of the same rows make, zones on one tick placed alike.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "profiler/store/event_key.hpp"
#include "profiler/store/schema.hpp"
#include "tests/profiler/store_fixture.hpp"

namespace ts::store {
namespace {

using test::sql;

WriterOptions bulk() {
  WriterOptions o;
  o.bulk = true;
  return o;
}

bool key_order(const EventRow& a, const EventRow& b) {
  if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
  if (a.track != b.track) return a.track < b.track;
  return a.dur_ns > b.dur_ns;
}

// Rows of 40 tracks over 2 s: zones nested on one tick (two, three and five deep, some too short
// for the nested ones to move later), zones long enough for event_long, kernels with arguments,
// steps, zones with bytes. In key order.
std::vector<EventRow> mixed_rows() {
  std::mt19937_64 rng(7);
  std::vector<EventRow> rows;
  const std::int64_t t0 = 5'000'000'000;
  for (std::uint32_t track = 1; track <= 40; ++track) {
    std::int64_t t = t0 + track * 13;
    for (int i = 0; i < 1500; ++i) {
      EventRow r;
      r.start_ns = t;
      r.track = track;
      r.label = 1 + static_cast<std::uint32_t>(rng() % 2);
      r.dur_ns = 200 + static_cast<std::int64_t>(rng() % 900);
      if (i % 97 == 0) r.dur_ns = kLongEventNs + static_cast<std::int64_t>(rng() % 1000);
      if (i % 11 == 0) r.bytes = static_cast<std::int64_t>(rng() % 100000);
      if (track % 4 == 0) {
        r.work_size = (i % 3 == 0) ? kNull : 64;
        r.correlation = 1000 + i;
      }
      if (i % 50 == 0) {
        r.label = 3;  // a step
        r.step = i / 50;
      }
      rows.push_back(r);
      const int nested = i % 7 == 0 ? 1 : i % 13 == 0 ? 2 : i % 29 == 0 ? 4 : 0;
      for (int k = 1; k <= nested; ++k) {
        EventRow n = r;
        n.step = kNull;
        n.label = 1;
        n.dur_ns = i % 58 == 0 ? 1 : r.dur_ns - 10 * k;  // 1 ns: cannot move later
        rows.push_back(n);
      }
      t += 300 + static_cast<std::int64_t>(rng() % 2000);
    }
  }
  std::stable_sort(rows.begin(), rows.end(), key_order);
  return rows;
}

// The rows' time range, as the trace will have it when no row moves past an end.
TimeRange extent_of(const std::vector<EventRow>& rows) {
  TimeRange r{INT64_MAX, INT64_MIN};
  for (const EventRow& e : rows) {
    r.start_ns = std::min(r.start_ns, e.start_ns);
    r.end_ns = std::max(r.end_ns, e.start_ns + e.dur_ns);
  }
  return r;
}

// Returns whether the overview was built as the events went into the pages.
bool write_trace(const std::string& path, const std::vector<EventRow>& rows, bool pages,
                 std::optional<TimeRange> extent = {}) {
  Writer w(path, bulk());
  test::write_dictionary(w);
  w.commit();
  if (pages && !w.begin_page_append(rows.front().start_ns, extent)) {
    ADD_FAILURE() << "no page append";
    return false;
  }
  for (std::size_t i = 0; i < rows.size(); i += 1000)
    w.append(
        std::span<const EventRow>(rows).subspan(i, std::min<std::size_t>(1000, rows.size() - i)));
  w.finish();
  return w.overview_built_while_writing();
}

std::vector<std::vector<std::string>> table(const std::string& path, const std::string& query) {
  return sql(path, query).rows;
}

TEST(PageAppend, WritesTheTraceSQLitesInsertsWrite) {
  test::TempDir dir;
  const std::vector<EventRow> rows = mixed_rows();
  write_trace(dir.file("insert.db"), rows, false);
  write_trace(dir.file("pages.db"), rows, true);
  const std::string a = dir.file("insert.db"), b = dir.file("pages.db");
  EXPECT_EQ(table(b, "PRAGMA integrity_check"), table(a, "PRAGMA integrity_check"));
  EXPECT_EQ(table(b, "PRAGMA integrity_check")[0][0], "ok");
  for (const char* q : {"SELECT * FROM event ORDER BY id", "SELECT * FROM event_arg ORDER BY id",
                        "SELECT * FROM step_span ORDER BY start_ns, track",
                        "SELECT * FROM step_span INDEXED BY step_span_step WHERE step BETWEEN 3 "
                        "AND 9 ORDER BY step, start_ns",
                        "SELECT id FROM event INDEXED BY event_long WHERE dur_ns >= 134217728",
                        "SELECT * FROM meta WHERE key LIKE 'event.%' ORDER BY key",
                        "SELECT count(*), sum(dur_ns) FROM events"}) {
    const auto expected = table(a, q);
    EXPECT_FALSE(expected.empty()) << q;
    EXPECT_EQ(table(b, q), expected) << q;
  }
  // Some zones on one tick were moved, both ways.
  const std::size_t stored = table(a, "SELECT id FROM event").size();
  EXPECT_EQ(stored, rows.size());
  Reader r(b);
  EXPECT_EQ(r.event_count(), rows.size());
  EXPECT_EQ(r.overview_bytes(), Reader(a).overview_bytes());
}

// The overview built as the events go into the pages is the one built from the file; given a
// time range the trace does not have, the writer builds it from the file.
TEST(PageAppend, TheOverviewBuiltWhileWritingIsTheOneBuiltFromTheFile) {
  test::TempDir dir;
  const std::vector<EventRow> rows = mixed_rows();
  const TimeRange extent = extent_of(rows);
  EXPECT_FALSE(write_trace(dir.file("insert.db"), rows, false));
  EXPECT_TRUE(write_trace(dir.file("fed.db"), rows, true, extent));
  EXPECT_FALSE(
      write_trace(dir.file("off.db"), rows, true, TimeRange{extent.start_ns, extent.end_ns + 1}));
  const std::string expected = Reader(dir.file("insert.db")).overview_bytes();
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(Reader(dir.file("fed.db")).overview_bytes(), expected);
  EXPECT_EQ(Reader(dir.file("off.db")).overview_bytes(), expected);
  // Events appended through SQLite after the pages: the overview is the file's.
  Writer w(dir.file("more.db"), bulk());
  test::write_dictionary(w);
  const auto half = static_cast<std::ptrdiff_t>(rows.size() / 2);
  ASSERT_TRUE(w.begin_page_append(rows.front().start_ns, extent));
  w.append(std::span<const EventRow>(rows.begin(), rows.begin() + half));
  w.end_page_append();
  w.append(std::span<const EventRow>(rows.begin() + half, rows.end()));
  w.finish();
  EXPECT_FALSE(w.overview_built_while_writing());
  EXPECT_EQ(Reader(dir.file("more.db")).overview_bytes(), expected);
}

// Zones on one tick are placed around it by a nanosecond each: with more of them than the page
// table keeps waiting, those moved behind what it already wrote go through SQLite afterwards, and
// every zone is kept with its end.
TEST(PageAppend, ZonesMovedBehindWhatIsWrittenAreIndexedAfterwards) {
  test::TempDir dir;
  std::vector<EventRow> rows;
  const std::size_t n = PageEventTable::kMaxWaiting + 20000;
  for (std::size_t i = 0; i < n; ++i) {
    EventRow r;
    r.start_ns = 9'000'000'000;
    r.dur_ns = 10;  // too short for the nested to move later: the enclosing move earlier
    r.track = 1;
    r.label = 1;
    rows.push_back(r);
  }
  EventRow after;
  after.start_ns = 9'100'000'000;
  after.dur_ns = 5;
  after.track = 2;
  after.label = 2;
  rows.push_back(after);
  write_trace(dir.file("insert.db"), rows, false);
  // Zones moved behind what was written went in through SQLite: the overview is the file's.
  EXPECT_FALSE(write_trace(dir.file("pages.db"), rows, true, extent_of(rows)));
  const std::string a = dir.file("insert.db"), b = dir.file("pages.db");
  EXPECT_EQ(table(b, "PRAGMA integrity_check")[0][0], "ok");
  EXPECT_EQ(Reader(b).overview_bytes(), Reader(a).overview_bytes());
  const char* ends = "SELECT start_ns + dur_ns AS e, count(*) FROM events GROUP BY e ORDER BY e";
  EXPECT_EQ(table(b, ends), table(a, ends));
  EXPECT_EQ(table(b, "SELECT count(*) FROM event")[0][0], std::to_string(n + 1));
}

TEST(PageAppend, IsRefusedWhereTheFileCannotTakeIt) {
  test::TempDir dir;
  const std::vector<EventRow> rows = test::step_rows(3);
  {
    Writer w(dir.file("not-bulk.db"));
    EXPECT_FALSE(w.begin_page_append(rows.front().start_ns));
  }
  {
    Writer w(dir.file("staged.db"), test::staged());
    EXPECT_FALSE(w.begin_page_append(rows.front().start_ns));
  }
  Writer w(dir.file("holds-events.db"), bulk());
  test::write_dictionary(w);
  w.append(rows);
  EXPECT_FALSE(w.begin_page_append(rows.front().start_ns));
  EventRow later = rows.back();
  later.start_ns += 1'000'000;
  w.append(std::span<const EventRow>(&later, 1));  // still through SQLite
  w.finish();
  EXPECT_EQ(table(dir.file("holds-events.db"), "SELECT count(*) FROM event")[0][0],
            std::to_string(rows.size() + 1));
}

TEST(PageAppend, OnlyEventsMayComeWhilePagesAreAppended) {
  test::TempDir dir;
  const std::vector<EventRow> rows = test::step_rows(2);
  Writer w(dir.file("t.db"), bulk());
  test::write_dictionary(w);
  ASSERT_TRUE(w.begin_page_append(rows.front().start_ns));
  w.append(rows);
  EXPECT_THROW(w.put_meta("run.name", "x"), Error);
  w.end_page_append();
  w.put_meta("run.name", "x");
  w.finish();
  EXPECT_EQ(table(dir.file("t.db"), "PRAGMA integrity_check")[0][0], "ok");
  EXPECT_EQ(table(dir.file("t.db"), "SELECT value FROM meta WHERE key = 'run.name'")[0][0], "x");
  EXPECT_EQ(table(dir.file("t.db"), "SELECT count(*) FROM event")[0][0],
            std::to_string(rows.size()));
}

}  // namespace
}  // namespace ts::store
