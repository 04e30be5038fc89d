// Every SQL example of traces/README.md runs as written on the sample traces, within a bounded
// number of SQLite steps (a query that would not finish on a large trace fails here first).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> sql_examples(const std::string& markdown_path) {
  std::ifstream in(markdown_path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string md = text.str();
  const std::regex block("```sql\n([\\s\\S]*?)```");
  std::vector<std::string> out;
  for (std::sregex_iterator it(md.begin(), md.end(), block), end; it != end; ++it)
    out.push_back((*it)[1].str());
  return out;
}

// Virtual machine steps a query may take per event of the trace: the examples are scans and
// key lookups, a few hundred steps per row; a join without an index costs rows² and trips it.
constexpr long kStepsPerEvent = 4000;

TEST(ReadmeSql, EveryExampleRunsOnTheSampleTraces) {
  const std::vector<std::string> examples = sql_examples("traces/README.md");
  ASSERT_GE(examples.size(), 10u) << "the README's SQL examples were not found";
  for (const char* trace : {"traces/input_bound.db", "traces/tuned.db", "traces/opencl.db"}) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open_v2(trace, &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK) << trace;
    sqlite3_stmt* count = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT count(*) FROM event", -1, &count, nullptr), SQLITE_OK);
    ASSERT_EQ(sqlite3_step(count), SQLITE_ROW);
    long budget = kStepsPerEvent * (1 + sqlite3_column_int64(count, 0));
    sqlite3_finalize(count);
    // Called every 1000 steps: interrupt the query once its budget is spent.
    sqlite3_progress_handler(
        db, 1000, [](void* left) { return (*static_cast<long*>(left) -= 1000) < 0 ? 1 : 0; },
        &budget);
    for (const std::string& sql : examples) {
      budget = kStepsPerEvent * 1000;  // reset per query (at least 4 M steps)
      char* error = nullptr;
      const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
      EXPECT_EQ(rc, SQLITE_OK) << trace << ": " << (error ? error : "") << "\n" << sql;
      sqlite3_free(error);
    }
    sqlite3_close(db);
  }
}

// The counter example names a counter the engine records.
TEST(ReadmeSql, TheCounterExampleFindsSamples) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2("traces/tuned.db", &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  for (const std::string& sql : sql_examples("traces/README.md")) {
    if (sql.find("FROM counters") == std::string::npos) continue;
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql;
    EXPECT_EQ(sqlite3_step(st), SQLITE_ROW) << "no samples: " << sql;
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
}

}  // namespace
