// store::merge_traces and store::merge_job: several processes' traces into one, one process
// per part, renumbered, on one clock; a job's parts with ranks missing, killed or on other hosts.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "profiler/store/job_merge.hpp"
#include "profiler/store/merge.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/writer.hpp"
#include "tests/profiler/store_fixture.hpp"
#include "tests/profiler/test_util.hpp"

namespace {

using ts::store::EventRow;
using ts::store::kNull;
using ts::store::MergePart;
using ts::store::Reader;
using ts::store::Writer;
using ts::test::TempDir;

using Meta = std::vector<std::pair<std::string, std::string>>;

// A part like a rank's capture: the fixture's dictionary (ids shifted by `id_shift`, so parts
// number the same strings differently), `steps` 1 ms steps from 1 s moved by `clock_shift`
// (this process's clock minus the job's), a counter, and `meta`.
void write_part(const std::string& path, int steps, std::int64_t clock_shift, const Meta& meta,
                std::uint32_t id_shift = 0, double drift = 0) {
  Writer w(path);
  const std::uint32_t s = id_shift;
  w.put_string(10 + s, "step");  // a string only some parts have, at another id
  w.put_string(1 + s, "fwd");
  w.put_string(2 + s, "gemm");
  w.put_string(3 + s, "step");
  w.put_string(4 + s, "model.cpp");
  w.put_label(1 + s, 1 + s, ts::trace::Category::host_compute, 4 + s, 12);
  w.put_label(2 + s, 2 + s, ts::trace::Category::kernel);
  w.put_label(3 + s, 3 + s, ts::trace::Category::step);
  w.put_label(4 + s, 2 + s, ts::trace::Category::collective);
  w.put_track(1 + s, "main", ts::trace::TrackKind::thread, 4242);
  w.put_track(2 + s, "gpu0", ts::trace::TrackKind::device_queue);
  w.put_track(3 + s, "fill", ts::trace::TrackKind::counter);
  w.put_meta("clock.origin_ns", std::to_string(1'000'000'000 + clock_shift));
  for (const auto& [k, v] : meta) w.put_meta(k, v);
  std::vector<EventRow> rows = ts::test::step_rows(steps);
  for (EventRow& r : rows) {
    r.start_ns += clock_shift + static_cast<std::int64_t>(drift * (r.start_ns - 1'000'000'000));
    r.track += s;
    r.label += s;
  }
  rows.push_back({rows.back().start_ns + 1, 7, 1 + s, 4 + s, steps - 1, 4096});  // a collective
  w.append(std::span<const EventRow>(rows));
  std::vector<ts::store::CounterRow> fill{
      {3 + s, 1'000'100'000 + clock_shift + static_cast<std::int64_t>(drift * 100'000), 2.0}};
  w.append(std::span<const ts::store::CounterRow>(fill));
  w.finish();
}

MergePart part(const std::string& path, const std::string& name, std::int64_t rank,
               std::int64_t pid = kNull, const std::string& host = "") {
  MergePart p;
  p.path = path;
  p.name = name;
  p.rank = rank;
  p.pid = pid;
  p.host = host;
  p.meta_prefix = "rank." + std::to_string(rank) + ".";
  return p;
}

std::map<std::string, std::string> meta_of(const Reader& r) {
  std::map<std::string, std::string> m;
  for (auto& [k, v] : r.meta()) m[k] = v;
  return m;
}

TEST(Merge, OneProcessPerPartWithItsTracksStepsAndArguments) {
  TempDir dir;
  write_part(dir.file("a.db"), 4, 0, {{"pipeline.preset", "tuned"}, {"engine.model", "mlp"}});
  write_part(dir.file("b.db"), 4, 0, {{"pipeline.preset", "naive"}, {"engine.model", "mlp"}}, 100);
  std::vector<MergePart> parts{part(dir.file("a.db"), "rank 0 (h pid 1)", 0, 1, "h"),
                               part(dir.file("b.db"), "rank 1 (h pid 2)", 1, 2, "h")};
  ts::store::MergeMeta meta;
  meta.extra = {{"dist.world_size", "2"}};
  const auto result = ts::store::merge_traces(parts, dir.file("job.db"), meta);

  const Reader r(dir.file("job.db"));
  ASSERT_EQ(r.processes().size(), 2u);
  EXPECT_EQ(r.processes()[1].name, "rank 1 (h pid 2)");
  EXPECT_EQ(r.processes()[1].rank, 1);
  EXPECT_EQ(r.processes()[1].pid, 2);
  EXPECT_EQ(r.processes()[1].host, "h");
  ASSERT_EQ(r.tracks().size(), 6u);
  EXPECT_EQ(result.tracks, 6u);
  for (const auto& t : r.tracks()) EXPECT_EQ(t.process, t.id <= 3 ? 1 : 2) << t.name;
  const std::int64_t per_part = 4 * 11 + 1;
  EXPECT_EQ(r.event_count(), 2 * per_part);
  EXPECT_EQ(result.events, static_cast<std::uint64_t>(2 * per_part));

  // Steps keep their numbers, each rank its own.
  const auto steps = r.steps();
  ASSERT_EQ(steps.size(), 8u);
  std::map<std::int64_t, int> per_step;
  for (const auto& s : steps) ++per_step[s.step];
  for (int s = 0; s < 4; ++s) EXPECT_EQ(per_step[s], 2);
  // Labels renumbered but named; arguments kept; the collective's bytes kept.
  int kernels = 0, collectives = 0;
  for (const auto& e : r.events(0, INT64_MAX)) {
    if (e.category == ts::trace::Category::kernel) {
      ++kernels;
      EXPECT_EQ(r.name(e), "gemm");
      EXPECT_EQ(r.args(e).correlation, e.step);
      EXPECT_EQ(r.args(e).work_size, 64);
    }
    if (e.category == ts::trace::Category::collective) {
      ++collectives;
      EXPECT_EQ(e.bytes, 4096);
    }
    if (e.category == ts::trace::Category::host_compute) {
      EXPECT_EQ(r.label(e.label).file, "model.cpp");
    }
  }
  EXPECT_EQ(kernels, 40);
  EXPECT_EQ(collectives, 2);
  EXPECT_EQ(r.counter(3, 0, INT64_MAX).size(), 1u);
  EXPECT_EQ(r.counter(6, 0, INT64_MAX).size(), 1u);

  const auto m = meta_of(r);
  EXPECT_EQ(m.at("pipeline.preset"), "tuned");
  EXPECT_EQ(m.at("rank.1.pipeline.preset"), "naive");
  EXPECT_EQ(m.count("rank.1.engine.model"), 0u) << "equal values are not repeated";
  EXPECT_EQ(m.at("dist.world_size"), "2");
  EXPECT_EQ(m.at("clock.origin_ns"), "1000000000");
}

TEST(Merge, MovesEachPartOntoTheMergedClock) {
  TempDir dir;
  // Rank 1's clock is 5 s ahead and runs 100 ppm fast: the same steps, other timestamps.
  const std::int64_t ahead = 5'000'000'000;
  const double drift = 1e-4;
  write_part(dir.file("a.db"), 6, 0, {});
  write_part(dir.file("b.db"), 6, ahead, {}, 0, drift);
  std::vector<MergePart> parts{part(dir.file("a.db"), "rank 0", 0),
                               part(dir.file("b.db"), "rank 1", 1)};
  parts[1].offset_ns = ahead;
  parts[1].ref_ns = 1'000'000'000 + ahead;
  parts[1].drift = drift;
  ts::store::merge_traces(parts, dir.file("job.db"));

  const Reader r(dir.file("job.db"));
  std::map<std::int64_t, std::vector<std::int64_t>> starts;  // step -> starts, one per rank
  for (const auto& s : r.steps()) starts[s.step].push_back(s.start_ns);
  ASSERT_EQ(starts.size(), 6u);
  for (const auto& [step, v] : starts) {
    ASSERT_EQ(v.size(), 2u);
    EXPECT_LE(std::llabs(v[0] - v[1]), 1) << "step " << step << " lines up across the ranks";
  }
  EXPECT_EQ(r.counter(3, 0, INT64_MAX).at(0).ts_ns, r.counter(6, 0, INT64_MAX).at(0).ts_ns);
  EXPECT_EQ(meta_of(r).at("clock.origin_ns"), "1000000000");

  // Without the offset the ranks would be 5 s apart: the test above is not vacuous.
  parts[1].offset_ns = 0;
  parts[1].drift = 0;
  ts::store::merge_traces(parts, dir.file("raw.db"));
  const Reader raw(dir.file("raw.db"));
  EXPECT_EQ(raw.steps().back().start_ns - raw.steps().front().start_ns, ahead + 5'000'000 + 500);
}

TEST(Merge, RefusesWhatItCannotMerge) {
  TempDir dir;
  write_part(dir.file("a.db"), 2, 0, {});
  std::vector<MergePart> parts{part(dir.file("a.db"), "rank 0", 0)};
  ts::test::write_file(dir.file("notes.txt"), "not a trace");
  EXPECT_THROW(ts::store::merge_traces(parts, dir.file("notes.txt")), ts::store::Error);
  EXPECT_EQ(ts::test::read_file(dir.file("notes.txt")), "not a trace");
  EXPECT_THROW(ts::store::merge_traces(parts, dir.file("a.db")), ts::store::Error);
  EXPECT_THROW(ts::store::merge_traces({}, dir.file("out.db")), ts::store::Error);
  parts.push_back(part(dir.file("missing.db"), "rank 1", 1));
  EXPECT_THROW(ts::store::merge_traces(parts, dir.file("out.db")), ts::store::Error);
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.db")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.db.merging")));
}

// A rank's part as `trainscope train` writes it under mpirun.
Meta rank_meta(int rank, int world, const std::string& host = "h", const std::string& job = "7") {
  return {{"dist.rank", std::to_string(rank)},
          {"dist.world_size", std::to_string(world)},
          {"dist.job_id", job},
          {"dist.backend", "mpi"},
          {"dist.host", host},
          {"dist.boot_id", "boot-" + host},
          {"process.pid", std::to_string(100 + rank)},
          {"capture.end_ns", "2000000000"}};
}

TEST(MergeJob, FindsThePartsOfATraceInRankOrder) {
  TempDir dir;
  const std::string trace = dir.file("job.db");
  for (int r : {10, 2, 0}) ts::test::write_file(ts::store::part_path(trace, r), "");
  ts::test::write_file(trace + ".rankX.part", "");
  ts::test::write_file(trace + ".rank3.part-wal", "");
  const auto found = ts::store::find_parts(trace);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0], trace + ".rank0.part");
  EXPECT_EQ(found[1], trace + ".rank2.part");
  EXPECT_EQ(found[2], trace + ".rank10.part");
}

TEST(MergeJob, RecordsAbsentAndKilledRanksAndKeepsTheSurvivors) {
  TempDir dir;
  const std::string trace = dir.file("job.db");
  // Rank 0 committed on the launcher's SIGTERM; rank 1 has no part; rank 2 was killed: its
  // capture never stopped (no capture.end_ns) and left its events staged.
  Meta m0 = rank_meta(0, 4);
  m0.erase(m0.end() - 1);
  m0.emplace_back("dist.terminated_ns", "1500000000");
  write_part(ts::store::part_path(trace, 0), 5, 0, m0);
  {
    Meta m2 = rank_meta(2, 4);
    m2.erase(m2.end() - 1);
    const std::string tmp = dir.file("live.db");
    ts::store::WriterOptions staged;
    staged.staged = true;
    Writer w(tmp, staged);
    ts::test::write_dictionary(w);
    for (const auto& [k, v] : m2) w.put_meta(k, v);
    auto rows = ts::test::step_rows(3);
    w.append(std::span<const EventRow>(rows));
    w.commit();
    std::filesystem::copy_file(tmp, ts::store::part_path(trace, 2));  // as SIGKILL leaves it
    std::filesystem::copy_file(tmp + "-wal", ts::store::part_path(trace, 2) + "-wal");
  }
  Meta m3 = rank_meta(3, 4);
  m3.emplace_back("dist.failed", "cannot read sample 12");
  write_part(ts::store::part_path(trace, 3), 5, 0, m3);
  // A stale part of an earlier job is left out.
  write_part(ts::store::part_path(trace, 1) + ".old", 1, 0, rank_meta(1, 4, "h", "6"));
  std::vector<std::string> parts = ts::store::find_parts(trace);
  parts.push_back(ts::store::part_path(trace, 1) + ".old");

  const ts::store::JobMerge job = ts::store::merge_job(parts, trace);
  EXPECT_EQ(job.world_size, 4);
  EXPECT_EQ(job.merged, (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(job.absent, (std::vector<ts::store::RankRange>{{1, 1}}));
  EXPECT_EQ(job.cut_short, (std::vector<int>{2}));
  EXPECT_EQ(job.recovered, (std::vector<int>{2})) << "the killed part's staged events indexed";
  ASSERT_EQ(job.warnings.size(), 1u);
  EXPECT_NE(job.warnings[0].find("another job"), std::string::npos) << job.warnings[0];

  const Reader r(trace);
  ASSERT_EQ(r.processes().size(), 3u);
  EXPECT_EQ(r.processes()[1].rank, 2);
  EXPECT_EQ(r.processes()[1].name, "rank 2 (h pid 102)");
  EXPECT_EQ(r.event_count(), 2 * (5 * 11 + 1) + 3 * 11) << "every surviving event is there";
  const auto m = meta_of(r);
  EXPECT_EQ(m.at("dist.missing_ranks"), "1,2");
  EXPECT_EQ(m.at("dist.absent_ranks"), "1");
  EXPECT_EQ(m.at("dist.cut_short_ranks"), "2");
  EXPECT_EQ(m.at("dist.world_size"), "4");
  EXPECT_EQ(m.at("dist.ranks"), "3");
  EXPECT_EQ(m.at("rank.0.dist.state"), "terminated");
  EXPECT_EQ(m.at("rank.2.dist.state"), "killed");
  EXPECT_EQ(m.at("rank.3.dist.state"), "failed");
  EXPECT_EQ(m.at("rank.3.dist.failed"), "cannot read sample 12");
  EXPECT_EQ(m.at("clock.alignment"), "monotonic");
  EXPECT_EQ(m.count("dist.rank"), 0u) << "a part's own bookkeeping is not the job's";
}

TEST(MergeJob, MovesRanksOnOtherHostsByTheirMeasuredOffset) {
  TempDir dir;
  const std::string trace = dir.file("job.db");
  // Rank 1's host clock is 3 s ahead of rank 0's and runs 100 ppm fast: measured at rank 0's
  // 1 s and again at 2 s. (Applying the drift from rank 0's 1 s instead of rank 1's would put
  // its steps 300 us off.)
  const std::int64_t ahead = 3'000'000'000;
  const double drift = 1e-4;
  write_part(ts::store::part_path(trace, 0), 4, 0, rank_meta(0, 3));
  Meta m1 = rank_meta(1, 3, "other");
  m1.insert(m1.end(), {{"dist.clock.offset_ns", std::to_string(ahead)},
                       {"dist.clock.error_ns", "900"},
                       {"dist.clock.at_ns", "1000000000"},
                       {"dist.clock.end_offset_ns", std::to_string(ahead + 100'000)},
                       {"dist.clock.end_at_ns", "2000000000"}});
  write_part(ts::store::part_path(trace, 1), 4, ahead, m1, 0, drift);
  // Rank 2 shares rank 0's host: its tiny measured offset is the measurement's error, not moved.
  Meta m2 = rank_meta(2, 3);
  m2.insert(m2.end(), {{"dist.clock.offset_ns", "40"}, {"dist.clock.error_ns", "150"}});
  write_part(ts::store::part_path(trace, 2), 4, 0, m2);

  const ts::store::JobMerge job = ts::store::merge_job(ts::store::find_parts(trace), trace);
  EXPECT_EQ(job.alignment, "mpi_ping_pong");
  const Reader r(trace);
  std::map<std::int64_t, std::vector<std::int64_t>> starts;
  for (const auto& s : r.steps()) starts[s.step].push_back(s.start_ns);
  for (const auto& [step, v] : starts) {
    ASSERT_EQ(v.size(), 3u);
    EXPECT_LE(std::llabs(v[0] - v[1]), 1) << "step " << step;
    EXPECT_EQ(v[0], v[2]) << "step " << step;
  }
  const auto m = meta_of(r);
  EXPECT_EQ(m.at("clock.alignment"), "mpi_ping_pong");
  EXPECT_EQ(m.at("clock.rank.1.offset_ns"), std::to_string(ahead));
  EXPECT_EQ(m.at("clock.rank.1.error_ns"), "900");
  EXPECT_EQ(m.at("clock.rank.2.offset_ns"), "0");
  EXPECT_EQ(m.at("clock.rank.2.measured_offset_ns"), "40");
  EXPECT_EQ(m.at("dist.missing_ranks"), "");
  EXPECT_EQ(m.at("rank.1.dist.state"), "complete");
}

TEST(MergeJob, ManyPartsStayWithinTheTrackLimit) {
  TempDir dir;
  const std::string trace = dir.file("job.db");
  const int ranks = 24;
  for (int r = 0; r < ranks; ++r)
    write_part(ts::store::part_path(trace, r), 2, 0, rank_meta(r, ranks));
  const auto job = ts::store::merge_job(ts::store::find_parts(trace), trace);
  EXPECT_EQ(job.merged.size(), static_cast<std::size_t>(ranks));
  const Reader r(trace);
  EXPECT_EQ(r.processes().size(), static_cast<std::size_t>(ranks));
  EXPECT_EQ(r.tracks().size(), static_cast<std::size_t>(3 * ranks));
  EXPECT_EQ(r.steps().size(), static_cast<std::size_t>(2 * ranks));
}

// What a part claims decides no allocation: a world of a billion ranks costs one run of absent
// ranks, and a rank at the int limit (rank + 1 would overflow) or negative is left out by name.
TEST(MergeJob, ClaimedRanksAndWorldSizesDecideNoAllocation) {
  TempDir dir;
  const std::string trace = dir.file("job.db");
  Meta m0 = rank_meta(0, 4);
  m0[1].second = "1000000000";  // dist.world_size
  write_part(ts::store::part_path(trace, 0), 2, 0, m0);
  write_part(ts::store::part_path(trace, 2), 2, 0, rank_meta(2, 4));
  Meta huge = rank_meta(5, 4);
  huge[0].second = "2147483647";  // dist.rank: the int limit
  write_part(dir.file("huge.part"), 2, 0, huge);
  Meta negative = rank_meta(6, 4);
  negative[0].second = "-3";
  write_part(dir.file("negative.part"), 2, 0, negative);
  std::vector<std::string> parts = ts::store::find_parts(trace);
  parts.push_back(dir.file("huge.part"));
  parts.push_back(dir.file("negative.part"));

  const ts::store::JobMerge job = ts::store::merge_job(parts, trace);
  EXPECT_EQ(job.world_size, 1000000000);
  EXPECT_EQ(job.merged, (std::vector<int>{0, 2}));
  EXPECT_EQ(job.absent, (std::vector<ts::store::RankRange>{{1, 1}, {3, 999999999}}));
  ASSERT_EQ(job.warnings.size(), 2u);
  EXPECT_NE(job.warnings[0].find("dist.rank 2147483647 is not a rank"), std::string::npos)
      << job.warnings[0];
  EXPECT_NE(job.warnings[1].find("dist.rank -3 is not a rank"), std::string::npos)
      << job.warnings[1];
  const auto m = meta_of(Reader(trace));
  EXPECT_EQ(m.at("dist.absent_ranks"), "1,3-999999999");
  EXPECT_EQ(m.at("dist.missing_ranks"), "1,3-999999999");
}

TEST(MergeJob, RanksAreWrittenAsRuns) {
  using ts::store::RankRange;
  const std::vector<RankRange> runs = {{1, 1}, {3, 4}, {7, 9}};
  EXPECT_EQ(ts::store::format_ranks(runs), "1,3,4,7-9");
  EXPECT_EQ(ts::store::format_ranks(runs, ", "), "1, 3, 4, 7-9");
  const std::vector<int> present = {0, 2, 5};
  EXPECT_EQ(ts::store::ranks_absent(present, 8), (std::vector<RankRange>{{1, 1}, {3, 4}, {6, 7}}));
  EXPECT_EQ(ts::store::ranks_absent(present, 6), (std::vector<RankRange>{{1, 1}, {3, 4}}));
  EXPECT_TRUE(ts::store::ranks_absent(std::vector<int>{0, 1}, 2).empty());
}

}  // namespace
