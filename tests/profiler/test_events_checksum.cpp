// The checksum of a trace's stored tables (events_checksum.hpp) and the hash under it
// (content_hash.hpp): the same for the same content, changed by any edit of a row, unchanged by
// what is kept in the analysis table, and no answer (never a crash) for a file it cannot check.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "profiler/store/analysis_table.hpp"
#include "profiler/store/content_hash.hpp"
#include "profiler/store/events_checksum.hpp"
#include "profiler/store/writer.hpp"
#include "tests/profiler/store_fixture.hpp"
#include "tests/profiler/test_util.hpp"

namespace {

namespace fs = std::filesystem;
using ts::store::events_checksum;
using ts::test::TempDir;

bool exec_sql(const std::string& path, const std::string& statements) {
  sqlite3* db = nullptr;
  const bool ok = sqlite3_open(path.c_str(), &db) == SQLITE_OK &&
                  sqlite3_exec(db, statements.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
  sqlite3_close(db);
  return ok;
}

// A finished trace of `steps` steps in pages of `page` bytes, with a name long enough to
// overflow a page; staged as a capture writes (auto_vacuum) or not.
std::string write_trace(const TempDir& dir, const std::string& name, int page, bool staged) {
  const std::string path = dir.file(name);
  ts::store::WriterOptions options = staged ? ts::test::staged() : ts::store::WriterOptions{};
  options.page_size = page;
  ts::store::Writer w(path, options);
  ts::test::write_dictionary(w);
  w.put_string(900, std::string(3 * page, 'k'));
  auto rows = ts::test::step_rows(400);
  w.append(std::span<ts::store::EventRow>(rows));
  w.put_meta("engine.model", "mlp");
  w.finish();
  return path;
}

TEST(ContentHash, IsXxh64) {
  // XXH64 reference values (xxhash.h, seed 0 and seed 1).
  EXPECT_EQ(ts::store::content_hash("", 0), 0xEF46DB3751D8E999ULL);
  EXPECT_EQ(ts::store::content_hash("a", 1), 0xD24EC4F1A98C6E5BULL);
  EXPECT_EQ(ts::store::content_hash("abc", 3), 0x44BC2CF5AD770999ULL);
  // Streamed in any pieces, the same digest as in one call.
  std::string bytes;
  for (int i = 0; i < 1000; ++i) bytes.push_back(static_cast<char>(i * 31 + 7));
  for (std::size_t cut : {0u, 1u, 31u, 32u, 33u, 500u, 999u}) {
    ts::store::ContentHash h(1);
    h.update(bytes.data(), cut);
    h.update(bytes.data() + cut, bytes.size() - cut);
    EXPECT_EQ(h.digest(), ts::store::content_hash(bytes.data(), bytes.size(), 1)) << cut;
  }
}

TEST(EventsChecksum, ChangedByAnyEditOfARowAndByNothingElse) {
  for (const int page : {1024, 4096, 65536}) {
    for (const bool staged : {false, true}) {
      SCOPED_TRACE(std::to_string(page) + (staged ? " staged" : ""));
      TempDir dir;
      const std::string path = write_trace(dir, "t.db", page, staged);
      const auto sum = events_checksum(path);
      ASSERT_TRUE(sum);
      EXPECT_GT(sum->bytes, 0u);
      // The same content in a copy; what the analysis table holds, kept, replaced and dropped
      // (its table created in a transaction of its own), changes nothing.
      fs::copy_file(path, dir.file("copy.db"));
      EXPECT_EQ(events_checksum(dir.file("copy.db"))->checksum, sum->checksum);
      ASSERT_TRUE(ts::store::keep_analysis(path, "k1", "k", 3, [&](std::size_t i) {
        return std::string(static_cast<std::size_t>(page) * (i + 1), 'a');
      }));
      ASSERT_TRUE(ts::store::keep_analysis(path, "k2", "k", 1,
                                           [](std::size_t) { return std::string("b"); }));
      ASSERT_TRUE(ts::store::forget_kept_analysis(path, "k1"));
      EXPECT_EQ(events_checksum(path)->checksum, sum->checksum);
      // Each edit of a row changes it: an event in the middle, its argument, a string (its
      // overflowing tail), meta, a step.
      for (const char* edit :
           {"UPDATE event SET dur_ns = dur_ns + 1 WHERE id = (SELECT id FROM event ORDER BY id "
            "LIMIT 1 OFFSET 200)",
            "DELETE FROM event WHERE id = (SELECT id FROM event ORDER BY id LIMIT 1 OFFSET 300)",
            "UPDATE string SET text = substr(text, 1, length(text) - 1) || 'z' WHERE id = 900",
            "UPDATE meta SET value = 'cnn' WHERE key = 'engine.model'",
            "UPDATE step_span SET dur_ns = dur_ns + 1 WHERE step = 3"}) {
        SCOPED_TRACE(edit);
        const std::string edited = dir.file("edited.db");
        fs::copy_file(path, edited, fs::copy_options::overwrite_existing);
        ASSERT_TRUE(exec_sql(edited, edit));
        const auto after = events_checksum(edited);
        ASSERT_TRUE(after);
        EXPECT_NE(after->checksum, sum->checksum);
      }
    }
  }
}

TEST(EventsChecksum, NoAnswerForAFileItCannotCheck) {
  TempDir dir;
  const std::string path = write_trace(dir, "t.db", 1024, false);
  EXPECT_FALSE(events_checksum(dir.file("missing.db")));
  // Write-ahead-log mode: committed pages may be in the -wal file.
  const std::string wal = dir.file("wal.db");
  fs::copy_file(path, wal);
  ASSERT_TRUE(exec_sql(wal, "PRAGMA journal_mode=WAL"));
  EXPECT_FALSE(events_checksum(wal));
  // A child pointer of the event table's root turned to the root itself (a loop), then to a
  // page past the file's end: damage, found without reading forever.
  const std::string root = ts::test::sql(path,
                                         "SELECT rootpage FROM sqlite_schema WHERE name = "
                                         "'event'")
                               .rows.at(0)
                               .at(0);
  std::string bytes = ts::test::read_file(path);
  const std::size_t at = (std::stoul(root) - 1) * 1024;
  ASSERT_EQ(static_cast<unsigned char>(bytes.at(at)), 0x05) << "an interior page";
  for (const std::uint32_t child : {static_cast<std::uint32_t>(std::stoul(root)), 0xFFFFFFu}) {
    std::string damaged = bytes;
    for (int i = 0; i < 4; ++i) damaged[at + 8 + i] = static_cast<char>(child >> (24 - 8 * i));
    ts::test::write_file(dir.file("damaged.db"), damaged);
    EXPECT_FALSE(events_checksum(dir.file("damaged.db"))) << child;
  }
}

}  // namespace
