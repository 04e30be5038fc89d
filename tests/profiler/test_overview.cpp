// The trace's stored overview (profiler/store/overview*.hpp): built from the events as the
// reader returns them, stored by Writer::finish and by recover, never taken from a trace whose
// staged events were indexed on opening, and decoded defensively.
#include <gtest/gtest.h>

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "profiler/store/overview_builder.hpp"
#include "profiler/store/overview_codec.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/recover.hpp"
#include "profiler/store/writer.hpp"
#include "tests/profiler/store_fixture.hpp"
#include "tests/profiler/test_util.hpp"

namespace {

using ts::store::EventRow;
using ts::store::Overview;
using ts::store::Reader;
using ts::store::Writer;
using ts::test::TempDir;

// step_rows(steps) plus two counter samples per step on track 3.
std::string trace_with_counters(const TempDir& dir, int steps,
                                const ts::store::WriterOptions& o = {}) {
  const std::string path = dir.file("trace.db");
  Writer w(path, o);
  ts::test::write_dictionary(w);
  auto rows = ts::test::step_rows(steps);
  w.append(std::span<const EventRow>(rows));
  std::vector<ts::store::CounterRow> fill;
  for (int s = 0; s < steps; ++s) {
    fill.push_back({3, 1'000'000'000 + s * 1'000'000LL, 1.0 + s});
    fill.push_back({3, 1'000'500'000 + s * 1'000'000LL, 0.5});
  }
  w.append(std::span<const ts::store::CounterRow>(fill));
  w.finish();
  return path;
}

std::size_t zones(const Overview& o, std::uint32_t track, std::size_t depth) {
  const auto* t = o.rows_of(track);
  return t && depth < t->rows.size() ? t->rows[depth].zones.size() : 0;
}

TEST(Overview, HoldsEveryEventByTrackAndDepth) {
  TempDir dir;
  const std::string path = trace_with_counters(dir, 3);
  const Reader reader(path);
  const Overview o = ts::store::build_overview(reader);
  // 3 ms of trace: a bin is about 46 ns, so every event (50 us or longer) stays a zone of its own.
  EXPECT_EQ(o.events, 33u);
  EXPECT_EQ(zones(o, 1, 0), 3u);        // the steps
  EXPECT_EQ(zones(o, 1, 1), 15u);       // "fwd", nested in them
  EXPECT_EQ(zones(o, 2, 0), 15u);       // "gemm" kernels
  EXPECT_EQ(o.rows_of(3), nullptr);     // a counter track has no rows...
  ASSERT_NE(o.counter_of(3), nullptr);  // ...but a series
  EXPECT_EQ(o.counter_of(3)->ts_ns.size(), 6u);
  EXPECT_EQ(o.counter_of(3)->max, 3.0);
  EXPECT_EQ(o.counter_of(3)->min, 0.5);
  ASSERT_EQ(o.labels.size(), 3u);
  EXPECT_EQ(o.labels.at(3).count, 3u);
  EXPECT_EQ(o.labels.at(3).name, "step");
  EXPECT_EQ(o.labels.at(1).count, 15u);
  EXPECT_EQ(o.labels.at(2).category, ts::trace::Category::kernel);
  const auto range = reader.time_range();
  EXPECT_EQ(o.begin_ns, range.start_ns);
  EXPECT_EQ(o.end_ns, range.end_ns);
}

TEST(Overview, RunsOfShortEventsMergeAtTheResolution) {
  TempDir dir;
  const std::string path = dir.file("long.db");
  {
    Writer w(path);
    ts::test::write_dictionary(w);
    std::vector<EventRow> rows;
    // 1000 kernels of 1 us, 2 us apart, then one at 16.384 s: the bin is 1 ms, so the thousand
    // become runs no wider than 4 ms, each counting its events.
    for (int k = 0; k < 1000; ++k) rows.push_back({k * 2'000LL, 1'000, 2, 2});
    rows.push_back({16'384'000'000LL - 1'000, 1'000, 2, 2});
    w.append(std::span<const EventRow>(rows));
  }
  const Overview o = ts::store::build_overview(Reader(path));
  EXPECT_DOUBLE_EQ(o.resolution_ns, 1e6);
  const auto& row = o.rows_of(2)->rows.at(0);
  EXPECT_EQ(row.events(0, row.zones.size()), 1001u);
  EXPECT_LE(row.zones.size(), 3u);  // 2 ms of kernels: one run (the last event on its own)
  EXPECT_EQ(row.zones.front().count, 1000u);
  EXPECT_EQ(row.zones.front().start_ns, 0);
  EXPECT_EQ(row.zones.front().end_ns, 999 * 2'000 + 1'000);
}

TEST(Overview, FinishStoresItAndReadersDecodeWhatWasBuilt) {
  TempDir dir;
  const std::string path = trace_with_counters(dir, 50);
  EXPECT_NE(ts::test::sql(path, "SELECT count(*) FROM overview").rows.at(0).at(0), "0");
  const Reader reader(path);
  const auto stored = ts::store::stored_overview(reader);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(ts::store::encode_overview(*stored),
            ts::store::encode_overview(ts::store::build_overview(reader)));
}

TEST(Overview, WritersCanLeaveItOut) {
  TempDir dir;
  ts::store::WriterOptions o;
  o.overview = false;
  const std::string path = trace_with_counters(dir, 5, o);
  EXPECT_EQ(ts::test::sql(path, "SELECT count(*) FROM overview").rows.at(0).at(0), "0");
  EXPECT_FALSE(ts::store::stored_overview(Reader(path)).has_value());
  EXPECT_TRUE(ts::store::store_overview(path));
  EXPECT_TRUE(ts::store::stored_overview(Reader(path)).has_value());
}

TEST(Overview, EncodingRoundTripsAndTheDecoderRefusesDamage) {
  TempDir dir;
  const Overview o = ts::store::build_overview(Reader(trace_with_counters(dir, 20)));
  const std::string bytes = ts::store::encode_overview(o);
  const auto back = ts::store::decode_overview(bytes);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(ts::store::encode_overview(*back), bytes);
  for (std::size_t n = 0; n < bytes.size(); ++n)
    EXPECT_FALSE(ts::store::decode_overview(std::string_view(bytes).substr(0, n)).has_value())
        << "cut to " << n << " bytes";
  EXPECT_FALSE(ts::store::decode_overview(bytes + '\0').has_value());
  // Any byte changed: refused or decoded, never a crash, a hang or a giant allocation.
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0xFF);
    const auto d = ts::store::decode_overview(bad);
    if (!d) continue;
    for (const auto& t : d->tracks)
      for (const auto& r : t.rows)
        for (std::size_t z = 1; z < r.zones.size(); ++z)
          ASSERT_LE(r.zones[z - 1].end_ns, r.zones[z].start_ns);  // never overlapping
  }
}

// Lanes are looked up by track id, by bisection: a trace may hold tens of thousands of tracks.
TEST(Overview, FindsEachTrackByIdAndRefusesTracksOutOfOrder) {
  Overview o;
  for (const std::uint32_t id : {9u, 2u, 40'000u, 5u}) o.tracks.push_back({id, {}});
  ts::store::order_by_track(o.tracks);
  for (const std::uint32_t id : {2u, 5u, 9u, 40'000u}) {
    ASSERT_NE(o.rows_of(id), nullptr) << id;
    EXPECT_EQ(o.rows_of(id)->track, id);
  }
  for (const std::uint32_t id : {0u, 3u, 10u, 40'001u}) EXPECT_EQ(o.rows_of(id), nullptr) << id;
  EXPECT_EQ(o.counter_of(2), nullptr);

  o.has_extent = true;
  o.end_ns = 10;
  ASSERT_TRUE(ts::store::decode_overview(ts::store::encode_overview(o)).has_value());
  std::swap(o.tracks[0], o.tracks[1]);  // a file claiming its tracks in another order
  EXPECT_FALSE(ts::store::decode_overview(ts::store::encode_overview(o)).has_value());
}

TEST(Overview, ADamagedStoredOverviewIsIgnored) {
  TempDir dir;
  const std::string path = trace_with_counters(dir, 5);
  ts::test::exec_rw(path, "UPDATE overview SET data = x'54534f5601ff'");
  const Reader reader(path);  // the trace itself opens
  EXPECT_FALSE(ts::store::stored_overview(reader).has_value());
}

TEST(Overview, AKilledCaptureHasNoneUntilRecovered) {
  TempDir dir;
  const auto path = dir.file("killed.db");
  auto rows = ts::test::step_rows(5);
  {
    ts::store::WriterOptions o;
    o.staged = true;
    Writer w(path, o);
    ts::test::write_dictionary(w);
    w.append(std::span<EventRow>(rows));
    w.commit();
    std::filesystem::copy_file(path, dir.file("copy.db"));
    std::filesystem::copy_file(path + "-wal", dir.file("copy.db-wal"));
  }
  const auto copy = dir.file("copy.db");
  {
    const Reader reader(copy);
    EXPECT_TRUE(reader.staged_events_indexed());
    EXPECT_TRUE(reader.overview_bytes().empty());
  }
  const auto r = ts::store::recover(copy);
  EXPECT_EQ(r.events_indexed, rows.size());
  EXPECT_TRUE(r.overview_stored);
  const Reader reader(copy);
  const auto o = ts::store::stored_overview(reader);
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->events, rows.size());
}

}  // namespace
