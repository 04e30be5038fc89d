// What an import reads: sniffing, directories of per-rank files, ranks from names and content.
#include <gtest/gtest.h>

#include <filesystem>

#include "profiler/import/chrome/sources.hpp"
#include "tests/profiler/import/import_test_util.hpp"

namespace ts::import {
namespace {

using test::ImportDir;
using test::x_event;

TEST(ImportSources, RankFromFileName) {
  EXPECT_EQ(rank_from_name("rank-1.json.gz"), 1);
  EXPECT_EQ(rank_from_name("rank3_trace.json"), 3);
  EXPECT_EQ(rank_from_name("RANK_12.pt.trace.json"), 12);
  EXPECT_EQ(rank_from_name("cpu_only_rank-34.pt.trace.json.gz"), 34);
  EXPECT_EQ(rank_from_name("trace_4.json"), 4);
  EXPECT_EQ(rank_from_name("host_1234.1690000000123.pt.trace.json"), std::nullopt);  // pid.time
  EXPECT_EQ(rank_from_name("worker.json"), std::nullopt);
  EXPECT_EQ(rank_from_text("{\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 7}"), 7);
  EXPECT_EQ(rank_from_text("{\"rank\" :\n 12}"), 12);
  EXPECT_EQ(rank_from_text("{\"ranks\": [1, 2]}"), std::nullopt);
}

TEST(ImportSources, Sniff) {
  ImportDir dir;
  const std::string events = test::kineto_trace({x_event("cpu_op", "a", 1, 1, "1", "1")});
  EXPECT_EQ(sniff_format(dir.write("a.json", "  \n" + events)), "chrome");
  EXPECT_EQ(sniff_format(dir.write_gz("b.pt.trace.json.gz", events)), "chrome");
  EXPECT_EQ(sniff_format(dir.write("c.json", "[{\"ph\":\"X\"}]")), "chrome");
  EXPECT_EQ(sniff(dir.write("notes.txt", "hello")), SourceKind::unknown);
  EXPECT_EQ(sniff(dir.write("empty.json", "")), SourceKind::unknown);
  EXPECT_EQ(sniff(dir.file("missing.json")), SourceKind::unknown);
  EXPECT_EQ(sniff_format(dir.write("host.xplane.pb", "\x0a\x01")), "xplane");
  const std::vector<std::string> src{dir.file("a.json")};
  import_traces(src, dir.file("t.db"));
  EXPECT_EQ(sniff(dir.file("t.db")), SourceKind::trainscope_trace);
  EXPECT_EQ(sniff_format(dir.path().string()), "xplane");  // it holds an .xplane.pb

  ImportDir logdir;
  std::filesystem::create_directories(logdir.path() / "plugins/profile/2024_01_01");
  logdir.write("plugins/profile/2024_01_01/host.xplane.pb", "x");
  EXPECT_EQ(sniff_format(logdir.path().string()), "xplane");
  ImportDir jsondir;
  jsondir.write("rank0.json", events);
  EXPECT_EQ(sniff_format(jsondir.path().string()), "chrome");
  ImportDir emptydir;
  EXPECT_EQ(sniff(emptydir.path().string()), SourceKind::unknown);

  // sniff() says whether a reader takes the path; sniff_format() which one.
  EXPECT_EQ(sniff(dir.file("a.json")), SourceKind::importable);
  EXPECT_EQ(sniff(jsondir.path().string()), SourceKind::importable);
  EXPECT_EQ(sniff(logdir.path().string()), SourceKind::importable);
  EXPECT_EQ(sniff_format(dir.file("t.db")), "");
  EXPECT_EQ(sniff_format(dir.file("notes.txt")), "");
  EXPECT_EQ(sniff_format(dir.file("missing.json")), "");
}

// A log directory's stray JSON files do not make it a directory of JSON traces: TensorFlow
// profiles are sniffed before JSON (registry.cpp).
TEST(ImportSources, SniffPrefersProfilesOverStrayJson) {
  ImportDir logdir;
  logdir.write("config.json", "{\"lr\": 0.1}");
  std::filesystem::create_directories(logdir.path() / "train/plugins/profile/2024_01_01");
  logdir.write("train/plugins/profile/2024_01_01/host.xplane.pb", "x");
  EXPECT_EQ(sniff_format(logdir.path().string()), "xplane");
}

std::string ranked(std::optional<int> rank, const std::string& name) {
  return test::kineto_trace(
      {x_event("cpu_op", name, 100, 100, "1", "1")},
      rank ? "\"distributedInfo\":{\"rank\":" + std::to_string(*rank) + ",\"world_size\":2}" : "");
}

TEST(ImportSources, DirectoryFilesSortedByRank) {
  ImportDir dir;
  std::filesystem::create_directory(dir.file("job"));
  dir.write("job/b.json", ranked(0, "from b"));
  dir.write_gz("job/a.pt.trace.json.gz", ranked(1, "from a"));
  dir.write("job/readme.txt", "not a trace");
  const std::vector<std::string> src{dir.file("job")};
  const ImportStats stats = import_traces(src, dir.file("out.db"));
  EXPECT_EQ(stats.processes, 2);
  store::Reader r(dir.file("out.db"));
  ASSERT_EQ(r.processes().size(), 2u);
  EXPECT_EQ(r.processes()[0].rank, 0);
  EXPECT_EQ(r.processes()[1].rank, 1);
  const auto ev = test::all_events(r);
  EXPECT_EQ(r.track(test::find_event(ev, "from b")->e.track)->process, r.processes()[0].id);
  EXPECT_EQ(r.track(test::find_event(ev, "from a")->e.track)->process, r.processes()[1].id);
  EXPECT_EQ(r.meta("import.source"),
            dir.file("job/b.json") + "\n" + dir.file("job/a.pt.trace.json.gz"));
}

TEST(ImportSources, RanksFromNames) {
  ImportDir dir;
  std::filesystem::create_directory(dir.file("job"));
  dir.write("job/trace_rank-10.json", ranked(std::nullopt, "ten"));
  dir.write("job/trace_rank-2.json", ranked(std::nullopt, "two"));
  const std::vector<std::string> src{dir.file("job")};
  const ImportStats stats = import_traces(src, dir.file("out.db"));
  store::Reader r(dir.file("out.db"));
  ASSERT_EQ(r.processes().size(), 2u);
  EXPECT_EQ(r.processes()[0].rank, 2);
  EXPECT_EQ(r.processes()[1].rank, 10);
  EXPECT_EQ(r.processes()[0].name, "rank 2 (pid 100)");

  EXPECT_EQ(stats.unranked, "");  // every file has its rank
}

// Several files with nothing to say about their rank (two profiling spans of one worker, as
// tensorboard_trace_handler names them): separate processes named by file, never invented
// ranks, and the import says so.
TEST(ImportSources, FilesWithoutARankAreSeparateProcessesNotRanks) {
  ImportDir dir;
  const std::vector<std::string> files{
      dir.write("host_77.1700000000001.pt.trace.json", ranked(std::nullopt, "x")),
      dir.write("host_77.1700000000002.pt.trace.json", ranked(std::nullopt, "y"))};
  const ImportStats stats = import_traces(files, dir.file("out2.db"));
  EXPECT_EQ(stats.unranked,
            "2 files without distributedInfo (or a rank in the file name), "
            "treated as separate processes");
  store::Reader r2(dir.file("out2.db"));
  ASSERT_EQ(r2.processes().size(), 2u);
  EXPECT_EQ(r2.processes()[0].rank, store::kNull);
  EXPECT_EQ(r2.processes()[1].rank, store::kNull);
  EXPECT_EQ(r2.processes()[0].name, "host_77.1700000000001.pt.trace.json");
  EXPECT_EQ(r2.processes()[1].name, "host_77.1700000000002.pt.trace.json");

  // One file with a rank, one without: only the one without is counted.
  const std::vector<std::string> mixed{dir.write("a.json", ranked(3, "a")),
                                       dir.write("b.json", ranked(std::nullopt, "b"))};
  const ImportStats m = import_traces(mixed, dir.file("out3.db"));
  EXPECT_EQ(m.unranked,
            "1 file without distributedInfo (or a rank in the file name), treated "
            "as a separate process");
  store::Reader r3(dir.file("out3.db"));
  EXPECT_EQ(r3.processes()[0].rank, 3);
  EXPECT_EQ(r3.processes()[1].rank, store::kNull);
}

TEST(ImportSources, GzipAndPlainImportTheSame) {
  ImportDir dir;
  const std::string text = test::kineto_trace(
      {x_event("cpu_op", "a", 1, 1, "1.5", "1"),
       x_event("kernel", "k", 0, 7, "2.25", "3", "{\"correlation\":9}"),
       x_event("cuda_runtime", "cudaLaunchKernel", 1, 1, "2", "0.5", "{\"correlation\":9}")});
  const std::vector<std::string> plain{dir.write("t.json", text)},
      gz{dir.write_gz("t.json.gz", text)};
  import_traces(plain, dir.file("p.db"));
  import_traces(gz, dir.file("g.db"));
  store::Reader p(dir.file("p.db")), g(dir.file("g.db"));
  const auto ep = test::all_events(p), eg = test::all_events(g);
  ASSERT_EQ(ep.size(), eg.size());
  for (std::size_t i = 0; i < ep.size(); ++i) {
    EXPECT_EQ(ep[i].name, eg[i].name);
    EXPECT_EQ(ep[i].e.start_ns, eg[i].e.start_ns);
    EXPECT_EQ(ep[i].e.dur_ns, eg[i].e.dur_ns);
    EXPECT_EQ(ep[i].correlation, eg[i].correlation);
  }
  EXPECT_EQ(p.meta("import.bytes"), g.meta("import.bytes"));
}

}  // namespace
}  // namespace ts::import
