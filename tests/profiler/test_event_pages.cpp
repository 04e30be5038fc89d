// The event table read from its pages (profiler/store/event_pages.hpp) against SQLite reading the
// same rows: every range gives the same rows, and where a row is not of the plain shape the scan
// stops and names the id from which SQLite reads the rest, so that the two together are SQLite's
// answer. Readers of such files answer as SQLite does.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "profiler/store/event_pages.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/sqlite.hpp"
#include "store_fixture.hpp"

namespace ts::store {
namespace {

using test::TempDir;

struct Plain {
  std::int64_t values[5];
  std::uint8_t nulls;
  bool operator==(const Plain&) const = default;
};

Plain plain(const EventPages::Row& r) {
  Plain p{};
  for (int i = 0; i < 5; ++i) p.values[i] = r.values[i];
  p.nulls = r.nulls;
  return p;
}

// SQLite's rows of the event table with ids in [lo, hi], as EventPages hands them over.
std::vector<Plain> sqlite_rows(const std::string& path, std::int64_t lo, std::int64_t hi) {
  Db db;
  db.open(path, SQLITE_OPEN_READONLY, "test");
  Stmt st(db,
          "SELECT id, dur_ns, label, step, bytes FROM event WHERE id >= ? AND id <= ? ORDER BY id",
          "test");
  st.bind(1, lo);
  st.bind(2, hi);
  std::vector<Plain> out;
  while (st.step()) {
    Plain p{};
    for (int i = 0; i < 5; ++i) {
      p.values[i] = st.col_int(i);
      if (i > 0 && st.col_null(i)) p.nulls |= static_cast<std::uint8_t>(1u << i);
    }
    out.push_back(p);
  }
  return out;
}

std::uint32_t event_root(const std::string& path) {
  Db db;
  db.open(path, SQLITE_OPEN_READONLY, "test");
  Stmt st(db, "SELECT rootpage FROM sqlite_schema WHERE name = 'event'", "test");
  EXPECT_TRUE(st.step());
  return static_cast<std::uint32_t>(st.col_int(0));
}

// The pages' rows, then SQLite's from where the pages stopped: what a Reader reads.
std::vector<Plain> page_rows(const std::string& path, std::int64_t lo, std::int64_t hi,
                             bool* stopped = nullptr) {
  const auto pages = EventPages::open(path);
  EXPECT_NE(pages, nullptr);
  std::vector<Plain> out;
  const auto rest = pages->scan(event_root(path), lo, hi,
                                [&](const EventPages::Row& r) { out.push_back(plain(r)); });
  if (stopped != nullptr) *stopped = rest.has_value();
  if (rest) {
    const std::vector<Plain> tail = sqlite_rows(path, *rest, hi);
    out.insert(out.end(), tail.begin(), tail.end());
  }
  return out;
}

TEST(EventPages, EveryRangeGivesSQLitesRows) {
  TempDir dir;
  const std::string path = test::good_trace(dir, 400);  // several levels of pages
  const std::vector<Plain> all = sqlite_rows(path, INT64_MIN, INT64_MAX);
  ASSERT_GT(all.size(), 2000u);
  bool stopped = true;
  EXPECT_EQ(page_rows(path, INT64_MIN, INT64_MAX, &stopped), all);
  EXPECT_FALSE(stopped);
  std::mt19937_64 rng(9);
  for (int i = 0; i < 200; ++i) {
    const std::int64_t a =
        all[rng() % all.size()].values[0] + static_cast<std::int64_t>(rng() % 3) - 1;
    const std::int64_t b = a + static_cast<std::int64_t>(rng() % 50000000);
    EXPECT_EQ(page_rows(path, a, b, &stopped), sqlite_rows(path, a, b)) << a << ".." << b;
    EXPECT_FALSE(stopped);
  }
  EXPECT_TRUE(page_rows(path, 5, 4).empty());
  // Each row alone: the seek finds it whichever page it is on, first or last of its leaf.
  const auto pages = EventPages::open(path);
  const std::uint32_t root = event_root(path);
  for (const Plain& row : all) {
    std::vector<Plain> got;
    const auto rest = pages->scan(root, row.values[0], row.values[0],
                                  [&](const EventPages::Row& r) { got.push_back(plain(r)); });
    EXPECT_FALSE(rest.has_value());
    ASSERT_EQ(got.size(), 1u) << row.values[0];
    EXPECT_EQ(got[0], row);
  }
}

TEST(EventPages, RowsOfAnotherShapeAreLeftToSQLite) {
  TempDir dir;
  const std::string path = test::good_trace(dir, 100);
  std::vector<Plain> all = sqlite_rows(path, INT64_MIN, INT64_MAX);
  const std::int64_t odd = all[all.size() / 3].values[0];
  const std::int64_t blob = all[all.size() / 2].values[0];
  {
    Db db;
    db.open(path, SQLITE_OPEN_READWRITE, "test");
    const std::string sql =
        "UPDATE event SET dur_ns = 2.5 WHERE id = " + std::to_string(odd) +
        "; UPDATE event SET bytes = x'0102' WHERE id = " + std::to_string(blob) +
        "; INSERT INTO event VALUES (" + std::to_string(all.back().values[0] + 1) +
        ", 5, 1, NULL, NULL);";
    db.exec(sql.c_str(), "test");
  }
  all = sqlite_rows(path, INT64_MIN, INT64_MAX);
  bool stopped = false;
  EXPECT_EQ(page_rows(path, INT64_MIN, INT64_MAX, &stopped), all);
  EXPECT_TRUE(stopped);
  // Past the odd rows the pages read on their own again.
  EXPECT_EQ(page_rows(path, blob + 1, INT64_MAX, &stopped), sqlite_rows(path, blob + 1, INT64_MAX));
  EXPECT_FALSE(stopped);
  // A reader of the file answers as SQLite does (the real value is read as an integer).
  const Reader reader(path);
  const TimeRange range = reader.time_range();
  std::size_t events = 0;
  reader.scan(range.start_ns, range.end_ns + 1, 0, [&](const Event&) { ++events; });
  EXPECT_EQ(events, all.size());
}

// A reader's scans of one track, and of every track with arguments, read from the pages: the
// rows SQLite's queries give, in the same order.
TEST(EventPages, AReadersScansOfATrackAndWithArgumentsAreSQLites) {
  TempDir dir;
  const std::string path = test::good_trace(dir, 200);
  const Reader reader(path);
  const TimeRange range = reader.time_range();
  const std::vector<Event> all = reader.events(range.start_ns, range.end_ns + 1);
  Db db;
  db.open(path, SQLITE_OPEN_READONLY, "test");
  for (const Track& t : reader.tracks()) {
    std::vector<std::pair<std::int64_t, std::int64_t>> got, want;
    for (const Event& e : reader.events(range.start_ns, range.end_ns + 1, t.id))
      got.emplace_back(e.start_ns, e.dur_ns);
    Stmt st(db, "SELECT dur_ns FROM event WHERE (id & 65535) = ? ORDER BY id", "test");
    st.bind(1, std::int64_t{t.id});
    for (const Event& e : all)
      if (e.track == t.id) want.emplace_back(e.start_ns, e.dur_ns);
    std::size_t sql_rows = 0;
    while (st.step()) ++sql_rows;
    EXPECT_EQ(got, want) << "track " << t.id;
    EXPECT_EQ(got.size(), sql_rows) << "track " << t.id;
  }
  std::size_t with_args = 0, rows = 0;
  reader.scan_with_args(range.start_ns, range.end_ns + 1, [&](const Event& e, const EventArgs& a) {
    EXPECT_EQ(a.correlation, reader.args(e).correlation);
    EXPECT_EQ(a.work_size, reader.args(e).work_size);
    with_args += a.correlation != kNull;
    ++rows;
  });
  EXPECT_EQ(rows, all.size());
  EXPECT_GT(with_args, 0u);
}

// A damaged b-tree (an interior page whose first child is the page itself, or a page past the
// file's end): the pages stop at once and leave the range to SQLite, whose error a reader
// throws; never a loop or a read outside the file.
TEST(EventPages, ADamagedTreeIsLeftToSQLite) {
  for (const bool past_end : {false, true}) {
    TempDir dir;
    const std::string path = test::good_trace(dir, 400);
    const std::uint32_t root = event_root(path);
    std::uint32_t page_size = 0;
    {
      Db db;
      db.open(path, SQLITE_OPEN_READONLY, "test");
      page_size = static_cast<std::uint32_t>(db.pragma_int("page_size", "test"));
    }
    std::FILE* f = std::fopen(path.c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    std::vector<unsigned char> page(page_size);
    std::fseek(f, static_cast<long>(root - 1) * page_size, SEEK_SET);
    ASSERT_EQ(std::fread(page.data(), 1, page.size(), f), page.size());
    ASSERT_EQ(page[0], 0x05) << "the root is an interior page";
    const std::uint32_t cell = page[12] << 8 | page[13];  // the first cell's offset
    const std::uint32_t child = past_end ? 0x7FFFFFF0u : root;
    for (int i = 0; i < 4; ++i) page[cell + i] = static_cast<unsigned char>(child >> (24 - 8 * i));
    std::fseek(f, static_cast<long>(root - 1) * page_size, SEEK_SET);
    ASSERT_EQ(std::fwrite(page.data(), 1, page.size(), f), page.size());
    std::fclose(f);

    const auto pages = EventPages::open(path);
    ASSERT_NE(pages, nullptr);
    std::size_t rows = 0;
    const auto rest =
        pages->scan(root, INT64_MIN, INT64_MAX, [&](const EventPages::Row&) { ++rows; });
    EXPECT_EQ(rest, std::optional<std::int64_t>(INT64_MIN));
    EXPECT_EQ(rows, 0u);
    try {
      const Reader reader(path);
      const TimeRange range = reader.time_range();
      reader.scan(range.start_ns, range.end_ns + 1, 0, [](const Event&) {});
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()), "");  // SQLite's word on the damage
    }
  }
}

TEST(EventPages, AWriteAheadLogIsNotReadFromThePages) {
  TempDir dir;
  const std::string path = test::good_trace(dir, 20);
  {
    Db db;
    db.open(path, SQLITE_OPEN_READWRITE, "test");
    db.exec("PRAGMA journal_mode=WAL", "test");
  }
  EXPECT_EQ(EventPages::open(path), nullptr);
  EXPECT_EQ(EventPages::open(dir.file("missing.db")), nullptr);
}

}  // namespace
}  // namespace ts::store
