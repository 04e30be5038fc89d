// Readers of one trace on several threads share its string, label, track and process tables when
// what they read cannot change (a finished trace, one snapshot), and load their own otherwise.
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "profiler/store/reader.hpp"
#include "profiler/store/writer.hpp"
#include "tests/profiler/store_fixture.hpp"
#include "tests/profiler/test_util.hpp"

namespace {

using ts::store::EventRow;
using ts::store::Reader;
using ts::store::Writer;
using ts::test::TempDir;

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

void append(Writer& w, int steps) {
  const std::vector<EventRow> rows = ts::test::step_rows(steps);
  w.append(std::span<const EventRow>(rows));
  w.commit();
}

TEST(SharedTables, ReadersOfAFinishedTraceShareOneCopyAndReadTheSame) {
  TempDir dir;
  const std::string path = ts::test::good_trace(dir, 20);
  const Reader first(path);
  std::vector<std::size_t> events(2);
  std::vector<std::string> names(2);
  std::vector<bool> shared(2);
  {
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < 2; ++i)
      threads.emplace_back([&, i] {
        const Reader own(path, nullptr, first);
        shared[i] = own.shares_tables_with(first);
        const auto e = own.events(kMin, kMax);
        events[i] = e.size();
        names[i] =
            std::string(own.label(1).name) + "/" + own.label(1).file + "/" + own.track(2)->name;
      });
    for (std::thread& t : threads) t.join();
  }
  EXPECT_EQ(shared, std::vector<bool>(2, true));
  EXPECT_EQ(events, std::vector<std::size_t>(2, first.events(kMin, kMax).size()));
  EXPECT_EQ(names, std::vector<std::string>(2, "fwd/model.cpp/gpu0"));
  EXPECT_EQ(Reader(path, nullptr, first).label(99).name, "?");
}

// A trace still being written may gain labels and tracks after the first reader loaded its
// tables: a later reader loads its own and sees them.
TEST(SharedTables, AReaderOfATraceStillBeingWrittenLoadsItsOwn) {
  TempDir dir;
  const std::string path = dir.file("plain.db");
  Writer w(path);
  ts::test::write_dictionary(w);
  append(w, 2);
  const Reader first(path);
  w.put_track(8, "late", ts::trace::TrackKind::thread);
  append(w, 3);
  const Reader later(path, nullptr, first);
  EXPECT_FALSE(later.shares_tables_with(first));
  EXPECT_EQ(first.track(8), nullptr);
  ASSERT_NE(later.track(8), nullptr);
  EXPECT_EQ(later.track(8)->name, "late");
}

// A finished trace replaced by another at the same path is not read with the first one's tables.
TEST(SharedTables, AFileReplacedAtTheSamePathLoadsItsOwn) {
  TempDir dir;
  const std::string path = ts::test::good_trace(dir, 3);
  const Reader first(path);
  const std::string other = dir.file("other.db");
  {
    Writer w(other);
    ts::test::write_dictionary(w);
    w.put_track(8, "late", ts::trace::TrackKind::thread);
    append(w, 5);
    w.finish();
  }
  std::filesystem::rename(other, path);
  const Reader later(path, nullptr, first);
  EXPECT_FALSE(later.shares_tables_with(first));
  EXPECT_NE(later.track(8), nullptr);
}

// Readers of one snapshot of a running capture share; a reader of the file itself does not.
TEST(SharedTables, ReadersOfOneSnapshotShare) {
  TempDir dir;
  const std::string path = dir.file("snap.db");
  Writer w(path, ts::test::staged());
  ts::test::write_dictionary(w);
  append(w, 4);
  const Reader live(path);
  const auto snapshot = live.snapshot_copy();
  ASSERT_NE(snapshot, nullptr);
  const Reader a(path, snapshot);
  const Reader b(path, snapshot, a);
  EXPECT_TRUE(b.shares_tables_with(a));
  EXPECT_EQ(b.steps().size(), 4u);
  EXPECT_FALSE(Reader(path, snapshot, live).shares_tables_with(live));
  EXPECT_FALSE(Reader(path, nullptr, live).shares_tables_with(live));
}

// A reader that refreshes takes new tables of its own; one sharing its old ones keeps them.
TEST(SharedTables, ARefreshLeavesTheSharedTablesToTheOtherReader) {
  TempDir dir;
  const std::string path = ts::test::good_trace(dir, 3);
  Reader first(path);
  const Reader other(path, nullptr, first);
  ASSERT_TRUE(other.shares_tables_with(first));
  const ts::store::Label& fwd = other.label(1);
  ts::test::exec_rw(path, "UPDATE string SET text = 'renamed' WHERE id = 1");
  ASSERT_EQ(first.refresh(), Reader::Refresh::appended);
  EXPECT_FALSE(other.shares_tables_with(first));
  EXPECT_EQ(first.label(1).name, "renamed");
  EXPECT_EQ(fwd.name, "fwd");
}

}  // namespace
