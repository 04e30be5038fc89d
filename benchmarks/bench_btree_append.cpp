// Rows written straight into the b-tree pages (btree_append.hpp) against SQLite's multi-row
// INSERT (multi_insert.hpp, as the writer inserts) of the same rows into the same schema: the
// trace's event table, its partial index of long events and the event_arg table, on a new file
// with journal_mode=OFF and synchronous=OFF. Prints the best of K runs of each, rows/s, and the
// ratio; both files are checked to hold the same rows.
//
//   bench_btree_append [--rows N] [--repeat K] [--page-size P]
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "profiler/store/btree_append.hpp"
#include "profiler/store/error.hpp"
#include "profiler/store/multi_insert.hpp"
#include "profiler/store/sqlite.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using ts::store::Db;
constexpr std::int64_t kLong = 134217728;
constexpr std::int64_t kNull = INT64_MIN;  // no value: stored as NULL

constexpr const char* kSchema =
    "CREATE TABLE event (id INTEGER PRIMARY KEY, dur_ns INTEGER NOT NULL, label INTEGER NOT "
    "NULL, step INTEGER, bytes INTEGER);"
    "CREATE INDEX event_long ON event (id) WHERE dur_ns >= 134217728;"
    "CREATE TABLE event_arg (id INTEGER PRIMARY KEY, work_size INTEGER, correlation INTEGER);";

struct Event {
  std::int64_t id, dur, label, step, bytes;
};
struct Arg {
  std::int64_t id, work_size, correlation;
};

// Rows shaped like a trace's: keys (start << 16 | track) in order, mostly short durations, a
// step on one event in ten, bytes on one in four, arguments on kernels (about half).
void make_rows(long long n, std::vector<Event>& events, std::vector<Arg>& args) {
  std::mt19937_64 rng(42);
  std::int64_t start = 0;
  for (long long i = 0; i < n; ++i) {
    start += 1 + static_cast<std::int64_t>(rng() % 20'000);
    const std::int64_t id = start << 16 | static_cast<std::int64_t>(rng() % 16);
    const std::uint64_t x = rng();
    const std::int64_t dur = x % 64 == 0 ? kLong + static_cast<std::int64_t>(x % 1'000'000'000)
                                         : static_cast<std::int64_t>(x % 200'000);
    events.push_back({id, dur, static_cast<std::int64_t>(rng() % 5000),
                      i % 10 == 0 ? i / 10 : kNull,
                      i % 4 == 0 ? static_cast<std::int64_t>(rng() % 100'000'000) : kNull});
    if (x % 2 == 1) args.push_back({id, static_cast<std::int64_t>(x % 4096), i});
  }
}

void create(Db& db, const std::string& path, long long page_size) {
  std::filesystem::remove(path);
  db.open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, "cannot open");
  db.exec(("PRAGMA page_size=" + std::to_string(page_size) +
           "; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF")
              .c_str(),
          "pragma");
  db.exec(kSchema, "schema");
}

void bind_opt(ts::store::Stmt& st, int i, std::int64_t v) {
  st.bind_opt(i, v, kNull);
}

void insert_rows(Db& db, const std::vector<Event>& events, const std::vector<Arg>& args) {
  db.exec("BEGIN", "begin");
  {
    ts::store::MultiRowInsert ev(db, "INSERT INTO event VALUES ", 5, "insert");
    ev.insert(std::span<const Event>(events), [](ts::store::Stmt& st, int p, const Event& e) {
      st.bind(p, e.id);
      st.bind(p + 1, e.dur);
      st.bind(p + 2, e.label);
      bind_opt(st, p + 3, e.step);
      bind_opt(st, p + 4, e.bytes);
    });
    ts::store::MultiRowInsert ar(db, "INSERT INTO event_arg VALUES ", 3, "insert");
    ar.insert(std::span<const Arg>(args), [](ts::store::Stmt& st, int p, const Arg& a) {
      st.bind(p, a.id);
      bind_opt(st, p + 1, a.work_size);
      bind_opt(st, p + 2, a.correlation);
    });
  }
  db.exec("COMMIT", "commit");
}

std::uint32_t root_of(const Db& db, const char* name) {
  ts::store::Stmt st(
      db, std::string("SELECT rootpage FROM sqlite_schema WHERE name = '") + name + "'", "root");
  st.step();
  return static_cast<std::uint32_t>(st.col_int(0));
}

void add(ts::store::RecordBuilder& r, std::int64_t v) {
  if (v == kNull)
    r.add_null();
  else
    r.add_int(v);
}

void append_rows(Db& db, const std::vector<Event>& events, const std::vector<Arg>& args) {
  ts::store::PageAppender pages(db);
  ts::store::TableBtreeAppender ev(pages, root_of(db, "event"));
  ts::store::IndexBtreeAppender longs(pages, root_of(db, "event_long"));
  ts::store::TableBtreeAppender ar(pages, root_of(db, "event_arg"));
  ts::store::RecordBuilder r(pages.integer_constants());
  std::size_t a = 0;
  for (const Event& e : events) {
    r.clear();
    r.add_null();
    r.add_int(e.dur);
    r.add_int(e.label);
    add(r, e.step);
    add(r, e.bytes);
    ev.append(e.id, r.bytes());
    if (e.dur >= kLong) {
      r.clear();
      r.add_int(e.id);
      r.add_int(e.id);
      longs.append(e.id, r.bytes());
    }
    for (; a < args.size() && args[a].id <= e.id; ++a) {
      r.clear();
      r.add_null();
      add(r, args[a].work_size);
      add(r, args[a].correlation);
      ar.append(args[a].id, r.bytes());
    }
  }
  ev.finish();
  longs.finish();
  ar.finish();
  pages.finish();
}

std::string summary(const Db& db) {
  ts::store::Stmt st(db,
                     "SELECT (SELECT count(*) || ' ' || total(dur_ns) || ' ' || total(bytes) FROM "
                     "event) || ' ' || (SELECT count(*) || ' ' || total(correlation) FROM "
                     "event_arg) || ' ' || (SELECT count(*) FROM event INDEXED BY event_long "
                     "WHERE dur_ns >= 134217728)",
                     "summary");
  st.step();
  return st.col_text(0);
}

bool parse_int(std::string_view s, long long& out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && out > 0;
}

}  // namespace

int main(int argc, char** argv) {
  long long rows = 2'000'000, repeat = 3, page_size = 4096;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--rows" && has_value && parse_int(argv[i + 1], rows)) {
      ++i;
    } else if (a == "--repeat" && has_value && parse_int(argv[i + 1], repeat)) {
      ++i;
    } else if (a == "--page-size" && has_value && parse_int(argv[i + 1], page_size)) {
      ++i;
    } else {
      std::fprintf(stderr, "usage: bench_btree_append [--rows N] [--repeat K] [--page-size P]\n");
      return 2;
    }
  }
  try {
    std::vector<Event> events;
    std::vector<Arg> args;
    events.reserve(static_cast<std::size_t>(rows));
    make_rows(rows, events, args);
    const std::string dir = std::filesystem::temp_directory_path().string();
    const std::string ours = dir + "/bench_btree_append_" + std::to_string(::getpid()) + ".db";
    const std::string theirs = dir + "/bench_btree_insert_" + std::to_string(::getpid()) + ".db";
    double best_insert = 1e30, best_append = 1e30;
    for (long long k = 0; k < repeat; ++k) {
      {
        Db db;
        create(db, theirs, page_size);
        const auto t0 = Clock::now();
        insert_rows(db, events, args);
        best_insert =
            std::min(best_insert, std::chrono::duration<double>(Clock::now() - t0).count());
      }
      {
        Db db;
        create(db, ours, page_size);
        const auto t0 = Clock::now();
        append_rows(db, events, args);
        best_append =
            std::min(best_append, std::chrono::duration<double>(Clock::now() - t0).count());
      }
    }
    Db a, b;
    a.open(ours, SQLITE_OPEN_READONLY, "cannot open");
    b.open(theirs, SQLITE_OPEN_READONLY, "cannot open");
    const bool same = summary(a) == summary(b);
    const double n = static_cast<double>(rows);
    std::printf("%lld events (+%zu arguments, %lld-byte pages), best of %lld\n", rows, args.size(),
                page_size, repeat);
    std::printf("  SQLite multi-row INSERT : %8.3f s  %6.2f M events/s  %6.1f ns/event  %6.1f MB\n",
                best_insert, n / best_insert / 1e6, best_insert / n * 1e9,
                static_cast<double>(std::filesystem::file_size(theirs)) / 1e6);
    std::printf("  b-tree appender         : %8.3f s  %6.2f M events/s  %6.1f ns/event  %6.1f MB\n",
                best_append, n / best_append / 1e6, best_append / n * 1e9,
                static_cast<double>(std::filesystem::file_size(ours)) / 1e6);
    std::printf("  appender / INSERT speed : %.1fx   same rows: %s\n", best_insert / best_append,
                same ? "yes" : "NO");
    a.close();
    b.close();
    std::filesystem::remove(ours);
    std::filesystem::remove(theirs);
    return same ? 0 : 1;
  } catch (const ts::store::Error& e) {
    std::fprintf(stderr, "bench_btree_append: %s\n", e.what());
    return 1;
  }
}
