// Which traces are synced (sqlite.hpp: Durability): a capture's and a merge's, with everything
// stored into them afterwards; never an import's (a writer told so, or any trace whose meta holds
// import.format), neither its events nor its overview nor its kept analysis. Syncs are counted by
// a VFS that wraps the default one and stands as the default while a test runs.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

#include "profiler/store/analysis_table.hpp"
#include "profiler/store/merge.hpp"
#include "profiler/store/writer.hpp"
#include "tests/profiler/store_fixture.hpp"
#include "tests/profiler/sync_counting_vfs.hpp"
#include "tests/profiler/test_util.hpp"

namespace ts::store {
namespace {

using test::SyncCountingVfs;

// A finished trace of a few steps, written as a capture (staged) or as an import writes (bulk,
// not synced, with the import's meta).
std::string write_trace(const test::TempDir& dir, const std::string& name, bool import) {
  const std::string path = dir.file(name);
  WriterOptions options = import ? WriterOptions{} : test::staged();
  options.bulk = import;
  if (import) options.durability = Durability::not_synced;
  Writer w(path, options);
  test::write_dictionary(w);
  auto rows = test::step_rows(50);
  w.append(std::span<EventRow>(rows));
  if (import) w.put_meta("import.format", "kineto");
  w.finish();
  return path;
}

bool keep(const std::string& path) {
  return keep_analysis(path, "k1", "k", 2, [](std::size_t i) { return std::string(10, 'a' + i); });
}

TEST(Durability, AnImportsTraceIsNeverSyncedNorWhatIsKeptInIt) {
  test::TempDir dir;
  SyncCountingVfs vfs;
  const std::string path = write_trace(dir, "import.db", true);
  EXPECT_EQ(vfs.syncs(), 0);  // the events and the overview
  ASSERT_TRUE(keep(path));
  EXPECT_EQ(vfs.syncs(), 0);  // the kept analysis
}

TEST(Durability, ACapturesTraceIsSyncedAndSoIsWhatIsKeptInIt) {
  test::TempDir dir;
  SyncCountingVfs vfs;
  const std::string path = write_trace(dir, "capture.db", false);
  const int written = vfs.syncs();
  EXPECT_GT(written, 0);
  ASSERT_TRUE(keep(path));
  EXPECT_GT(vfs.syncs(), written);
}

// A merge writes in bulk too, but its trace may be the only copy of the captures merged into it
// (`merge --remove-parts`): it is synced before it takes the merged name.
TEST(Durability, AMergedTraceIsSynced) {
  test::TempDir dir;
  std::vector<MergePart> parts(2);
  for (int rank = 0; rank < 2; ++rank) {
    parts[rank].path = write_trace(dir, "part" + std::to_string(rank) + ".db", false);
    parts[rank].name = "rank " + std::to_string(rank);
    parts[rank].rank = rank;
  }
  SyncCountingVfs vfs;
  merge_traces(parts, dir.file("job.db"));
  EXPECT_GT(vfs.syncs(), 0);
}

// The kept analysis of a trace that is an import by its meta, whoever wrote it: not synced.
TEST(Durability, ATraceWhoseMetaSaysImportIsNotSynced) {
  test::TempDir dir;
  const std::string path = write_trace(dir, "t.db", false);
  SyncCountingVfs vfs;
  {
    Db db;
    db.open(path, SQLITE_OPEN_READWRITE, "test");
    set_durability(db, Durability::not_synced);
    db.exec("INSERT INTO meta VALUES ('import.format', 'chrome')", "test");
  }
  ASSERT_EQ(vfs.syncs(), 0);
  ASSERT_TRUE(keep(path));
  EXPECT_EQ(vfs.syncs(), 0);
}

}  // namespace
}  // namespace ts::store
