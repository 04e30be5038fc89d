// Reader::refresh on a trace still being written: it takes in only what was committed since, and
// then reads exactly what a reader opened afresh reads.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <limits>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "profiler/store/error.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/writer.hpp"
#include "tests/profiler/store_fixture.hpp"
#include "tests/profiler/test_util.hpp"

namespace {

using ts::test::staged;

using ts::store::EventRow;
using ts::store::Reader;
using ts::store::Writer;
using ts::test::TempDir;
using Refresh = Reader::Refresh;

constexpr std::int64_t kAll = std::numeric_limits<std::int64_t>::max();

// step_rows(n) without its first `from` steps.
std::vector<EventRow> steps_from(int from, int to) {
  std::vector<EventRow> rows = ts::test::step_rows(to);
  std::erase_if(rows, [&](const EventRow& r) { return r.step < from; });
  return rows;
}

void append(Writer& w, const std::vector<EventRow>& rows) {
  w.append(std::span<const EventRow>(rows));
  w.commit();
}

// A capture still running in a directory of its own: a staged writer, the dictionary and `rows`
// committed.
struct Capture {
  Capture(const char* name, const std::vector<EventRow>& rows)
      : path(dir.file(name)), w(path, staged()) {
    ts::test::write_dictionary(w);
    append(w, rows);
  }
  TempDir dir;
  std::string path;
  Writer w;
};

// What `r` reads, compared with what a reader opened now reads.
void expect_same_as_fresh(const Reader& r) {
  const Reader fresh(r.path());
  const auto a = r.events(std::numeric_limits<std::int64_t>::min(), kAll);
  const auto b = fresh.events(std::numeric_limits<std::int64_t>::min(), kAll);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].start_ns, b[i].start_ns) << i;
    EXPECT_EQ(a[i].dur_ns, b[i].dur_ns) << i;
    EXPECT_EQ(a[i].track, b[i].track) << i;
    EXPECT_EQ(a[i].label, b[i].label) << i;
    EXPECT_EQ(r.args(a[i]).correlation, fresh.args(b[i]).correlation) << i;
  }
  EXPECT_EQ(r.steps().size(), fresh.steps().size());
  EXPECT_EQ(r.tracks().size(), fresh.tracks().size());
  EXPECT_EQ(r.meta(), fresh.meta());
  EXPECT_EQ(r.counter(3, 0, kAll).size(), fresh.counter(3, 0, kAll).size());
}

TEST(Refresh, TakesInOnlyTheBlocksCommittedSince) {
  Capture c("live.db", steps_from(0, 3));
  Writer& w = c.w;
  const std::string& path = c.path;
  Reader r(path);
  ASSERT_TRUE(r.staged_events_indexed());
  EXPECT_EQ(r.blocks_indexed(), 1u);
  EXPECT_EQ(r.steps().size(), 3u);
  EXPECT_EQ(r.refresh(), Refresh::unchanged);

  // Two commits, a new thread with a name and label of its own, counter samples and meta.
  append(w, steps_from(3, 5));
  w.put_string(9, "loader");
  w.put_label(9, 9, ts::trace::Category::input_read);
  w.put_track(7, "loader thread", ts::trace::TrackKind::thread, 77);
  w.put_meta("engine.model", "mlp");
  std::vector<EventRow> more = steps_from(5, 8);
  more.push_back({1'005'500'000, 300'000, 7, 9});
  append(w, more);
  const std::vector<ts::store::CounterRow> fill = {{3, 1'000'000'000, 1.0}, {3, 1'004'000'000, 2}};
  w.append(std::span<const ts::store::CounterRow>(fill));
  w.commit();

  ASSERT_EQ(r.refresh(), Refresh::appended);
  EXPECT_EQ(r.blocks_indexed(), 4u);  // the first block was not read again
  EXPECT_EQ(r.steps().size(), 8u);
  ASSERT_NE(r.track(7), nullptr);
  EXPECT_EQ(r.track(7)->name, "loader thread");
  EXPECT_EQ(r.meta("engine.model"), "mlp");
  expect_same_as_fresh(r);
  EXPECT_EQ(r.refresh(), Refresh::unchanged);

  // The capture stops: its events are indexed into the file, which a new reader reads.
  w.finish();
  EXPECT_EQ(r.refresh(), Refresh::reopen);
}

// Zones starting on the same clock tick, split across commits (an outer zone is written after
// its children end): the refreshed reader places them as one indexing of every block does.
TEST(Refresh, PlacesSameTickEventsAcrossCommitsAsAFreshReader) {
  Capture c("ticks.db", {{1'000'000'000, 1'000'000, 1, 3, 0}, {1'000'100'000, 10'000, 1, 1, 0}});
  Writer& w = c.w;
  const std::string& path = c.path;
  Reader r(path);
  append(w, {{1'000'100'000, 50'000, 1, 1, 0}, {1'000'100'000, 20'000, 1, 1, 0}});
  append(w, {{1'000'100'000, 80'000, 1, 1, 0}, {1'002'000'000, 5'000, 2, 2, 1}});
  ASSERT_EQ(r.refresh(), Refresh::appended);
  EXPECT_EQ(r.events(0, kAll).size(), 6u);
  expect_same_as_fresh(r);
}

// A capture that had committed no block when the reader opened is read from the file; once it
// stages events, only a new reader indexes them.
TEST(Refresh, AReaderOfAFileWithNothingStagedAsksForAReopen) {
  Capture c("early.db", {});
  Writer& w = c.w;
  const std::string& path = c.path;
  Reader r(path);
  EXPECT_FALSE(r.staged_events_indexed());
  EXPECT_EQ(r.refresh(), Refresh::unchanged);
  append(w, steps_from(0, 2));
  EXPECT_EQ(r.refresh(), Refresh::reopen);
}

// A writer that indexes every append (an import, a merge): new rows show in the reader's
// queries, and refresh() reloads its tables.
TEST(Refresh, APlainWritersNewTracksAreTakenIn) {
  TempDir dir;
  const std::string path = dir.file("plain.db");
  Writer w(path);
  ts::test::write_dictionary(w);
  append(w, steps_from(0, 2));
  Reader r(path);
  EXPECT_EQ(r.refresh(), Refresh::unchanged);
  w.put_track(8, "late", ts::trace::TrackKind::thread);
  append(w, steps_from(2, 4));
  EXPECT_EQ(r.refresh(), Refresh::appended);
  EXPECT_NE(r.track(8), nullptr);
  EXPECT_EQ(r.steps().size(), 4u);
}

// A new capture written at the same path is another file: nothing of it is mixed in.
TEST(Refresh, AFileReplacedAtTheSamePathAsksForAReopen) {
  TempDir dir;
  const std::string path = dir.file("again.db");
  {
    Writer w(path, staged());
    ts::test::write_dictionary(w);
    append(w, steps_from(0, 2));
    std::filesystem::copy_file(path, path + ".copy");
    std::filesystem::copy_file(path + "-wal", path + ".copy-wal");
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  std::filesystem::rename(path + ".copy", path);
  std::filesystem::rename(path + ".copy-wal", path + "-wal");
  Reader r(path);
  ASSERT_TRUE(r.staged_events_indexed());
  {
    const std::string other = dir.file("other.db");
    Writer w(other, staged());
    ts::test::write_dictionary(w);
    append(w, steps_from(0, 5));
    w.finish();
    for (const char* suffix : {"-wal", "-shm"}) std::filesystem::remove(path + suffix);
    std::filesystem::rename(other, path);
  }
  EXPECT_EQ(r.refresh(), Refresh::reopen);
  EXPECT_EQ(r.steps().size(), 2u);  // what it read stays readable
}

// A block that does not decode, committed after the reader opened: one error, what was read
// stays readable, and later refreshes ask for a new reader (which refuses the file too).
TEST(Refresh, AMalformedNewBlockIsOneErrorAndAsksForAReopen) {
  Capture c("bad.db", steps_from(0, 3));  // its writer stays open: the capture runs
  const std::string& path = c.path;
  Reader r(path);
  ts::test::exec_rw(path, "INSERT INTO event_block (data) VALUES (x'ff00ff00ff')");
  EXPECT_THROW(r.refresh(), ts::store::Error);
  EXPECT_EQ(r.refresh(), Refresh::reopen);
  EXPECT_EQ(r.steps().size(), 3u);
  EXPECT_THROW(Reader{path}, ts::store::Error);
}

// A snapshot of a reader's in-memory copy is read by readers on other threads, each seeing what
// the reader saw when it was taken, whatever the reader takes in later.
TEST(Refresh, SnapshotsAreReadOnOtherThreadsAndDoNotChange) {
  Capture c("snap.db", steps_from(0, 4));
  Writer& w = c.w;
  const std::string& path = c.path;
  Reader r(path);
  const auto snapshot = r.snapshot_copy();
  ASSERT_NE(snapshot, nullptr);
  const std::size_t events = r.events(0, kAll).size();
  std::vector<std::size_t> seen(2);
  {
    std::vector<std::thread> threads;
    for (std::size_t& n : seen)
      threads.emplace_back([&] { n = Reader(path, snapshot).events(0, kAll).size(); });
    for (std::thread& t : threads) t.join();
  }
  EXPECT_EQ(seen, std::vector<std::size_t>(2, events));

  append(w, steps_from(4, 6));
  ASSERT_EQ(r.refresh(), Refresh::appended);
  const Reader old(path, snapshot);
  EXPECT_EQ(old.events(0, kAll).size(), events);
  EXPECT_EQ(old.steps().size(), 4u);
  EXPECT_TRUE(old.overview_bytes().empty());  // a capture's overview is never taken
  EXPECT_EQ(Reader(path, r.snapshot_copy()).steps().size(), 6u);

  // A finished file's readers read the file: there is nothing to copy.
  w.finish();
  EXPECT_EQ(Reader(path).snapshot_copy(), nullptr);
}

// A viewer (or a job polling a rank's part) opening a capture while it is being created: the
// capture waits for the reader's moment instead of failing with "database is locked". Each
// capture is a new file, as a rank's part is (replacing a file under readers of the same process
// is another matter: SQLite shares one lock table per file among a process's connections).
TEST(Refresh, ACaptureBeingCreatedWaitsForAReaderPeekingAtIt) {
  TempDir dir;
  constexpr int kCaptures = 150;
  std::atomic<int> current{0};
  std::atomic<bool> stop{false};
  std::thread peek([&] {
    while (!stop.load()) {
      try {
        (void)Reader(dir.file("peeked" + std::to_string(current.load()) + ".db"))
            .meta("process.pid");
      } catch (const ts::store::Error&) {
        // not yet a trace, or one without its tables: the next try reads more
      }
    }
  });
  int created = 0;
  for (int i = 0; i < kCaptures; ++i) {
    current = i;
    try {
      Writer w(dir.file("peeked" + std::to_string(i) + ".db"), staged());
      ts::test::write_dictionary(w);
      ++created;
    } catch (const ts::store::Error& e) {
      ADD_FAILURE() << e.what();
      break;
    }
  }
  stop = true;
  peek.join();
  EXPECT_EQ(created, kCaptures);
}

}  // namespace
