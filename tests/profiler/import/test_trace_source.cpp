// The import cache of a source opened directly (profiler/import_cache/trace_source.hpp): reused
// while the source's bytes are the same, imported again when they change, never bound to a
// source that was written while it was being imported, and never synced.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <thread>

#include "import_test_util.hpp"
#include "profiler/import_cache/fingerprint.hpp"
#include "profiler/import_cache/trace_source.hpp"
#include "profiler/store/sqlite.hpp"
#include "tests/profiler/sync_counting_vfs.hpp"

namespace ts::test {
namespace {

std::string job_dir(const ImportDir& dir) {
  const std::string job = dir.file("job");
  std::filesystem::create_directory(job);
  for (int rank : {0, 1}) {
    const std::string events =
        x_event("cpu_op", "aten::mm", 1, 1, std::to_string(100 * rank + 10), "50") + "," +
        x_event("user_annotation", "ProfilerStep#1", 1, 1, std::to_string(100 * rank), "90");
    dir.write("job/rank" + std::to_string(rank) + ".json",
              kineto_trace({events}, "\"distributedInfo\":{\"rank\":" + std::to_string(rank) +
                                         ",\"world_size\":2}"));
  }
  return job;
}

// A kernel without fine-grained file times stamps writes with a clock that moves a tick (up to
// 10 ms) at a time: a rewrite must come a tick after the file was written to move its change
// time. Waiting longer on a loaded machine only makes that surer.
void next_clock_tick() {
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A job's import into its cache (spilled runs, pages appended, overview, fingerprint and seal)
// never syncs the file: it is made again from the source (store::Durability).
TEST(TraceSource, TheImportIntoTheCacheIsNeverSynced) {
  ImportDir dir;
  const std::string job = job_dir(dir);
  SyncCountingVfs vfs;
  const import::OpenedTrace opened = import::open_trace_source(job);
  ASSERT_TRUE(opened.imported);
  EXPECT_EQ(vfs.syncs(), 0);
}

TEST(TraceSource, TheCacheIsReusedWhileTheBytesAreTheSame) {
  ImportDir dir;
  const std::string job = job_dir(dir);
  const import::OpenedTrace first = import::open_trace_source(job);
  EXPECT_TRUE(first.imported);
  EXPECT_FALSE(first.replaced);
  const import::OpenedTrace second = import::open_trace_source(job);
  EXPECT_TRUE(second.reused);
  EXPECT_EQ(second.path, first.path);

  // The same bytes written again (a new change time) are the same source.
  const std::string rank1 = job + "/rank1.json";
  const std::string bytes = read_all(rank1);
  next_clock_tick();
  std::ofstream(rank1, std::ios::binary) << bytes;
  EXPECT_TRUE(import::open_trace_source(job).reused);
  // Other bytes are another source: imported again over the old cache.
  dir.write("job/rank1.json", bytes + " ");
  const import::OpenedTrace changed = import::open_trace_source(job);
  EXPECT_TRUE(changed.imported);
  EXPECT_TRUE(changed.replaced);
  EXPECT_TRUE(import::open_trace_source(job).reused);
}

TEST(TraceSource, ASourceWrittenWhileItIsImportedIsImportedAgainNextTime) {
  ImportDir dir;
  const std::string job = job_dir(dir);
  const std::string rank1 = job + "/rank1.json";
  const std::string bytes = read_all(rank1);
  import::OpenOptions options;
  // Rewrites the same bytes once the first file is written: the content is as it was, but the
  // import cannot know which bytes it read, so it must not bind the cache to the source.
  bool rewritten = false;
  options.import.progress = [&](const import::ImportProgress& p) {
    if (p.files_done == 1 && !rewritten) {
      next_clock_tick();
      std::ofstream(rank1, std::ios::binary) << bytes;
      rewritten = true;
    }
  };
  EXPECT_TRUE(import::open_trace_source(job, options).imported);
  ASSERT_TRUE(rewritten);
  const import::OpenedTrace again = import::open_trace_source(job);
  EXPECT_TRUE(again.imported);
  EXPECT_TRUE(again.replaced);
  EXPECT_TRUE(import::open_trace_source(job).reused);
}

// What the trace at the cache's place stored tells why it is replaced: another revision of the
// import, other options, or (anything else) the source changed or the file was put there.
TEST(TraceSource, SaysWhyTheTraceThereWasReplaced) {
  ImportDir dir;
  const std::string job = job_dir(dir);
  const import::OpenedTrace first = import::open_trace_source(job);
  ASSERT_TRUE(first.imported);
  using Why = import::OpenedTrace::Why;
  const auto stored_fingerprint_becomes = [&](const std::string& sql) {
    store::Db db;
    db.open(first.path, SQLITE_OPEN_READWRITE, "test");
    db.exec(("UPDATE meta SET value = " + sql + " WHERE key = 'import.fingerprint'").c_str(),
            "test");
  };
  // A cache from a trainscope whose import had another revision.
  stored_fingerprint_becomes("'trainscope import 1' || substr(value, instr(value, char(9)))");
  import::OpenedTrace again = import::open_trace_source(job);
  EXPECT_TRUE(again.replaced);
  EXPECT_EQ(again.why_replaced, Why::other_revision);
  // One imported with another step marker.
  import::OpenOptions marker;
  marker.import.step_marker = "ProfilerStep.*";
  again = import::open_trace_source(job, marker);
  EXPECT_TRUE(again.replaced);
  EXPECT_EQ(again.why_replaced, Why::other_options);
  again = import::open_trace_source(job);
  EXPECT_TRUE(again.replaced);
  EXPECT_EQ(again.why_replaced, Why::other_options);
  // The same first line, another source: the source changed (or the file was put there).
  stored_fingerprint_becomes("substr(value, 1, instr(value, char(10))) || 'other files'");
  again = import::open_trace_source(job);
  EXPECT_TRUE(again.replaced);
  EXPECT_EQ(again.why_replaced, Why::source_or_file);
  EXPECT_TRUE(import::open_trace_source(job).reused);
}

TEST(TraceSource, TheStateOfASourceNamesEveryFileAndMovesOnAnyWrite) {
  ImportDir dir;
  const std::string job = job_dir(dir);
  const std::string before = import::source_state(job);
  EXPECT_NE(before.find("rank0.json"), std::string::npos);
  EXPECT_NE(before.find("rank1.json"), std::string::npos);
  EXPECT_EQ(import::source_state(job), before);
  const std::string rank0 = job + "/rank0.json";
  const std::string bytes = read_all(rank0);
  next_clock_tick();
  std::ofstream(rank0, std::ios::binary) << bytes;  // same bytes, same size, a new change time
  EXPECT_NE(import::source_state(job), before);
  EXPECT_EQ(import::source_state(dir.file("missing")), "");
  // The fingerprint hashes the bytes: unchanged by the rewrite, changed by one byte.
  const std::string fingerprint = import::source_fingerprint(job, "k");
  ASSERT_NE(fingerprint, "");
  EXPECT_EQ(import::source_fingerprint(job, "k"), fingerprint);
  std::string other = bytes;
  other.replace(other.find("aten::mm"), 8, "aten::mv");
  dir.write("job/rank0.json", other);
  EXPECT_NE(import::source_fingerprint(job, "k"), fingerprint);
}

}  // namespace
}  // namespace ts::test
