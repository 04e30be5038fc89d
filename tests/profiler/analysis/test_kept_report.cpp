// The analysis kept in a trace (kept_report.hpp, report_codec.hpp): a kept report reads back
// equal to the analysis it was made from, field for field; it is used only by the same options
// and build on the unchanged, finished trace; and what a file holds instead of it (damage,
// another build's report, no table at all) never changes a figure.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "profiler/analysis/kept_report.hpp"
#include "profiler/analysis/report_codec.hpp"
#include "profiler/store/analysis_table.hpp"
#include "profiler/store/overview_codec.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/synth/synth.hpp"
#include "tests/profiler/analysis/synth_ranks.hpp"
#include "tests/profiler/test_util.hpp"

namespace {

namespace a = ts::analysis;
namespace fs = std::filesystem;

std::optional<a::Report> round_trip(const a::Report& report) {
  a::ReportDecoder decoder;
  const std::vector<std::string> parts = a::encode_report(report);
  std::uint64_t all = 0;
  for (const std::string& p : parts) all += p.size();
  for (const std::string& p : parts)
    if (!decoder.add(p, all)) return std::nullopt;
  return decoder.finish();
}

// Every field, compared through the two printed forms and the encoding itself (which holds the
// per-step figures the printed forms round).
void expect_same(const a::Report& got, const a::Report& want) {
  EXPECT_EQ(a::to_json(got), a::to_json(want));
  EXPECT_EQ(a::to_text(got), a::to_text(want));
  EXPECT_EQ(a::encode_report(got), a::encode_report(want));
  ASSERT_EQ(got.per_step.size(), want.per_step.size());
  for (std::size_t i = 0; i < got.per_step.size(); ++i) {
    const a::StepSummary &g = got.per_step[i], &w = want.per_step[i];
    ASSERT_EQ(g.step, w.step);
    ASSERT_EQ(g.start_ns, w.start_ns);
    ASSERT_EQ(g.parts.ns, w.parts.ns);
    ASSERT_EQ(g.idle_by_cause_ns, w.idle_by_cause_ns);
    ASSERT_EQ(g.input_pct, w.input_pct);
    ASSERT_EQ(g.input_bound, w.input_bound);
    ASSERT_EQ(g.input_work_in_wait_ns, w.input_work_in_wait_ns);
    ASSERT_EQ(g.rank_index, w.rank_index);
    ASSERT_EQ(g.warmup, w.warmup);
  }
}

std::string synth_trace(const ts::test::TempDir& dir, const std::string& name,
                        std::int64_t events = 40'000, std::uint64_t seed = 1) {
  ts::synth::SynthOptions options;
  options.target_events = events;
  options.seed = seed;
  const std::string path = dir.file(name);
  ts::synth::write_synthetic_trace(path, options);
  return path;
}

// A synthetic trace that keeps its analysis, and the analysis it keeps.
struct KeptTrace {
  std::string path;
  a::Report report;
};

bool exec_sql(const std::string& path, const char* statement) {
  sqlite3* db = nullptr;
  const bool ok = sqlite3_open(path.c_str(), &db) == SQLITE_OK &&
                  sqlite3_exec(db, statement, nullptr, nullptr, nullptr) == SQLITE_OK;
  sqlite3_close(db);
  return ok;
}

a::AnalysisOptions without_gaps() {
  a::AnalysisOptions o;
  o.keep_gaps = false;
  return o;
}

KeptTrace kept_trace(const ts::test::TempDir& dir) {
  KeptTrace t{synth_trace(dir, "t.db"), {}};
  const ts::store::Reader reader(t.path);
  EXPECT_FALSE(a::kept_report(reader, without_gaps()));  // nothing kept yet
  t.report = a::analyse_or_reuse(reader, without_gaps(), 0);
  return t;
}

TEST(KeptReport, EncodingRoundTripsEveryField) {
  ts::test::TempDir dir;
  std::vector<std::string> traces = {"traces/input_bound.db", "traces/tuned.db", "traces/opencl.db",
                                     ts::test::merged_synth_ranks(dir, 20000, {0.05, 0.7})};
  for (const std::string& trace : traces) {
    SCOPED_TRACE(trace);
    const ts::store::Reader reader(trace);
    a::AnalysisOptions scoped = without_gaps();
    scoped.skip_warmup = 2;
    for (const a::AnalysisOptions& o : {without_gaps(), scoped}) {
      const a::Report report = a::analyse(reader, o);
      const std::optional<a::Report> back = round_trip(report);
      ASSERT_TRUE(back);
      expect_same(*back, report);
    }
  }
  // The two-rank job exercises the per-rank figures.
  const ts::store::Reader job(traces.back());
  const a::Report report = a::analyse(job, without_gaps());
  ASSERT_EQ(report.ranks.size(), 2u);
  EXPECT_EQ(round_trip(report)->ranks[1].input_bound_steps, report.ranks[1].input_bound_steps);
}

TEST(KeptReport, ManyStepsSpanSeveralParts) {
  a::Report report;
  report.steps = 40'000;
  for (std::int64_t i = 0; i < 40'000; ++i) {
    a::StepSummary s;
    s.step = i * 3 - 7;  // any order of numbers, negative ones too
    s.start_ns = (i % 2 == 0 ? 1 : -1) * i * 1'000'003;
    s.dur_ns = i;
    s.input_pct = static_cast<double>(i) / 7;
    s.parts[a::Part::h2d] = i * 11;
    report.per_step.push_back(s);
  }
  const std::vector<std::string> parts = a::encode_report(report);
  EXPECT_EQ(parts.size(), 1 + (40'000 + a::kStepsPerPart - 1) / a::kStepsPerPart);
  const std::optional<a::Report> back = round_trip(report);
  ASSERT_TRUE(back);
  expect_same(*back, report);
}

TEST(KeptReport, DamagedBytesAreRefusedWhole) {
  const ts::store::Reader reader("traces/input_bound.db");
  const std::vector<std::string> parts = a::encode_report(a::analyse(reader, without_gaps()));
  ASSERT_EQ(parts.size(), 2u);
  const std::uint64_t all = parts[0].size() + parts[1].size();
  const auto decodes = [&](const std::string& head, const std::string& steps) {
    a::ReportDecoder d;
    return d.add(head, all) && d.add(steps, all) && d.finish().has_value();
  };
  EXPECT_TRUE(decodes(parts[0], parts[1]));
  // Truncated at every length, one byte more, the magic changed, the steps missing.
  for (std::size_t n = 0; n < parts[0].size(); n += 7)
    EXPECT_FALSE(decodes(parts[0].substr(0, n), parts[1])) << n;
  for (std::size_t n = 0; n < parts[1].size(); n += 5)
    EXPECT_FALSE(decodes(parts[0], parts[1].substr(0, n))) << n;
  EXPECT_FALSE(decodes(parts[0] + "x", parts[1]));
  EXPECT_FALSE(decodes(parts[0], parts[1] + "x"));
  EXPECT_FALSE(decodes("TSRQ" + parts[0].substr(4), parts[1]));
  a::ReportDecoder head_only;
  EXPECT_TRUE(head_only.add(parts[0], all));
  EXPECT_FALSE(head_only.finish());
  // A head announcing more steps than the bytes could hold allocates nothing for them.
  a::ReportDecoder tiny;
  EXPECT_FALSE(tiny.add(parts[0], 16));
}

TEST(KeptReport, ReusedOnlyForTheSameOptionsOnTheUnchangedTrace) {
  ts::test::TempDir dir;
  const auto [path, fresh] = kept_trace(dir);
  const a::AnalysisOptions o = without_gaps();
  const ts::store::Reader reader(path);
  const std::optional<a::Report> kept = a::kept_report(reader, o);
  ASSERT_TRUE(kept);
  expect_same(*kept, fresh);
  EXPECT_EQ(kept->file, path);
  // Any option that changes a figure misses it; the number of threads does not.
  a::AnalysisOptions other = o;
  other.gpu_hour_price = 3;
  EXPECT_FALSE(a::kept_report(reader, other));
  other = o;
  other.skip_warmup = 3;
  EXPECT_FALSE(a::kept_report(reader, other));
  other = o;
  other.steps = std::pair<std::int64_t, std::int64_t>{5, 9};
  EXPECT_FALSE(a::kept_report(reader, other));
  other = o;
  other.threads = 1;
  EXPECT_TRUE(a::kept_report(reader, other));
  // A caller drawing the gaps needs them listed: the kept report only counts them.
  ASSERT_GT(kept->device.listed_gaps, 0);
  other = o;
  other.keep_gaps = true;
  EXPECT_FALSE(a::kept_report(reader, other));
  EXPECT_EQ(a::analyse_or_reuse(reader, other, 0).device.gaps.size(),
            static_cast<std::size_t>(kept->device.listed_gaps));
  // Storing the overview again (the events changed) drops it.
  ASSERT_TRUE(ts::store::store_overview(path));
  const ts::store::Reader after(path);
  EXPECT_FALSE(a::kept_report(after, o));
}

TEST(KeptReport, KeptFromTheThresholdOnAndUpToFourOptionSets) {
  ts::test::TempDir dir;
  const std::string path = synth_trace(dir, "t.db");
  const ts::store::Reader reader(path);
  a::AnalysisOptions o = without_gaps();
  const a::Report report = a::analyse_or_reuse(reader, o, reader.event_count() + 1);
  EXPECT_FALSE(a::kept_report(reader, o));  // below the threshold: analysed, not kept
  for (int price = 1; price <= 5; ++price) {
    o.gpu_hour_price = price;
    a::analyse_or_reuse(reader, o, 0);
  }
  int kept = 0;
  for (int price = 1; price <= 5; ++price) {
    o.gpu_hour_price = price;
    kept += a::kept_report(reader, o).has_value() ? 1 : 0;
  }
  EXPECT_EQ(kept, 4);
  o.gpu_hour_price = 1;  // the oldest went
  EXPECT_FALSE(a::kept_report(reader, o));
  // What another build kept goes when this one keeps.
  ASSERT_TRUE(ts::store::keep_analysis(path, "another build", "another", 1,
                                       [](std::size_t) { return std::string("x"); }));
  o.gpu_hour_price = 5;
  EXPECT_TRUE(a::keep_report(reader, report, o));
  EXPECT_EQ(ts::test::sql(path, "SELECT count(*) FROM analysis WHERE key = 'another build'")
                .rows.at(0)
                .at(0),
            "0");
}

TEST(KeptReport, DamagedOrMissingKeptReportIsAnalysedAgain) {
  ts::test::TempDir dir;
  const auto [path, fresh] = kept_trace(dir);
  const a::AnalysisOptions o = without_gaps();
  ASSERT_TRUE(exec_sql(path, "UPDATE analysis SET data = substr(data, 1, 40) WHERE part = 1"));
  {
    const ts::store::Reader reader(path);
    EXPECT_FALSE(a::kept_report(reader, o));
    // Analysed again, and not kept again over the damaged one it could not read.
    expect_same(a::analyse_or_reuse(reader, o, 0), fresh);
  }
  // A file without the table (written before it) reads, and gets it when a report is kept.
  ASSERT_TRUE(exec_sql(path, "DROP TABLE analysis"));
  const ts::store::Reader reader(path);
  EXPECT_FALSE(a::kept_report(reader, o));
  EXPECT_TRUE(a::keep_report(reader, fresh, o));
  const ts::store::Reader again(path);
  ASSERT_TRUE(a::kept_report(again, o));
  expect_same(*a::kept_report(again, o), fresh);
}

// Steps handed over, as a viewer packing them takes them.
struct RecordingSink : a::StepSink {
  void take(std::vector<a::StepSummary>& steps) override {
    ++parts;
    taken.insert(taken.end(), steps.begin(), steps.end());
  }
  void discard() override {
    ++discards;
    taken.clear();
  }
  std::vector<a::StepSummary> taken;
  int parts = 0, discards = 0;
};

// A caller taking the steps through a StepSink gets every step once, a part at a time, and a
// report without its list; a kept report failing half-way voids what it handed over.
TEST(KeptReport, StepsGoToASinkAPartAtATime) {
  ts::test::TempDir dir;
  const auto [path, fresh] = kept_trace(dir);
  const a::AnalysisOptions o = without_gaps();
  a::Report many = fresh;  // kept under the trace's key: its steps are what comes back
  many.per_step.clear();
  for (std::int64_t i = 0; i < 40'000; ++i) {
    a::StepSummary s;
    s.step = i;
    s.start_ns = i * 1'000'003;
    s.dur_ns = i + 1;
    s.input_bound = i % 3 == 0;
    many.per_step.push_back(s);
  }
  {
    const ts::store::Reader reader(path);
    ASSERT_TRUE(a::keep_report(reader, many, o));
  }
  {
    const ts::store::Reader reader(path);
    RecordingSink sink;
    a::Report got = a::analyse_or_reuse(reader, o, sink, 0);
    EXPECT_TRUE(got.per_step.empty());
    EXPECT_EQ(sink.parts, 3);  // 40 000 steps in parts of 16 384
    EXPECT_EQ(sink.discards, 0);
    got.per_step = sink.taken;
    expect_same(got, many);
  }
  // The last part damaged (a byte too many): the first two were handed over, then voided, then
  // the analysis's steps came.
  ASSERT_TRUE(
      exec_sql(path, "UPDATE analysis SET data = CAST(data || x'00' AS BLOB) WHERE part = 3"));
  const ts::store::Reader reader(path);
  RecordingSink sink;
  a::Report got = a::analyse_or_reuse(reader, o, sink, 0);
  EXPECT_EQ(sink.discards, 1);
  EXPECT_EQ(sink.parts, 3);
  EXPECT_TRUE(got.per_step.empty());
  got.per_step = sink.taken;
  expect_same(got, fresh);
}

// Events removed (or added) at either end outside trainscope, the overview left as it was: the
// kept report is missed all the same.
TEST(KeptReport, MissedWhenTheTracesEndsChangeBehindItsBack) {
  ts::test::TempDir dir;
  const auto [path, fresh] = kept_trace(dir);
  {
    const ts::store::Reader reader(path);
    ASSERT_TRUE(a::kept_report(reader, without_gaps()));
  }
  ASSERT_TRUE(exec_sql(path, "DELETE FROM event WHERE id = (SELECT max(id) FROM event)"));
  const ts::store::Reader reader(path);
  EXPECT_FALSE(a::kept_report(reader, without_gaps()));
  EXPECT_NE(a::to_json(a::analyse_or_reuse(reader, without_gaps(), 0)), a::to_json(fresh));
}

// A report being kept commits to a finished trace (a rollback journal) while readers may be
// reading it: a reader opening or reading then waits for the commit instead of failing.
TEST(KeptReport, ReadersWaitForTheCommitOfAReportBeingKept) {
  ts::test::TempDir dir;
  const auto [path, fresh] = kept_trace(dir);
  const ts::store::Reader early(path);
  std::atomic<bool> locked{false};
  std::thread writer([&] {
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    if (sqlite3_exec(db, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr) == SQLITE_OK) {
      locked = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    }
    locked = true;
    sqlite3_close(db);
  });
  while (!locked) std::this_thread::yield();
  EXPECT_NO_THROW({
    const ts::store::Reader late(path);
    EXPECT_EQ(late.steps().size(), early.steps().size());
    EXPECT_TRUE(a::kept_report(late, without_gaps()));
  });
  writer.join();
}

// Device work edited out of the middle of a trace with sqlite3 after its analysis was kept (its
// ends and overview left as they were): the kept figures are not used, the events' are, and the
// report made from them replaces the kept one.
TEST(KeptReport, EventsEditedAfterItWasKeptAreAnalysedAfresh) {
  for (const char* edit :
       {"UPDATE event SET dur_ns = 1 WHERE label IN (SELECT label.id FROM label JOIN category "
        "ON category.id = label.category WHERE category.name = 'kernel') AND id > "
        "(SELECT min(id) FROM event) AND id < (SELECT max(id) FROM event)",
        "DELETE FROM event WHERE id IN (SELECT id FROM event ORDER BY id LIMIT 500 OFFSET 9000)",
        "UPDATE string SET text = text || ' renamed' WHERE id = (SELECT max(id) FROM string)"}) {
    SCOPED_TRACE(edit);
    ts::test::TempDir dir;
    const auto [path, fresh] = kept_trace(dir);
    ASSERT_TRUE(exec_sql(path, edit));
    const ts::store::Reader reader(path);
    ASSERT_EQ(reader.first_last_keys(), ts::store::Reader(path).first_last_keys());
    a::KeptUse use;
    const a::Report got = a::analyse_or_reuse(reader, without_gaps(), 0, &use);
    EXPECT_EQ(use.outcome, a::KeptUse::Outcome::dropped);
    EXPECT_NE(use.line().find("analysed afresh: the events are not those"), std::string::npos)
        << use.line();
    expect_same(got, a::analyse(reader, without_gaps()));
    // Kept again, now from these events: the next report reuses it.
    const ts::store::Reader again(path);
    a::KeptUse next;
    expect_same(a::analyse_or_reuse(again, without_gaps(), 0, &next), got);
    EXPECT_EQ(next.outcome, a::KeptUse::Outcome::reused);
  }
}

// Another trace's kept analysis copied in under this trace's key, with or without its seal,
// is never used.
TEST(KeptReport, AnotherTracesAnalysisCopiedInIsNotUsed) {
  ts::test::TempDir dir;
  const auto [path, fresh] = kept_trace(dir);
  const std::string other = synth_trace(dir, "other.db", 40'000, 7);
  a::Report other_report;
  {
    const ts::store::Reader reader(other);
    other_report = a::analyse_or_reuse(reader, without_gaps(), 0);
    ASSERT_TRUE(a::kept_report(reader, without_gaps()));
  }
  ASSERT_NE(a::to_json(other_report), a::to_json(fresh));
  const std::string key = ts::test::sql(path, "SELECT key FROM analysis LIMIT 1").rows.at(0).at(0);
  const std::string attach = "ATTACH '" + other + "' AS o; ";
  for (const std::string& copy :
       {"DELETE FROM analysis; INSERT INTO analysis SELECT '" + key +
            "', part, data FROM o.analysis",
        "DELETE FROM analysis WHERE part >= 0; INSERT INTO analysis SELECT '" + key +
            "', part, data FROM o.analysis WHERE part >= 0"}) {
    SCOPED_TRACE(copy);
    ASSERT_TRUE(exec_sql(path, (attach + copy).c_str()));
    const ts::store::Reader reader(path);
    EXPECT_FALSE(a::kept_report(reader, without_gaps()));
    a::KeptUse use;
    expect_same(a::analyse_or_reuse(reader, without_gaps(), 0, &use), fresh);
    EXPECT_EQ(use.outcome, a::KeptUse::Outcome::dropped);
    EXPECT_EQ(use.line().rfind("analysed afresh: ", 0), 0u) << use.line();
  }
  // Used again once kept from its own events, and says so.
  const ts::store::Reader reader(path);
  a::KeptUse use;
  expect_same(a::analyse_or_reuse(reader, without_gaps(), 0, &use), fresh);
  EXPECT_EQ(use.outcome, a::KeptUse::Outcome::reused);
  EXPECT_EQ(use.line().rfind("analysis kept in the trace, events unchanged (", 0), 0u)
      << use.line();
  EXPECT_GT(use.checked_bytes, 0u);
}

// A kept analysis that fails its check and is not replaced (the trace now below the threshold
// of keeping) is dropped from the file.
TEST(KeptReport, OneThatFailsItsCheckIsDropped) {
  ts::test::TempDir dir;
  const auto [path, fresh] = kept_trace(dir);
  ASSERT_TRUE(exec_sql(path,
                       "UPDATE event SET dur_ns = dur_ns + 1 WHERE id = (SELECT id FROM "
                       "event ORDER BY id LIMIT 1 OFFSET 1000)"));
  const ts::store::Reader reader(path);
  a::KeptUse use;
  (void)a::analyse_or_reuse(reader, without_gaps(), reader.event_count() + 1, &use);
  EXPECT_EQ(use.outcome, a::KeptUse::Outcome::dropped);
  EXPECT_EQ(ts::test::sql(path, "SELECT count(*) FROM analysis").rows.at(0).at(0), "0");
}

TEST(KeptReport, NotKeptInATraceThatIsNotFinished) {
  ts::test::TempDir dir;
  const std::string path = synth_trace(dir, "t.db");
  // A capture still running or killed has no overview yet.
  ASSERT_TRUE(exec_sql(path, "DELETE FROM overview"));
  const ts::store::Reader reader(path);
  const a::Report report = a::analyse_or_reuse(reader, without_gaps(), 0);
  EXPECT_GT(report.steps, 0);
  EXPECT_FALSE(a::keep_report(reader, report, without_gaps()));
  EXPECT_FALSE(a::kept_report(reader, without_gaps()));
}

}  // namespace
