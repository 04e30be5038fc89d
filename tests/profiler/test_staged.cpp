// Staged capture writes (WriterOptions::staged): events wait in event_block until finish()
// indexes them; a reader indexes the blocks a killed capture left in an in-memory copy.
#include <gtest/gtest.h>

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "profiler/store/event_block.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/recover.hpp"
#include "profiler/store/writer.hpp"
#include "tests/profiler/store_fixture.hpp"
#include "tests/profiler/test_util.hpp"

namespace {

using ts::test::staged;

using ts::store::EventRow;
using ts::store::Reader;
using ts::store::Writer;
using ts::test::sql;
using ts::test::TempDir;

std::string count(const std::string& path, const std::string& table) {
  return sql(path, "SELECT count(*) FROM " + table).rows.at(0).at(0);
}

// Rows that exercise the writer's placement of same-start nested zones: an outer zone appended
// after the zone nested in it, both starting on one tick, in separate calls.
void append_in_two_calls(Writer& w) {
  auto rows = ts::test::step_rows(20);
  const EventRow inner{2'000'000'000, 10, 1, 1, ts::store::kNull};
  const EventRow outer{2'000'000'000, 100, 1, 1, ts::store::kNull};
  rows.push_back(inner);
  w.append(std::span<EventRow>(rows));
  w.commit();
  std::vector<EventRow> later{outer};
  w.append(std::span<EventRow>(later));
}

TEST(StagedWrites, EventsWaitInBlocksAndReadersSeeThemBeforeFinish) {
  TempDir dir;
  const auto path = dir.file("staged.db");
  Writer w(path, staged());
  ts::test::write_dictionary(w);
  auto rows = ts::test::step_rows(10);
  w.append(std::span<EventRow>(rows));
  std::vector<ts::store::CounterRow> fill{{3, 1'000'100'000, 2.0}, {3, 1'000'200'000, 3.0}};
  w.append(std::span<const ts::store::CounterRow>(fill));
  w.commit();
  EXPECT_EQ(count(path, "event"), "0");
  EXPECT_EQ(count(path, "counter_sample"), "0");
  EXPECT_EQ(count(path, "event_block"), "1");
  EXPECT_EQ(w.events_staged(), 110u);

  {  // as after a SIGKILL: the file holds blocks only
    Reader r(path);
    EXPECT_EQ(r.event_count(), 110);
    ASSERT_EQ(r.steps().size(), 10u);
    EXPECT_EQ(r.steps()[3].step, 3);
    EXPECT_EQ(r.step_events(4).size(), 11u);
    const auto kernels = r.events(1'000'000'000, 1'001'000'000, 2);
    ASSERT_EQ(kernels.size(), 5u);
    EXPECT_EQ(r.args(kernels[0]).work_size, 64);
    const auto c = r.counter(3, 0, 2'000'000'000);
    ASSERT_EQ(c.size(), 2u);
    EXPECT_EQ(c[1].value, 3.0);
  }
  EXPECT_EQ(count(path, "event"), "0") << "the reader must not write to the file";

  w.finish();
  EXPECT_EQ(count(path, "event_block"), "0");
  EXPECT_EQ(count(path, "event"), "110");
  EXPECT_EQ(count(path, "steps"), "10");
  EXPECT_EQ(count(path, "counter_sample"), "2");
  EXPECT_EQ(w.events_written(), 110u);
}

// Writes the same trace twice, directly and staged: `fill` appends to a writer with the
// dictionary in place. Returns the paths {direct, staged}.
template <class Fill>
std::pair<std::string, std::string> write_direct_and_staged(TempDir& dir, Fill&& fill) {
  const auto direct = dir.file("direct.db");
  const auto staged_path = dir.file("staged.db");
  for (const auto& [path, options] :
       {std::pair{direct, ts::store::WriterOptions{}}, std::pair{staged_path, staged()}}) {
    Writer w(path, options);
    ts::test::write_dictionary(w);
    fill(w);
    w.finish();
  }
  return {direct, staged_path};
}

TEST(StagedWrites, StoreExactlyTheRowsDirectWritesStore) {
  TempDir dir;
  const auto [direct, staged_path] = write_direct_and_staged(dir, append_in_two_calls);
  const std::string q = "SELECT id, dur_ns, label, step, bytes FROM event ORDER BY id";
  const auto a = sql(direct, q);
  const auto b = sql(staged_path, q);
  ASSERT_EQ(a.rows.size(), 20u * 11 + 2);
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(sql(direct, "SELECT * FROM event_arg ORDER BY 1").rows,
            sql(staged_path, "SELECT * FROM event_arg ORDER BY 1").rows);
  EXPECT_EQ(sql(direct, "SELECT * FROM step_span ORDER BY 1").rows,
            sql(staged_path, "SELECT * FROM step_span ORDER BY 1").rows);
}

TEST(StagedWrites, FinishHandsTheBlocksPagesBack) {
  TempDir dir;
  const auto [direct, staged_path] = write_direct_and_staged(dir, [](Writer& w) {
    for (int chunk = 0; chunk < 20; ++chunk) {
      auto rows = ts::test::step_rows(1000);
      for (EventRow& r : rows) r.start_ns += std::int64_t{chunk} * 2'000'000'000;
      w.append(std::span<EventRow>(rows));
      w.commit();
    }
  });
  const auto size_direct = std::filesystem::file_size(direct);
  const auto size_staged = std::filesystem::file_size(staged_path);
  EXPECT_LE(size_staged, size_direct + size_direct / 20)
      << "staged " << size_staged << " bytes, direct " << size_direct;
}

TEST(StagedWrites, BlocksRoundTripEveryField) {
  std::vector<EventRow> rows{{-5, 7, 65535, 4'000'000'000u, 12, ts::store::kNull, 1 << 20, -1},
                             {1, 0, 0, 0, ts::store::kNull, 9, ts::store::kNull, 3}};
  ts::store::BlockEncoder encoder;
  encoder.append(rows);
  std::vector<ts::store::CounterRow> counters{{3, 17, 0.25}, {70000, -4, -1e300}};
  encoder.append(counters);
  std::vector<unsigned char> bytes = encoder.bytes();
  ts::store::DecodedBlock decoded;
  ASSERT_TRUE(ts::store::decode_block(bytes, decoded));
  const auto& back = decoded.events;
  ASSERT_EQ(back.size(), 2u);
  ASSERT_EQ(decoded.counters.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(decoded.counters[i].track, counters[i].track);
    EXPECT_EQ(decoded.counters[i].ts_ns, counters[i].ts_ns);
    EXPECT_EQ(decoded.counters[i].value, counters[i].value);
  }
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back[i].start_ns, rows[i].start_ns);
    EXPECT_EQ(back[i].dur_ns, rows[i].dur_ns);
    EXPECT_EQ(back[i].track, rows[i].track);
    EXPECT_EQ(back[i].label, rows[i].label);
    EXPECT_EQ(back[i].step, rows[i].step);
    EXPECT_EQ(back[i].bytes, rows[i].bytes);
    EXPECT_EQ(back[i].work_size, rows[i].work_size);
    EXPECT_EQ(back[i].correlation, rows[i].correlation);
  }
  bytes.pop_back();
  EXPECT_FALSE(ts::store::decode_block(bytes, decoded));
  EXPECT_EQ(decoded.events.size(), 2u) << "a failed decode leaves the output alone";
  EXPECT_EQ(decoded.counters.size(), 2u) << "a failed decode leaves the output alone";
}

// A killed capture's file with a block that a hostile edit cut short is refused by name.
TEST(StagedWrites, PartialBlockIsRefusedByName) {
  TempDir dir;
  const auto path = dir.file("bad.db");
  {
    Writer w(path, staged());
    ts::test::write_dictionary(w);
    auto rows = ts::test::step_rows(2);
    w.append(std::span<EventRow>(rows));
    w.commit();
    ts::test::exec_rw(path, "INSERT INTO event_block (data) VALUES (x'0102030405')");
    try {
      Reader r(path);
      FAIL() << "a partial block was accepted";
    } catch (const ts::store::Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(path), std::string::npos) << msg;
      EXPECT_NE(msg.find("staged event block"), std::string::npos) << msg;
    }
    ts::test::exec_rw(path, "DELETE FROM event_block WHERE length(data) = 5");
  }
}

// Records whose track cannot be a track (events.id holds 16 bits of it) are skipped.
TEST(StagedWrites, ImpossibleTracksInABlockAreSkipped) {
  TempDir dir;
  const auto path = dir.file("hostile.db");
  Writer w(path, staged());
  ts::test::write_dictionary(w);
  std::vector<EventRow> rows{{1'000'000'000, 5, 1, 1},
                             {1'000'000'010, 5, 4'000'000'000u, 1},
                             {1'000'000'020, 5, 70'000, 1}};
  w.append(std::span<EventRow>(rows));
  w.commit();
  Reader r(path);
  EXPECT_EQ(r.event_count(), 1);
}

// Typical capture rows take a fraction of their in-memory size, and every kind of damage to a
// block is refused rather than misread.
TEST(StagedWrites, BlocksAreCompactAndMalformedOnesAreRefused) {
  auto rows = ts::test::step_rows(100);
  ts::store::BlockEncoder encoder;
  encoder.append(rows);
  EXPECT_LE(encoder.size(), rows.size() * 14) << "bytes per event " << encoder.size() / rows.size();
  ts::store::DecodedBlock back;
  ASSERT_TRUE(ts::store::decode_block(encoder.bytes(), back));
  ASSERT_EQ(back.events.size(), rows.size());
  EXPECT_EQ(back.events.back().start_ns, rows.back().start_ns);

  const std::vector<unsigned char> good = encoder.bytes();
  auto bad = good;
  bad[0] = 7;  // unknown format
  EXPECT_FALSE(ts::store::decode_block(bad, back));
  bad = good;
  bad.pop_back();  // cut short
  EXPECT_FALSE(ts::store::decode_block(bad, back));
  bad = {ts::store::kBlockFormat, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F};
  EXPECT_FALSE(ts::store::decode_block(bad, back)) << "a varint past 64 bits";
  bad = {ts::store::kBlockFormat, 0x30, 1, 1, 1, 1};
  EXPECT_FALSE(ts::store::decode_block(bad, back)) << "unknown flags";
  bad = {ts::store::kBlockFormat, 0x10, 1, 1, 0, 0, 0};
  EXPECT_FALSE(ts::store::decode_block(bad, back)) << "a counter value cut short";
  EXPECT_EQ(back.events.size(), rows.size());
  EXPECT_TRUE(back.counters.empty());
}

TEST(StagedWrites, SchemaVersionOneFilesStillOpen) {
  TempDir dir;
  const auto current = dir.file("v3.db");
  {
    Writer w(current);
    ts::test::write_dictionary(w);
    auto rows = ts::test::step_rows(3);
    w.append(std::span<EventRow>(rows));
    w.finish();
  }
  const auto path = dir.file("v1.db");
  ts::test::write_older_version(current, path, 1);
  Reader r(path);
  EXPECT_EQ(r.schema_version(), 1);
  EXPECT_EQ(r.event_count(), 33);
}

}  // namespace

namespace {

TEST(StagedWrites, RecoverIndexesAKilledCapturesBlocksInPlace) {
  TempDir dir;
  const auto path = dir.file("killed.db");
  auto rows = ts::test::step_rows(5);
  {
    Writer w(path, staged());
    ts::test::write_dictionary(w);
    w.append(std::span<EventRow>(rows));
    w.commit();
    // As a SIGKILL would leave it: the -wal file holds the commits, nothing was indexed.
    std::filesystem::copy_file(path, dir.file("copy.db"));
    std::filesystem::copy_file(path + "-wal", dir.file("copy.db-wal"));
  }
  const auto copy = dir.file("copy.db");
  EXPECT_EQ(count(copy, "events"), "0");
  EXPECT_EQ(ts::store::recover(copy).events_indexed, rows.size());
  EXPECT_EQ(count(copy, "events"), std::to_string(rows.size()));
  EXPECT_EQ(count(copy, "steps"), "5");
  EXPECT_EQ(count(copy, "event_block"), "0");
  EXPECT_FALSE(std::filesystem::exists(copy + "-wal"));
  EXPECT_EQ(ts::store::recover(copy).events_indexed, 0u) << "a second run has nothing to do";
  EXPECT_THROW(ts::store::recover(dir.file("missing.db")), ts::store::Error);
}

}  // namespace
