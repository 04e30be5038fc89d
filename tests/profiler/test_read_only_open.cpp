// Readers write nothing beside a trace they only read: a capture's file in write-ahead-log mode
// opens without its -shm index when its log is empty, and a killed capture's log in a folder
// that cannot take the index is one clear error. The decision is tested from its facts
// everywhere; the read-only folder itself only where permissions bind (not as root).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <span>
#include <string>

#include "profiler/store/read_only_open.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/writer.hpp"
#include "tests/profiler/store_fixture.hpp"
#include "tests/profiler/test_util.hpp"

namespace {

using ts::store::choose_read_open;
using ts::store::EventRow;
using ts::store::Reader;
using ts::store::ReadOpen;
using ts::store::TraceSurroundings;
using ts::store::Writer;
using ts::test::contains;
using ts::test::TempDir;
namespace fs = std::filesystem;

constexpr int kSteps = 5;

// A capture killed after committing kSteps steps: the file and its -wal as a SIGKILL leaves
// them (a copy taken while the writer runs), without the -shm index.
void write_killed_capture(const TempDir& dir, const std::string& to) {
  const std::string live = dir.file("live.db");
  Writer w(live, ts::test::staged());
  ts::test::write_dictionary(w);
  auto rows = ts::test::step_rows(kSteps);
  w.append(std::span<EventRow>(rows));
  w.commit();
  fs::copy_file(live, to);
  fs::copy_file(live + "-wal", to + "-wal");
}

// The same capture after its log was copied into the file (a checkpoint) and removed: still in
// write-ahead-log mode, the whole trace in the file.
void write_killed_capture_without_log(const TempDir& dir, const std::string& to) {
  write_killed_capture(dir, to);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(to.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);  // the last connection removes -wal and -shm; the header stays WAL
  ASSERT_FALSE(fs::exists(to + "-wal"));
  ASSERT_FALSE(fs::exists(to + "-shm"));
}

std::string read_error(const std::string& path) {
  try {
    Reader r(path);
    return {};
  } catch (const ts::store::Error& e) {
    return e.what();
  }
}

// Removes write permission from a folder for the test's duration.
class ReadOnlyFolder {
 public:
  explicit ReadOnlyFolder(std::string path) : path_(std::move(path)) {
    fs::permissions(path_,
                    fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                    fs::perm_options::remove);
  }
  ~ReadOnlyFolder() { fs::permissions(path_, fs::perms::owner_write, fs::perm_options::add); }
  ReadOnlyFolder(const ReadOnlyFolder&) = delete;
  ReadOnlyFolder& operator=(const ReadOnlyFolder&) = delete;
  // Permission bits bind this process (they do not bind root, nor CAP_DAC_OVERRIDE).
  bool binds() const { return ::access(path_.c_str(), W_OK) != 0; }

 private:
  std::string path_;
};

TEST(ReadOnlyOpen, ChoosesFromTheFacts) {
  // A rollback-journal file (every finished trace) opens as it is, whatever lies beside it.
  for (const bool writable : {true, false})
    EXPECT_EQ(choose_read_open({false, false, false, writable}), ReadOpen::as_is);
  // A log with content needs the index: present, or a folder that can take it.
  EXPECT_EQ(choose_read_open({true, true, true, false}), ReadOpen::as_is);
  EXPECT_EQ(choose_read_open({true, true, false, true}), ReadOpen::as_is);
  EXPECT_EQ(choose_read_open({true, true, false, false}), ReadOpen::refuse);
  // An empty or absent log: the file is the whole trace, read without an index, unless an index
  // in a writable folder says a capture may still be writing it.
  EXPECT_EQ(choose_read_open({true, false, false, true}), ReadOpen::immutable);
  EXPECT_EQ(choose_read_open({true, false, false, false}), ReadOpen::immutable);
  EXPECT_EQ(choose_read_open({true, false, true, false}), ReadOpen::immutable);
  EXPECT_EQ(choose_read_open({true, false, true, true}), ReadOpen::as_is);
}

TEST(ReadOnlyOpen, ReadsTheFactsBesideTheFile) {
  TempDir dir;
  const std::string killed = dir.file("killed.db");
  write_killed_capture(dir, killed);
  TraceSurroundings s = ts::store::trace_surroundings(killed);
  EXPECT_TRUE(s.write_ahead_log_mode);
  EXPECT_TRUE(s.log_has_content);
  EXPECT_FALSE(s.index_present);
  EXPECT_EQ(s.folder_writable, ::access(dir.path().c_str(), W_OK) == 0);

  ts::test::write_file(killed + "-shm", "");
  ts::test::write_file(killed + "-wal", "");
  s = ts::store::trace_surroundings(killed);
  EXPECT_FALSE(s.log_has_content) << "an empty -wal holds no writes";
  EXPECT_TRUE(s.index_present);

  const std::string finished = ts::test::good_trace(dir, 3);
  EXPECT_FALSE(ts::store::trace_surroundings(finished).write_ahead_log_mode);
  EXPECT_EQ(ts::store::folder_of("run.db"), ".");
  EXPECT_EQ(ts::store::folder_of("/run.db"), "/");
  EXPECT_EQ(ts::store::folder_of("a/b/run.db"), "a/b");
}

// In any folder, a capture's file with an empty log is read without creating -shm or -wal.
TEST(ReadOnlyOpen, ACapturesFileWithoutLogIsReadWithoutWritingBesideIt) {
  TempDir dir;
  // '?', '#' and '%' would be URI syntax: the name must reach SQLite as a name.
  const std::string path = dir.file("run ?x=1#y%41.db");
  write_killed_capture_without_log(dir, path);
  {
    Reader r(path);
    EXPECT_EQ(r.event_count(), static_cast<std::int64_t>(ts::test::step_rows(kSteps).size()));
    EXPECT_EQ(r.steps().size(), static_cast<std::size_t>(kSteps));
  }
  EXPECT_FALSE(fs::exists(path + "-shm")) << "the reader created the index beside the trace";
  EXPECT_FALSE(fs::exists(path + "-wal")) << "the reader created a log beside the trace";
}

TEST(ReadOnlyOpen, ACapturesFileWithoutLogOpensInAReadOnlyFolder) {
  TempDir dir;
  const std::string folder = dir.file("results");
  fs::create_directory(folder);
  const std::string path = folder + "/run.db";
  write_killed_capture_without_log(dir, path);
  ReadOnlyFolder read_only(folder);
  if (!read_only.binds()) GTEST_SKIP() << "permission bits do not bind this user (root)";
  EXPECT_EQ(Reader(path).steps().size(), static_cast<std::size_t>(kSteps));
  EXPECT_FALSE(fs::exists(path + "-shm"));
}

TEST(ReadOnlyOpen, AKilledCapturesLogInAReadOnlyFolderIsOneClearError) {
  TempDir dir;
  const std::string folder = dir.file("results");
  fs::create_directory(folder);
  const std::string path = folder + "/run.db";
  write_killed_capture(dir, path);
  // The message, wherever the test runs.
  const std::string message = ts::store::unreadable_log_message(path);
  EXPECT_TRUE(contains(message, "its last writes are in " + path + "-wal")) << message;
  EXPECT_TRUE(contains(message, "copy " + path + " and " + path + "-wal to a folder you can write"))
      << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);

  ReadOnlyFolder read_only(folder);
  if (!read_only.binds()) GTEST_SKIP() << "permission bits do not bind this user (root)";
  const std::string error = read_error(path);
  EXPECT_TRUE(contains(error, "its last writes are in " + path + "-wal")) << error;
  EXPECT_TRUE(contains(error, "is read-only (Permission denied)")) << error;
  EXPECT_FALSE(contains(error, "No such file or directory")) << error;
  EXPECT_FALSE(fs::exists(path + "-shm"));
}

}  // namespace
