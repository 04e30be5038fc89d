// What `check` and `report` trust that is stored beside or inside a trace: the analysis kept in
// it (used only while the events it was made from are unchanged, and only when it is the one
// made from them) and the import cache SOURCE.trainscope.db (used only when made from the source
// as it is now). A stale or planted file never decides a gate.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "run_command.hpp"

namespace ts::test {
namespace {

namespace fs = std::filesystem;

// Runs `statements` on the file as sqlite3 would (writes included).
bool exec_sql(const std::string& path, const std::string& statements) {
  sqlite3* db = nullptr;
  const bool ok = sqlite3_open(path.c_str(), &db) == SQLITE_OK &&
                  sqlite3_exec(db, statements.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
  sqlite3_close(db);
  return ok;
}

const std::string kDeviceIdleGate = " --max-device-idle-pct 30";
const std::string kInputGate = " --max-input-pct 20";

// Device work cut to a nanosecond everywhere but at the trace's two ends (which a key covers).
const std::string kEditKernels =
    "UPDATE event SET dur_ns = 1 WHERE label IN (SELECT label.id FROM label JOIN category ON "
    "category.id = label.category WHERE category.name = 'kernel') AND id > (SELECT min(id) FROM "
    "event) AND id < (SELECT max(id) FROM event)";

TEST(StoredTrust, CheckOfEventsEditedAfterTheAnalysisWasKeptGivesTheEventsFigures) {
  TempDir dir;
  const std::string trace = dir.file("run.db");
  ASSERT_EQ(run_trainscope("synth --events 30000 --input-bound-fraction 0 -o " + trace).status, 0);
  const CommandResult before = run_trainscope("check " + trace + kDeviceIdleGate);
  ASSERT_EQ(before.status, 0) << before.out << before.err;
  EXPECT_NE(before.err.find("analysis kept in the trace, events unchanged"), std::string::npos)
      << before.err;

  ASSERT_TRUE(exec_sql(trace, kEditKernels));
  const CommandResult after = run_trainscope("check " + trace + kDeviceIdleGate);
  EXPECT_EQ(after.status, 1) << after.out << after.err;
  EXPECT_NE(after.err.find("exceeds --max-device-idle-pct 30"), std::string::npos) << after.err;
  EXPECT_NE(after.err.find("analysed afresh: the events are not those"), std::string::npos)
      << after.err;
  // The same figures as a trace never kept: the JSON report of a copy without the table.
  const std::string plain = dir.file("plain.db");
  fs::copy_file(trace, plain);
  ASSERT_TRUE(exec_sql(plain, "DROP TABLE analysis"));
  EXPECT_EQ(run_trainscope("report --json " + trace).out,
            run_trainscope("report --json " + plain).out);
}

TEST(StoredTrust, AnotherTracesAnalysisUnderThisKeyIsNotUsed) {
  TempDir dir;
  const std::string slow = dir.file("slow.db"), fast = dir.file("fast.db");
  ASSERT_EQ(run_trainscope("synth --events 30000 --input-bound-fraction 1 -o " + slow).status, 0);
  ASSERT_EQ(run_trainscope("synth --events 30000 --input-bound-fraction 0 -o " + fast).status, 0);
  ASSERT_EQ(run_trainscope("check " + slow + kInputGate).status, 1);
  const std::string key = sql(slow, "SELECT key FROM analysis LIMIT 1").rows.at(0).at(0);
  ASSERT_TRUE(exec_sql(slow, "ATTACH '" + fast +
                                 "' AS f; DELETE FROM analysis; INSERT INTO analysis SELECT '" +
                                 key + "', part, data FROM f.analysis"));
  const CommandResult r = run_trainscope("check " + slow + kInputGate);
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("analysed afresh"), std::string::npos) << r.err;
}

// A PyTorch trace and what may lie at its cache's place.
struct Sources {
  TempDir dir;
  std::string slow = dir.file("run.json.gz"), fast = dir.file("other.json.gz");
  Sources() {
    fs::copy_file("tests/data/pytorch/input_bound.pt.trace.json.gz", slow);
    fs::copy_file("tests/data/pytorch/tuned.pt.trace.json.gz", fast);
  }
  CommandResult check_slow() const { return run_trainscope("check " + slow + kInputGate); }
};

TEST(StoredTrust, APlantedImportCacheIsImportedAgain) {
  Sources s;
  ASSERT_EQ(run_trainscope("check " + s.fast + kInputGate).status, 0);
  ASSERT_EQ(s.check_slow().status, 1);
  const std::string real = s.dir.file("real.db");
  fs::copy_file(s.slow + ".trainscope.db", real);
  // Another source's cache renamed into place; the same with the real cache's import rows
  // copied into it.
  for (const bool copy_meta : {false, true}) {
    SCOPED_TRACE(copy_meta);
    fs::copy_file(s.fast + ".trainscope.db", s.slow + ".trainscope.db",
                  fs::copy_options::overwrite_existing);
    if (copy_meta) {
      ASSERT_TRUE(exec_sql(s.slow + ".trainscope.db",
                           "ATTACH '" + real +
                               "' AS r; INSERT OR REPLACE INTO meta SELECT * FROM r.meta WHERE "
                               "key LIKE 'import.%'"));
    }
    const CommandResult r = s.check_slow();
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("trainscope: imported " + s.slow), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("was not imported from " + s.slow + " as it is now"), std::string::npos)
        << r.err;
  }
  // Its own cache, untouched, is reused.
  const CommandResult again = s.check_slow();
  EXPECT_EQ(again.status, 1);
  EXPECT_EQ(again.err.find("imported"), std::string::npos) << again.err;
}

TEST(StoredTrust, ASourceReplacedByOneOfTheSameSizeAndTimeIsImportedAgain) {
  Sources s;
  ASSERT_EQ(s.check_slow().status, 1);
  // The fast run's trace, compressed anew and padded to the slow one's size, with the slow
  // one's modification time.
  const std::string json = s.dir.file("fast.json");
  ASSERT_EQ(run_shell("(gzip -dc " + s.fast + " > " + json + ")").status, 0);
  const auto want = fs::file_size(s.slow);
  ASSERT_EQ(run_shell("(gzip -9 -n -c " + json + " > " + s.dir.file("fast9.gz") + ")").status, 0);
  const auto packed = fs::file_size(s.dir.file("fast9.gz"));
  ASSERT_GT(packed, 10u);
  ASSERT_LT(packed, want);
  // The padding is the member's file name (gzip's FNAME field, which readers skip), written
  // by -n without one.
  std::string bytes = read_file(s.dir.file("fast9.gz"));
  const std::size_t pad = want - packed;
  std::string padded = bytes.substr(0, 10);
  padded[3] = static_cast<char>(padded[3] | 0x08);  // FNAME
  padded += std::string(pad - 1, 'x') + '\0';
  padded += bytes.substr(10);
  ASSERT_EQ(padded.size(), want);
  const auto mtime = fs::last_write_time(s.slow);
  write_file(s.slow, padded);
  fs::last_write_time(s.slow, mtime);
  const CommandResult r = s.check_slow();
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("trainscope: imported " + s.slow), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ts::test
