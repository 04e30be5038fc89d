// The events of several files spilled as sorted runs and written merged (common/event_runs.hpp,
// common/trace_sink.hpp): the merge against a stable sort of the same rows, ranges of starts, the
// file left behind (none), and a trace written from runs against the one written file by file.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <random>
#include <tuple>
#include <vector>

#include "profiler/import/common/event_runs.hpp"
#include "profiler/import/common/trace_sink.hpp"
#include "profiler/store/error.hpp"
#include "profiler/store/event_key.hpp"
#include "tests/profiler/import/import_test_util.hpp"

namespace ts::import {
namespace {

using store::EventRow;
using store::kNull;

auto fields(const EventRow& r) {
  return std::tuple(r.start_ns, r.dur_ns, r.track, r.label, r.step, r.bytes, r.work_size,
                    r.correlation);
}

bool key_less(const EventRow& a, const EventRow& b) {
  return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.track < b.track;
}

// `runs` runs of random rows, each on tracks of its own and in (start, track) order, with ties
// (rows of one start and track) whose order must survive, optional fields and extreme values.
std::vector<std::vector<EventRow>> random_runs(std::size_t runs, std::uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<EventRow>> out(runs);
  for (std::size_t k = 0; k < runs; ++k) {
    const std::size_t n = k % 7 == 3 ? 0 : rng() % 3000;  // some runs are empty
    std::int64_t t = static_cast<std::int64_t>(rng() % 1000000);
    for (std::size_t i = 0; i < n; ++i) {
      EventRow r;
      if (rng() % 4 != 0) t += static_cast<std::int64_t>(rng() % 5000);
      r.start_ns = t;
      r.dur_ns = static_cast<std::int64_t>(rng() % 100000);
      r.track = static_cast<std::uint32_t>(1 + 2 * k + rng() % 2);
      r.label = static_cast<std::uint32_t>(i + 1);  // tells ties apart
      if (rng() % 3 == 0) r.step = static_cast<std::int64_t>(rng() % 100);
      if (rng() % 5 == 0) r.bytes = static_cast<std::int64_t>(rng());
      if (rng() % 7 == 0) r.work_size = static_cast<std::int64_t>(rng() % 65536);
      if (rng() % 2 == 0) r.correlation = -static_cast<std::int64_t>(rng() % 1000);
      out[k].push_back(r);
    }
    std::stable_sort(out[k].begin(), out[k].end(), key_less);
  }
  if (runs > 1)
    out[1].push_back({INT64_MAX - 5, INT64_MAX, 3, 7, INT64_MIN + 1, INT64_MAX, 0, INT64_MAX});
  return out;
}

std::vector<EventRow> merged(EventRuns& runs, std::int64_t first, std::int64_t last) {
  std::vector<EventRow> out;
  runs.merge(first, last, [&](std::span<const EventRow> rows) {
    EXPECT_LE(rows.size(), EventRuns::kBatchRows);
    out.insert(out.end(), rows.begin(), rows.end());
  });
  return out;
}

void expect_same(const std::vector<EventRow>& got, const std::vector<EventRow>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(fields(got[i]), fields(want[i])) << "row " << i;
}

// Adds each of `runs` as a run, in parts of `part` rows; returns every row in the order a merge
// gives them (a stable sort by key of the runs one after another).
std::vector<EventRow> spill(EventRuns& spilled, const std::vector<std::vector<EventRow>>& runs,
                            std::size_t part = SIZE_MAX) {
  std::vector<EventRow> all;
  for (const auto& run : runs) {
    for (std::size_t i = 0; i < run.size(); i += part)
      spilled.add(std::span(run).subspan(i, std::min(part, run.size() - i)));
    spilled.end_run();
    all.insert(all.end(), run.begin(), run.end());
  }
  std::stable_sort(all.begin(), all.end(), key_less);
  return all;
}

TEST(EventRuns, MergesTheRunsInKeyOrderAndKeepsTheirTies) {
  test::ImportDir dir;
  const auto runs = random_runs(40, 7);
  EventRuns spilled(dir.path().string(), 1024);                  // small blocks: many per run
  const std::vector<EventRow> want = spill(spilled, runs, 333);  // runs added in parts
  EXPECT_EQ(spilled.rows(), want.size());
  EXPECT_EQ(spilled.runs(), 40u - 6u);  // the empty runs are dropped
  expect_same(merged(spilled, INT64_MIN, INT64_MAX), want);
  // Again: merging reads the file, it does not use the runs up.
  expect_same(merged(spilled, INT64_MIN, INT64_MAX), want);
  // About a dozen bytes an event.
  EXPECT_LT(spilled.file_bytes(), want.size() * 24);
}

// Runs sharing tracks and starts: a tie between runs goes to the earlier run, whatever the
// number of runs (each count plays a different shape of tournament).
TEST(EventRuns, TiesBetweenRunsGoToTheEarlierRun) {
  for (const std::size_t count : {1, 2, 3, 5, 8, 17}) {
    test::ImportDir dir;
    std::mt19937_64 rng(count);
    std::vector<std::vector<EventRow>> runs(count);
    for (std::size_t k = 0; k < count; ++k) {
      for (std::uint32_t i = 0; i < 200; ++i) {
        EventRow r;
        r.start_ns = static_cast<std::int64_t>(rng() % 50);  // many equal starts
        r.track = static_cast<std::uint32_t>(rng() % 2);     // on shared tracks
        r.label = static_cast<std::uint32_t>(k * 1000 + i);  // names the run and the row
        runs[k].push_back(r);
      }
      std::stable_sort(runs[k].begin(), runs[k].end(), key_less);
    }
    EventRuns spilled(dir.path().string(), 1024);
    const std::vector<EventRow> want = spill(spilled, runs);
    expect_same(merged(spilled, INT64_MIN, INT64_MAX), want);
    expect_same(merged(spilled, 10, 20), [&] {
      std::vector<EventRow> in;
      for (const EventRow& r : want)
        if (r.start_ns >= 10 && r.start_ns <= 20) in.push_back(r);
      return in;
    }());
  }
}

// More runs than are merged at once (a job of thousands of ranks): groups of them are merged into
// longer runs first, in as many passes as it takes, and the rows come out as from one merge.
TEST(EventRuns, ManyRunsAreMergedInPassesWithTheSameResult) {
  test::ImportDir dir;
  const auto runs = random_runs(40, 5);
  EventRuns spilled(dir.path().string(), 1024, 3);  // 34 runs -> 12 -> 4 -> 2
  const std::vector<EventRow> want = spill(spilled, runs);
  const std::uint64_t bytes = spilled.file_bytes();
  expect_same(merged(spilled, INT64_MIN, INT64_MAX), want);
  EXPECT_LE(spilled.runs(), 3u);
  EXPECT_GT(spilled.file_bytes(), bytes);  // the longer runs were written after the others
  EXPECT_EQ(spilled.rows(), want.size());
  expect_same(merged(spilled, INT64_MIN, INT64_MAX), want);
  const std::int64_t cut = want[want.size() / 2].start_ns;
  std::vector<EventRow> before;
  for (const EventRow& r : want)
    if (r.start_ns < cut) before.push_back(r);
  expect_same(merged(spilled, INT64_MIN, cut - 1), before);
}

TEST(EventRuns, MergesTheRowsOfARangeOfStarts) {
  test::ImportDir dir;
  const auto runs = random_runs(9, 11);
  EventRuns spilled(dir.path().string(), 4096);
  const std::vector<EventRow> all = spill(spilled, runs);
  const std::int64_t cut = all[all.size() / 3].start_ns;
  const auto in = [&](std::int64_t first, std::int64_t last) {
    std::vector<EventRow> out;
    for (const EventRow& r : all)
      if (r.start_ns >= first && r.start_ns <= last) out.push_back(r);
    return out;
  };
  expect_same(merged(spilled, cut, INT64_MAX), in(cut, INT64_MAX));
  expect_same(merged(spilled, INT64_MIN, cut - 1), in(INT64_MIN, cut - 1));
  expect_same(merged(spilled, cut, cut + 20000), in(cut, cut + 20000));
  EXPECT_TRUE(merged(spilled, 5, 4).empty());
}

TEST(EventRuns, LeavesNoFileBehindAndSaysWhenItCannotMakeOne) {
  test::ImportDir dir;
  {
    EventRuns spilled(dir.path().string(), 4096);
    spilled.add(random_runs(2, 3)[0]);
    spilled.end_run();
    EXPECT_TRUE(std::filesystem::is_empty(dir.path()));  // unlinked from the start
    EXPECT_EQ(merged(spilled, INT64_MIN, INT64_MAX).size(), spilled.rows());
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  try {
    EventRuns nowhere(dir.file("no/such/folder"), 4096);
    FAIL() << "made a file in a folder that does not exist";
  } catch (const store::Error& e) {
    EXPECT_NE(std::string(e.what()).find("no/such/folder"), std::string::npos) << e.what();
  }
}

// A disk that fills up (here: the file size limit) is one error naming the file, not a crash.
// The file size limit of this process set low, and set back whatever happens.
class SmallFileSizeLimit {
 public:
  explicit SmallFileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &before_);
    signal_ = std::signal(SIGXFSZ, SIG_IGN);  // a write past it fails with EFBIG
    rlimit small = before_;
    small.rlim_cur = std::min(bytes, before_.rlim_max);
    ::setrlimit(RLIMIT_FSIZE, &small);
  }
  ~SmallFileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &before_);
    std::signal(SIGXFSZ, signal_);
  }
  SmallFileSizeLimit(const SmallFileSizeLimit&) = delete;
  SmallFileSizeLimit& operator=(const SmallFileSizeLimit&) = delete;

 private:
  rlimit before_{};
  void (*signal_)(int) = SIG_DFL;
};

TEST(EventRuns, AFullDiskIsOneError) {
  test::ImportDir dir;
  std::string error;
  try {
    const SmallFileSizeLimit limit(64 << 10);
    EventRuns spilled(dir.path().string(), 4096);
    for (int k = 0; k < 20; ++k) {
      spilled.add(random_runs(3, static_cast<std::uint32_t>(k))[0]);
      spilled.end_run();
    }
  } catch (const store::Error& e) {
    error = e.what();
  }
  EXPECT_NE(error.find("cannot write the import's temporary file of events " + dir.path().string()),
            std::string::npos)
      << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

// What a trace holds, whatever order its pages were written in.
struct Stored {
  std::vector<std::tuple<std::int64_t, std::int64_t, std::string, std::string, std::int64_t,
                         std::int64_t, std::int64_t>>
      events;
  std::vector<std::tuple<std::int64_t, std::uint32_t, std::int64_t, std::int64_t>> steps;
  std::string out_of_range;
  std::string overview;
};

Stored stored(const std::string& path) {
  store::Reader r(path);
  Stored s;
  for (const test::EventView& v : test::all_events(r))
    s.events.emplace_back(v.e.start_ns, v.e.dur_ns, v.name, v.track, v.e.step, v.e.bytes,
                          v.correlation);
  for (const store::Step& step : r.steps())
    s.steps.emplace_back(step.start_ns, step.track, step.step, step.dur_ns);
  s.out_of_range = test::meta_or(r, "event.out_of_key_range");
  s.overview = r.overview_bytes();
  return s;
}

// Three ranks' rows: overlapping in time, zones nested on one tick (the writer moves one), a stray
// zone 30 hours before the rest and one 30 hours after in the first file (the trace is keyed from
// the rows between, and the early one written last), a zone before the first file's first in a
// later one, and one 80 hours after (no key).
void write_ranks(TraceSink& sink) {
  const std::uint32_t step_label =
      sink.label_id(sink.string_id("ProfilerStep#1"), trace::Category::step);
  const std::uint32_t op = sink.label_id(sink.string_id("aten::mm"), trace::Category::host_compute);
  const std::uint32_t kernel = sink.label_id(sink.string_id("sgemm"), trace::Category::kernel);
  constexpr std::int64_t kHour = std::int64_t{3600} * 1000000000;
  constexpr std::int64_t t0 = std::int64_t{1700000000} * 1000000000;
  for (std::uint32_t rank = 0; rank < 3; ++rank) {
    sink.add_process(rank + 1, "rank " + std::to_string(rank), rank, kNull, "");
    const std::uint32_t host = sink.add_track("thread", trace::TrackKind::thread, 1, rank + 1);
    const std::uint32_t device =
        sink.add_track("stream 7", trace::TrackKind::device_queue, kNull, rank + 1);
    std::vector<Row> rows;
    for (std::int64_t step = 0; step < 50; ++step) {
      const std::int64_t s = t0 + step * 1000000 + rank * 1700;
      rows.push_back({s, 900000, step, kNull, kNull, host, step_label});
      rows.push_back({s, 400000, step, kNull, 40 + step, host, op});  // same tick as the step
      rows.push_back({s + 10, 400000, step, kNull, kNull, host, op});
      rows.push_back({s + 5000, 300000, step, 4096, 40 + step, device, kernel});
    }
    if (rank == 0) {
      rows.push_back({t0 - 30 * kHour, 10, kNull, kNull, kNull, host, op});
      rows.push_back({t0 + 30 * kHour, 10, kNull, kNull, kNull, host, op});
    }
    if (rank == 1) rows.push_back({t0 - 1000, 10, kNull, kNull, kNull, host, op});
    if (rank == 2) rows.push_back({t0 + 80 * kHour, 10, kNull, kNull, kNull, device, kernel});
    std::sort(rows.begin(), rows.end(), row_less);
    std::vector<std::vector<Row>> chunks{rows};
    const WriteResult w = sink.write_events(chunks);
    EXPECT_EQ(w.written, rows.size());
  }
  sink.finish();
}

TEST(SpilledEvents, SeveralFilesWriteTheTraceWrittenFileByFile) {
  test::ImportDir dir;
  {
    TraceSink one_by_one(dir.file("direct.db"), 1 << 20, 1);
    write_ranks(one_by_one);
  }
  {
    TraceSink spilled(dir.file("spilled.db"), 1 << 20, 3);
    write_ranks(spilled);
  }
  const Stored direct = stored(dir.file("direct.db"));
  const Stored merged_runs = stored(dir.file("spilled.db"));
  EXPECT_EQ(direct.events.size(), 3u * 200 + 3);  // the stray 80 hours after has no key
  EXPECT_EQ(direct.steps.size(), 150u);
  EXPECT_EQ(direct.out_of_range, "1");
  EXPECT_EQ(merged_runs.events, direct.events);
  EXPECT_EQ(merged_runs.steps, direct.steps);
  EXPECT_EQ(merged_runs.out_of_range, direct.out_of_range);
  // Built as the merged rows went into the pages, from the file written file by file.
  EXPECT_FALSE(direct.overview.empty());
  EXPECT_EQ(merged_runs.overview, direct.overview);
  // Nothing left beside the traces.
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 2u);
}

}  // namespace
}  // namespace ts::import
