// Rows written straight into SQLite b-tree pages (btree_append.hpp): the file passes SQLite's
// integrity check, reads back every value through the table, its rowid ranges and the partial
// index, on the connection that wrote it and on a fresh one, and SQLite keeps writing it after.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "profiler/store/btree_append.hpp"
#include "profiler/store/sqlite.hpp"
#include "tests/profiler/test_util.hpp"

namespace {

using ts::store::Db;
using ts::store::Error;
using ts::store::IndexBtreeAppender;
using ts::store::PageAppender;
using ts::store::RecordBuilder;
using ts::store::TableBtreeAppender;
using ts::test::TempDir;
using Table = std::vector<std::vector<std::string>>;

constexpr std::int64_t kLong = 134217728;  // the partial index's bound
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

constexpr const char* kSchema =
    "CREATE TABLE event (id INTEGER PRIMARY KEY, dur_ns INTEGER NOT NULL, label INTEGER NOT "
    "NULL, step INTEGER, bytes INTEGER);"
    "CREATE INDEX event_long ON event (id) WHERE dur_ns >= 134217728;"
    "CREATE TABLE event_arg (id INTEGER PRIMARY KEY, work_size INTEGER, correlation INTEGER);";

// Each serial type's bounds, both signs, and the integer constants.
const std::vector<std::int64_t> kEdges = {0,
                                          1,
                                          -1,
                                          2,
                                          127,
                                          128,
                                          -128,
                                          -129,
                                          32767,
                                          32768,
                                          -32768,
                                          -32769,
                                          8388607,
                                          8388608,
                                          -8388608,
                                          -8388609,
                                          2147483647,
                                          2147483648,
                                          -2147483648,
                                          -2147483649,
                                          140737488355327,
                                          140737488355328,
                                          -140737488355328,
                                          -140737488355329,
                                          kMax,
                                          kMin};

using Opt = std::optional<std::int64_t>;

struct Event {
  std::int64_t id, dur, label;
  Opt step, bytes;
};
struct Arg {
  std::int64_t id;
  Opt work_size, correlation;
};
struct Rows {
  std::vector<Event> events;
  std::vector<Arg> args;
};

std::string text(const Opt& v) {
  return v ? std::to_string(*v) : "NULL";
}

// Rows with increasing ids from `first_id`: gaps of 1 to 3, one event in 8 long (indexed), every
// edge value in every nullable column, NULLs, and arguments for about one event in three.
Rows make_rows(std::size_t n, std::uint64_t seed, std::int64_t first_id = 1) {
  std::mt19937_64 rng(seed);
  Rows r;
  r.events.reserve(n);
  std::int64_t id = first_id;
  for (std::size_t i = 0; i < n; ++i) {
    Event e{};
    e.id = id;
    const std::uint64_t x = rng();
    e.dur = x % 8 == 0 ? kLong + static_cast<std::int64_t>(rng() % 4'000'000'000) : x % 1'000'000;
    if (i % 89 == 1) e.dur = kLong - 1;
    if (i % 97 == 0) e.dur = kLong;  // the first event is long
    e.label = static_cast<std::int64_t>(rng() % 300);
    if (i % 5 != 0) e.step = kEdges[(i / 5) % kEdges.size()];
    if (i % 7 != 3) e.bytes = kEdges[i % kEdges.size()];
    r.events.push_back(e);
    if (x % 3 == 1) {
      Arg a{id, {}, {}};
      if (i % 4 != 0) a.work_size = kEdges[(i / 3) % kEdges.size()];
      if (i % 6 != 1) a.correlation = static_cast<std::int64_t>(rng());
      r.args.push_back(a);
    }
    id += 1 + static_cast<std::int64_t>(rng() % 3);
  }
  return r;
}

void add(RecordBuilder& r, const Opt& v) {
  if (v)
    r.add_int(*v);
  else
    r.add_null();
}

std::span<const std::uint8_t> event_record(RecordBuilder& r, const Event& e) {
  r.clear();
  r.add_null();  // id: the rowid, stored as NULL as SQLite stores it
  r.add_int(e.dur);
  r.add_int(e.label);
  add(r, e.step);
  add(r, e.bytes);
  return r.bytes();
}

std::span<const std::uint8_t> arg_record(RecordBuilder& r, const Arg& a) {
  r.clear();
  r.add_null();
  add(r, a.work_size);
  add(r, a.correlation);
  return r.bytes();
}

void create(Db& db, const std::string& path, int page_size, const char* journal = "OFF") {
  db.open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, "cannot open");
  db.exec(("PRAGMA page_size=" + std::to_string(page_size) + "; PRAGMA journal_mode=" + journal)
              .c_str(),
          "pragma");
  db.exec(kSchema, "cannot create the schema of");
}

std::uint32_t root_of(const Db& db, const std::string& name) {
  ts::store::Stmt st(db, "SELECT rootpage FROM sqlite_schema WHERE name = '" + name + "'", "root");
  if (!st.step()) throw std::runtime_error("no " + name);
  return static_cast<std::uint32_t>(st.col_int(0));
}

Table query(sqlite3* db, const std::string& sql) {
  Table t;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << sql << ": " << sqlite3_errmsg(db);
    return t;
  }
  int rc = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int i = 0; i < sqlite3_column_count(st); ++i) {
      const auto* v = reinterpret_cast<const char*>(sqlite3_column_text(st, i));
      row.push_back(v != nullptr ? v : "NULL");
    }
    t.push_back(std::move(row));
  }
  if (rc != SQLITE_DONE) ADD_FAILURE() << sql << ": " << sqlite3_errmsg(db);
  sqlite3_finalize(st);
  return t;
}

std::string one(sqlite3* db, const std::string& sql) {
  const Table t = query(db, sql);
  return t.empty() || t[0].empty() ? "(none)" : t[0][0];
}

struct Depths {
  std::size_t event = 0, index = 0, arg = 0;
};

// Fills the three b-trees at once, so their pages interleave in the file.
Depths append_rows(Db& db, const Rows& rows) {
  PageAppender pages(db);
  TableBtreeAppender events(pages, root_of(db, "event"));
  IndexBtreeAppender longs(pages, root_of(db, "event_long"));
  TableBtreeAppender args(pages, root_of(db, "event_arg"));
  RecordBuilder r(pages.integer_constants());
  RecordBuilder ix(pages.integer_constants());
  std::size_t a = 0;
  for (const Event& e : rows.events) {
    events.append(e.id, event_record(r, e));
    if (e.dur >= kLong) {
      ix.clear();
      ix.add_int(e.id);  // (id, rowid)
      ix.add_int(e.id);
      longs.append(e.id, ix.bytes());
    }
    for (; a < rows.args.size() && rows.args[a].id <= e.id; ++a)
      args.append(rows.args[a].id, arg_record(r, rows.args[a]));
  }
  for (; a < rows.args.size(); ++a) args.append(rows.args[a].id, arg_record(r, rows.args[a]));
  events.finish();
  longs.finish();
  args.finish();
  pages.finish();
  return {events.depth(), longs.depth(), args.depth()};
}

void insert_rows(Db& db, const Rows& rows) {
  db.exec("BEGIN", "begin");
  {
    ts::store::Stmt ev(db, "INSERT INTO event VALUES (?, ?, ?, ?, ?)", "insert");
    for (const Event& e : rows.events) {
      ev.bind(1, e.id);
      ev.bind(2, e.dur);
      ev.bind(3, e.label);
      e.step ? ev.bind(4, *e.step) : ev.bind_null(4);
      e.bytes ? ev.bind(5, *e.bytes) : ev.bind_null(5);
      ev.run();
    }
    ts::store::Stmt ar(db, "INSERT INTO event_arg VALUES (?, ?, ?)", "insert");
    for (const Arg& a : rows.args) {
      ar.bind(1, a.id);
      a.work_size ? ar.bind(2, *a.work_size) : ar.bind_null(2);
      a.correlation ? ar.bind(3, *a.correlation) : ar.bind_null(3);
      ar.run();
    }
  }
  db.exec("COMMIT", "commit");
}

// What the tables should hold.
struct Model {
  std::map<std::int64_t, Event> events;
  std::map<std::int64_t, Arg> args;
  explicit Model(const Rows& rows) {
    for (const Event& e : rows.events) events[e.id] = e;
    for (const Arg& a : rows.args) args[a.id] = a;
  }
  Table event_rows(std::int64_t lo = kMin, std::int64_t hi = kMax) const {
    Table t;
    for (auto it = events.lower_bound(lo); it != events.end() && it->first <= hi; ++it) {
      const Event& e = it->second;
      t.push_back({std::to_string(e.id), std::to_string(e.dur), std::to_string(e.label),
                   text(e.step), text(e.bytes)});
    }
    return t;
  }
  Table arg_rows() const {
    Table t;
    for (const auto& [id, a] : args)
      t.push_back({std::to_string(id), text(a.work_size), text(a.correlation)});
    return t;
  }
  Table long_ids() const {
    Table t;
    for (const auto& [id, e] : events)
      if (e.dur >= kLong) t.push_back({std::to_string(id)});
    return t;
  }
};

// Everything a reader of `db` should see of `m`.
void expect_contents(sqlite3* db, const Model& m, const std::string& who) {
  SCOPED_TRACE(who);
  EXPECT_EQ(query(db, "PRAGMA integrity_check"), (Table{{"ok"}}));
  EXPECT_EQ(query(db, "SELECT id, dur_ns, label, step, bytes FROM event ORDER BY id"),
            m.event_rows());
  EXPECT_EQ(query(db, "SELECT * FROM event_arg ORDER BY id"), m.arg_rows());
  // Types survive: NULL stays NULL, every integer stays an integer.
  std::size_t null_steps = 0;
  for (const auto& [id, e] : m.events) null_steps += e.step ? 0 : 1;
  EXPECT_EQ(one(db, "SELECT count(*) FROM event WHERE typeof(step) = 'null'"),
            std::to_string(null_steps));
  EXPECT_EQ(one(db, "SELECT count(*) FROM event WHERE typeof(bytes) NOT IN ('null', 'integer')"),
            "0");
  // The partial index, scanned in its own order.
  EXPECT_EQ(query(db, "SELECT id FROM event INDEXED BY event_long WHERE dur_ns >= 134217728"),
            m.long_ids());
  EXPECT_EQ(one(db, "SELECT count(*) FROM event WHERE dur_ns >= 134217728"),
            std::to_string(m.long_ids().size()));
  // Rowid ranges: from the tree's search, not a scan.
  if (m.events.empty()) return;
  std::vector<std::int64_t> ids;
  for (const auto& [id, e] : m.events) ids.push_back(id);
  std::mt19937_64 rng(ids.size());
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges = {
      {kMin, ids.front()}, {ids.back(), kMax}, {ids.front() / 2 + 1, ids.back() / 2 - 1}};
  for (int i = 0; i < 12; ++i) {
    const std::size_t k = rng() % ids.size();
    const std::int64_t a = ids[k], b = ids[std::min(ids.size() - 1, k + rng() % 3000)];
    ranges.emplace_back(a, b);
    if (a < kMax) ranges.emplace_back(a + 1, b);  // bounds between rows too
  }
  for (const auto& [a, b] : ranges) {
    EXPECT_EQ(query(db, "SELECT id, dur_ns, label, step, bytes FROM event WHERE id BETWEEN " +
                            std::to_string(a) + " AND " + std::to_string(b)),
              m.event_rows(a, b))
        << a << ".." << b;
  }
  EXPECT_EQ(query(db,
                  "SELECT id FROM event INDEXED BY event_long WHERE dur_ns >= 134217728 AND "
                  "id BETWEEN " +
                      std::to_string(ranges[3].first) + " AND " + std::to_string(ranges[3].second)),
            [&] {
              Table t;
              for (const auto& row : m.long_ids()) {
                const std::int64_t id = std::stoll(row[0]);
                if (id >= ranges[3].first && id <= ranges[3].second) t.push_back(row);
              }
              return t;
            }());
}

// The connection that appended and a fresh one both see the rows.
void expect_both(Db& db, const std::string& path, const Model& m) {
  expect_contents(db.get(), m, "same connection");
  Db fresh;
  fresh.open(path, SQLITE_OPEN_READONLY, "cannot open");
  expect_contents(fresh.get(), m, "fresh connection");
}

// SQLite inserts (at the end and into gaps), updates across the index's bound and deletes.
void expect_sqlite_writes_after(Db& db, const std::string& path, Model m) {
  if (!m.events.empty()) {
    std::int64_t last = m.events.rbegin()->first;
    const std::int64_t first = m.events.begin()->first;
    db.exec("BEGIN", "begin");
    ts::store::Stmt ins(db, "INSERT INTO event VALUES (?, ?, ?, NULL, ?)", "insert");
    auto insert = [&](std::int64_t id, std::int64_t dur) {
      ins.bind(1, id);
      ins.bind(2, dur);
      ins.bind(3, std::int64_t{7});
      ins.bind(4, id / 3);
      ins.run();
      m.events[id] = Event{id, dur, 7, {}, id / 3};
    };
    for (int i = 1; i <= 300 && last < kMax; ++i) insert(++last, i % 2 == 0 ? kLong + i : i);
    int gaps = 0;
    for (auto it = m.events.begin(); it != m.events.end() && gaps < 300; ++it) {
      const auto next = std::next(it);
      if (next != m.events.end() && next->first > it->first + 1 && it->first < kMax) {
        insert(it->first + 1, gaps % 3 == 0 ? kLong * 2 : 5);
        ++gaps;
      }
    }
    const std::int64_t mid = first / 2 + last / 2;
    db.exec(("DELETE FROM event WHERE id BETWEEN " + std::to_string(mid) + " AND " +
             std::to_string(mid + 2000))
                .c_str(),
            "delete");
    m.events.erase(m.events.lower_bound(mid), m.events.upper_bound(mid + 2000));
    db.exec("UPDATE event SET dur_ns = dur_ns + 134217728 WHERE id % 11 = 0 AND dur_ns < 1000000",
            "update");
    for (auto& [id, e] : m.events)
      if (id % 11 == 0 && e.dur < 1000000) e.dur += kLong;
    db.exec("DELETE FROM event_arg WHERE id % 2 = 0", "delete");
    std::erase_if(m.args, [](const auto& kv) { return kv.first % 2 == 0; });
    db.exec("COMMIT", "commit");
  }
  db.exec("INSERT INTO event_arg VALUES (NULL, 1, 2)", "insert");  // SQLite picks the rowid
  const std::int64_t id = sqlite3_last_insert_rowid(db.get());
  m.args[id] = Arg{id, 1, 2};
  expect_both(db, path, m);
}

Table page_stats(sqlite3* db, const std::string& name) {
  return query(db,
               "SELECT pagetype, count(*), min(ncell), "
               "count(DISTINCT length(path) - length(replace(path, '/', ''))) "
               "FROM dbstat WHERE name = '" +
                   name + "' GROUP BY pagetype ORDER BY pagetype");
}

// Every leaf at one depth; no page without a cell, the root aside.
void expect_balanced(sqlite3* db, const std::string& name, std::size_t depth) {
  SCOPED_TRACE(name);
  const Table stats = page_stats(db, name);
  ASSERT_FALSE(stats.empty());
  for (const auto& row : stats) {
    if (row[0] == "leaf") {
      EXPECT_EQ(row[3], "1") << "leaves at different depths";
      if (depth == 1) {
        EXPECT_EQ(row[1], "1");
      } else {
        EXPECT_NE(row[2], "0") << "an empty leaf";
      }
    }
    if (row[0] == "internal") {
      EXPECT_NE(row[2], "0") << "an interior page without cells";
    }
  }
  EXPECT_EQ(one(db,
                "SELECT max(length(path) - length(replace(path, '/', ''))) FROM dbstat WHERE "
                "name = '" +
                    name + "'"),
            std::to_string(depth));
}

// The whole round: append `rows` into a new file, check it, check SQLite writing it after.
Depths round_trip(const TempDir& dir, const std::string& name, int page_size, const Rows& rows,
                  const char* journal = "OFF") {
  const std::string path = dir.file(name);
  Db db;
  create(db, path, page_size, journal);
  const Depths d = append_rows(db, rows);
  const Model m(rows);
  expect_both(db, path, m);
  if (rows.events.size() > 0) {
    expect_balanced(db.get(), "event", d.event);
    if (d.index > 0 && !m.long_ids().empty()) expect_balanced(db.get(), "event_long", d.index);
  }
  expect_sqlite_writes_after(db, path, m);
  return d;
}

TEST(BtreeAppend, RecordsAreSqlitesRecords) {
  RecordBuilder r(true);
  r.add_null();
  r.add_int(0);
  r.add_int(1);
  EXPECT_EQ(std::vector<std::uint8_t>(r.bytes().begin(), r.bytes().end()),
            (std::vector<std::uint8_t>{4, 0, 8, 9}));
  RecordBuilder legacy(false);  // schema format 1..3: no integer constants
  legacy.add_int(0);
  legacy.add_int(1);
  EXPECT_EQ(std::vector<std::uint8_t>(legacy.bytes().begin(), legacy.bytes().end()),
            (std::vector<std::uint8_t>{3, 1, 1, 0, 1}));
  struct Case {
    std::int64_t v;
    std::vector<std::uint8_t> record;
  };
  const Case cases[] = {
      {127, {2, 1, 0x7F}},
      {-128, {2, 1, 0x80}},
      {128, {2, 2, 0x00, 0x80}},
      {-129, {2, 2, 0xFF, 0x7F}},
      {32768, {2, 3, 0x00, 0x80, 0x00}},
      {-8388609, {2, 4, 0xFF, 0x7F, 0xFF, 0xFF}},
      {2147483648, {2, 5, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00}},
      {-140737488355328, {2, 5, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00}},
      {-140737488355329, {2, 6, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}},
      {kMin, {2, 6, 0x80, 0, 0, 0, 0, 0, 0, 0}},
      {kMax, {2, 6, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}},
  };
  for (const Case& c : cases) {
    r.clear();
    r.add_int(c.v);
    EXPECT_EQ(std::vector<std::uint8_t>(r.bytes().begin(), r.bytes().end()), c.record) << c.v;
  }
  // 200 columns: the header's size (202) is a 2-byte varint that counts itself.
  r.clear();
  for (int i = 0; i < 200; ++i) r.add_null();
  const auto big = r.bytes();
  ASSERT_EQ(big.size(), 202u);
  EXPECT_EQ(big[0], 0x81);
  EXPECT_EQ(big[1], 0x4A);
  // As many columns as a record takes, with a body; one more is refused.
  r.clear();
  for (std::size_t i = 0; i < RecordBuilder::kMaxColumns; ++i)
    r.add_int(static_cast<std::int64_t>(i) * 1000);
  const auto full = r.bytes();
  ASSERT_GE(full.size(), 2 + RecordBuilder::kMaxColumns);
  EXPECT_EQ(full[0], 0x82);  // 258 = 2 * 128 + 2
  EXPECT_EQ(full[1], 0x02);
  EXPECT_EQ(full[2], 8);                                   // 0: the constant
  EXPECT_EQ(full[2 + RecordBuilder::kMaxColumns - 1], 3);  // 255 000: three bytes
  EXPECT_THROW(r.add_null(), ts::store::Error);
}

std::uint64_t get_varint(const std::uint8_t*& p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    v = (v << 7) | (p[i] & 0x7F);
    if ((p[i] & 0x80) == 0) {
      p += i + 1;
      return v;
    }
  }
  v = (v << 8) | p[8];
  p += 9;
  return v;
}

// A root leaf the appender writes is, byte for byte, the page SQLite writes for the same rows
// inserted in order: same records, same cells, same layout.
TEST(BtreeAppend, OneLeafIsTheLeafSqliteWrites) {
  TempDir dir;
  Rows rows;
  for (std::size_t i = 0; i < kEdges.size(); ++i) {
    const std::int64_t v = kEdges[i];
    rows.events.push_back(
        {kEdges[i] / 2 + static_cast<std::int64_t>(i) * 3, v, v, i % 3 ? Opt(v) : Opt(), Opt(~v)});
  }
  std::sort(rows.events.begin(), rows.events.end(),
            [](const Event& a, const Event& b) { return a.id < b.id; });
  Db ours, theirs;
  create(ours, dir.file("ours.db"), 4096);
  create(theirs, dir.file("theirs.db"), 4096);
  EXPECT_EQ(append_rows(ours, rows).event, 1u);
  insert_rows(theirs, rows);
  const auto root = root_of(ours, "event");
  ASSERT_EQ(root, root_of(theirs, "event"));
  auto page = [&](const std::string& file) {
    const std::string bytes = ts::test::read_file(dir.file(file));
    return bytes.substr(std::size_t{root - 1} * 4096, 4096);
  };
  const std::string a = page("ours.db"), b = page("theirs.db");
  EXPECT_EQ(a, b);
  // And its cells are what they should be: size, rowid, record.
  const auto* p = reinterpret_cast<const std::uint8_t*>(a.data());
  ASSERT_EQ(p[0], 0x0D);
  ASSERT_EQ(std::size_t{p[3]} << 8 | p[4], rows.events.size());
  RecordBuilder r(true);
  for (std::size_t i = 0; i < rows.events.size(); ++i) {
    const std::uint8_t* c = p + (std::size_t{p[8 + 2 * i]} << 8 | p[9 + 2 * i]);
    const std::uint64_t size = get_varint(c);
    EXPECT_EQ(static_cast<std::int64_t>(get_varint(c)), rows.events[i].id);
    const auto rec = event_record(r, rows.events[i]);
    ASSERT_EQ(size, rec.size());
    EXPECT_EQ(std::memcmp(c, rec.data(), rec.size()), 0) << i;
  }
  expect_both(ours, dir.file("ours.db"), Model(rows));
}

TEST(BtreeAppend, ZeroRowsLeaveEmptyTrees) {
  TempDir dir;
  const Depths d = round_trip(dir, "zero.db", 4096, Rows{});
  EXPECT_EQ(d.event, 1u);
  EXPECT_EQ(d.index, 1u);
}

TEST(BtreeAppend, OneRow) {
  TempDir dir;
  Rows rows;
  rows.events.push_back({42, kLong + 5, 3, Opt(), Opt(kMin)});
  rows.args.push_back({42, Opt(kMax), Opt()});
  const Depths d = round_trip(dir, "one.db", 4096, rows);
  EXPECT_EQ(d.event, 1u);
}

// Rows of one size: (4096 - 8) / (cell + pointer) of them fill the root leaf exactly; one more
// makes two leaves under an interior root, as SQLite's own appends do.
TEST(BtreeAppend, OneFullLeafThenOneMore) {
  // Record: header (6) + dur_ns (2 bytes) + label (1 byte) = 9; cell: size 1 + rowid 2 + 9.
  auto rows_of = [](std::size_t n) {
    Rows r;
    for (std::size_t i = 0; i < n; ++i)
      r.events.push_back({200 + static_cast<std::int64_t>(i), 1000, 5, Opt(), Opt()});
    return r;
  };
  const std::size_t per_leaf = (4096 - 8) / (12 + 2);
  ASSERT_EQ(per_leaf * 14, 4096u - 8);  // the leaf is filled to the byte
  for (const std::size_t n : {per_leaf, per_leaf + 1}) {
    SCOPED_TRACE(n);
    TempDir dir;
    Db ours, theirs;
    create(ours, dir.file("ours.db"), 4096);
    create(theirs, dir.file("theirs.db"), 4096);
    const auto before = std::stoll(one(ours.get(), "PRAGMA page_count"));
    const Depths d = append_rows(ours, rows_of(n));
    insert_rows(theirs, rows_of(n));
    EXPECT_EQ(d.event, n == per_leaf ? 1u : 2u);
    EXPECT_EQ(std::stoll(one(ours.get(), "PRAGMA page_count")), before + (n == per_leaf ? 0 : 2));
    EXPECT_EQ(one(ours.get(), "PRAGMA page_count"), one(theirs.get(), "PRAGMA page_count"));
    EXPECT_EQ(page_stats(ours.get(), "event"), page_stats(theirs.get(), "event"));
    expect_both(ours, dir.file("ours.db"), Model(rows_of(n)));
    expect_sqlite_writes_after(ours, dir.file("ours.db"), Model(rows_of(n)));
  }
}

// 512-byte pages: about 20 events a leaf, 40 rowids an interior page: a tree of 4 levels.
TEST(BtreeAppend, ManyLevelsOnSmallPages) {
  TempDir dir;
  const Rows rows = make_rows(200'000, 1, -100'000);
  const Depths d = round_trip(dir, "deep.db", 512, rows);
  EXPECT_GE(d.event, 4u);
  EXPECT_GE(d.index, 3u);
  EXPECT_GE(d.arg, 3u);
}

TEST(BtreeAppend, LargestPages) {
  TempDir dir;
  const Rows rows = make_rows(60'000, 2);
  const Depths d = round_trip(dir, "large.db", 65536, rows);
  EXPECT_EQ(d.event, 2u);
  EXPECT_GE(d.arg, 2u);
}

TEST(BtreeAppend, RollbackJournalModeAndExtremeRowids) {
  TempDir dir;
  Rows rows;
  for (const std::int64_t id :
       {kMin, kMin + 1, std::int64_t{-1} << 40, std::int64_t{-1}, std::int64_t{0}, std::int64_t{1},
        std::int64_t{1} << 40, kMax - 1, kMax}) {
    rows.events.push_back({id, id == 0 ? kLong : 3, 1, Opt(id), Opt()});
    rows.args.push_back({id, Opt(id), Opt(~id)});
  }
  round_trip(dir, "delete.db", 1024, rows, "DELETE");
}

// The same rows through SQLite's INSERT: the same answers to every query, and leaves as full.
TEST(BtreeAppend, SameAsSqliteInserts) {
  TempDir dir;
  const Rows rows = make_rows(30'000, 3, -5000);
  Db ours, theirs;
  create(ours, dir.file("ours.db"), 4096);
  create(theirs, dir.file("theirs.db"), 4096);
  append_rows(ours, rows);
  insert_rows(theirs, rows);
  for (const char* q :
       {"SELECT * FROM event", "SELECT * FROM event_arg",
        "SELECT id, typeof(step), typeof(bytes) FROM event",
        "SELECT id FROM event INDEXED BY event_long WHERE dur_ns >= 134217728",
        "SELECT e.id, a.work_size FROM event e JOIN event_arg a USING (id) WHERE e.id > 100"}) {
    EXPECT_EQ(query(ours.get(), q), query(theirs.get(), q)) << q;
  }
  for (const char* t : {"event", "event_arg"}) {
    EXPECT_EQ(one(ours.get(), std::string("SELECT count(*) FROM dbstat WHERE pagetype = 'leaf' AND "
                                          "name = '") +
                                  t + "'"),
              one(theirs.get(), std::string("SELECT count(*) FROM dbstat WHERE pagetype = 'leaf' "
                                            "AND name = '") +
                                    t + "'"))
        << t;
  }
  EXPECT_EQ(query(ours.get(), "PRAGMA integrity_check"), (Table{{"ok"}}));
}

std::uint32_t header_u32(const std::string& path, std::size_t offset) {
  const std::string b = ts::test::read_file(path).substr(offset, 4);
  return static_cast<std::uint32_t>(static_cast<unsigned char>(b[0])) << 24 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[1])) << 16 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[2])) << 8 |
         static_cast<unsigned char>(b[3]);
}

// The connection's page cache held the empty trees; the header's new change counter (with the
// page count valid for it) makes it read them again. 3 rows rewrite the root pages only, so the
// page count alone would not tell.
TEST(BtreeAppend, TheWritingConnectionSeesTheRowsWithoutReopening) {
  for (const std::size_t n : {3, 5000}) {
    SCOPED_TRACE(n);
    TempDir dir;
    const std::string path = dir.file("cache.db");
    Db db;
    create(db, path, 4096);
    const Rows rows = make_rows(n, 4);
    const std::size_t longs = Model(rows).long_ids().size();
    ASSERT_GT(longs, 0u);
    EXPECT_EQ(one(db.get(), "SELECT count(*) FROM event"), "0");
    EXPECT_EQ(one(db.get(),
                  "SELECT count(*) FROM event INDEXED BY event_long WHERE dur_ns >= "
                  "134217728"),
              "0");
    const std::uint32_t counter = header_u32(path, 24);
    const std::uint32_t pages = header_u32(path, 28);
    append_rows(db, rows);
    EXPECT_EQ(header_u32(path, 24), counter + 1);
    EXPECT_EQ(header_u32(path, 92), counter + 1);  // the page count is valid
    EXPECT_EQ(header_u32(path, 96), static_cast<std::uint32_t>(sqlite3_libversion_number()));
    if (n == 3) {
      EXPECT_EQ(header_u32(path, 28), pages);
    }
    EXPECT_EQ(one(db.get(), "SELECT count(*) FROM event"), std::to_string(rows.events.size()));
    EXPECT_EQ(one(db.get(),
                  "SELECT count(*) FROM event INDEXED BY event_long WHERE dur_ns >= "
                  "134217728"),
              std::to_string(longs));
    EXPECT_EQ(query(db.get(), "PRAGMA integrity_check"), (Table{{"ok"}}));
    EXPECT_EQ(std::to_string(header_u32(path, 28)), one(db.get(), "PRAGMA page_count"));
  }
}

// A record of serial types (each 1 or 2 bytes, under 128 header bytes) and a body.
std::vector<std::uint8_t> record_of(std::initializer_list<std::uint64_t> types,
                                    const std::vector<std::uint8_t>& body) {
  std::vector<std::uint8_t> r = {0};
  for (const std::uint64_t t : types) {
    if (t >= 128) r.push_back(static_cast<std::uint8_t>(0x80 | (t >> 7)));
    r.push_back(static_cast<std::uint8_t>(t & 0x7F));
  }
  r[0] = static_cast<std::uint8_t>(r.size());
  r.insert(r.end(), body.begin(), body.end());
  return r;
}

// A blob of n bytes that sorts as `key` (big-endian first).
std::vector<std::uint8_t> blob(std::size_t n, std::uint32_t key) {
  std::vector<std::uint8_t> b(n, static_cast<std::uint8_t>(key * 7));
  b[0] = static_cast<std::uint8_t>(key >> 8);
  b[1] = static_cast<std::uint8_t>(key);
  return b;
}

constexpr std::uint32_t kFirstBig = 1000;  // rowids of 2 bytes (serial type 2)

struct BigFill {
  std::size_t index_blob = 0, table_blob = 0, index_depth = 0, table_depth = 0;
};

// Tables `big` (with index big_b on its blob) and `wide` filled with `rows` records of the
// largest size kept on a page: a table leaf holds one, an index page four at 512 bytes.
BigFill fill_big(Db& db, std::uint32_t rows) {
  db.exec(
      "CREATE TABLE big (id INTEGER PRIMARY KEY, b BLOB);"
      "CREATE INDEX big_b ON big (b);"
      "CREATE TABLE wide (id INTEGER PRIMARY KEY, b BLOB)",
      "schema");
  BigFill f;
  PageAppender pages(db);
  TableBtreeAppender big(pages, root_of(db, "big"));
  IndexBtreeAppender big_b(pages, root_of(db, "big_b"));
  TableBtreeAppender wide(pages, root_of(db, "wide"));
  EXPECT_EQ(wide.max_record_bytes(), pages.usable_size() - 35);
  EXPECT_EQ(big_b.max_record_bytes(), (pages.usable_size() - 12) * 64 / 255 - 23);
  // Index record: header 4 (size, 2-byte blob type, rowid type), blob, rowid (2 bytes).
  f.index_blob = big_b.max_record_bytes() - 4 - 2;
  // Table record: header 4 (size, NULL, 2-byte blob type), blob.
  f.table_blob = wide.max_record_bytes() - 4;
  for (std::uint32_t k = kFirstBig; k < kFirstBig + rows; ++k) {
    const auto b = blob(f.index_blob, k);
    big.append(k, record_of({0, 2 * b.size() + 12}, b));
    auto key = b;
    key.push_back(static_cast<std::uint8_t>(k >> 8));
    key.push_back(static_cast<std::uint8_t>(k));
    const auto ix = record_of({2 * b.size() + 12, 2}, key);
    EXPECT_EQ(ix.size(), big_b.max_record_bytes());
    big_b.append(k, ix);
    const auto w = blob(f.table_blob, k);
    const auto wr = record_of({0, 2 * w.size() + 12}, w);
    EXPECT_EQ(wr.size(), wide.max_record_bytes());
    wide.append(k, wr);
    if (k == kFirstBig) {
      EXPECT_THROW(wide.append(k + 1, std::vector<std::uint8_t>(wr.size() + 1)), Error);
      EXPECT_THROW(big_b.append(k + 1, std::vector<std::uint8_t>(ix.size() + 1)), Error);
    }
  }
  big.finish();
  big_b.finish();
  wide.finish();
  pages.finish();
  f.index_depth = big_b.depth();
  f.table_depth = wide.depth();
  return f;
}

void expect_big(sqlite3* h, std::uint32_t rows, const BigFill& f) {
  EXPECT_EQ(query(h, "PRAGMA integrity_check"), (Table{{"ok"}}));
  const std::string n = std::to_string(rows);
  EXPECT_EQ(query(h, "SELECT count(*), min(length(b)), max(length(b)) FROM big"),
            (Table{{n, rows ? std::to_string(f.index_blob) : "NULL",
                    rows ? std::to_string(f.index_blob) : "NULL"}}));
  EXPECT_EQ(query(h, "SELECT count(*), min(length(b)) FROM wide"),
            (Table{{n, rows ? std::to_string(f.table_blob) : "NULL"}}));
  EXPECT_EQ(one(h, "SELECT count(*) FROM dbstat WHERE pagetype = 'overflow'"), "0");
  // The index is scanned in order, and finds each blob.
  Table in_order;
  for (std::uint32_t k = kFirstBig; k < kFirstBig + rows; ++k)
    in_order.push_back({std::to_string(k)});
  EXPECT_EQ(query(h, "SELECT id FROM big INDEXED BY big_b WHERE b >= x''"), in_order);
  for (std::uint32_t k = kFirstBig; k < kFirstBig + rows; k += 1 + rows / 50) {
    const auto b = blob(f.index_blob, k);
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(
        sqlite3_prepare_v2(h, "SELECT id FROM big INDEXED BY big_b WHERE b = ?", -1, &st, nullptr),
        SQLITE_OK);
    sqlite3_bind_blob(st, 1, b.data(), static_cast<int>(b.size()), SQLITE_TRANSIENT);
    EXPECT_EQ(sqlite3_step(st), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int64(st, 0), k);
    sqlite3_finalize(st);
  }
  if (rows > 0) {
    expect_balanced(h, "big_b", f.index_depth);
    expect_balanced(h, "wide", f.table_depth);
  }
}

// The index's interior pages split every few entries, on every level.
TEST(BtreeAppend, LargestRecordsWithoutOverflow) {
  TempDir dir;
  Db db;
  db.open(dir.file("big.db"), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, "cannot open");
  db.exec("PRAGMA page_size=512; PRAGMA journal_mode=OFF", "pragma");
  const BigFill f = fill_big(db, 3000);
  EXPECT_GE(f.index_depth, 5u);
  EXPECT_EQ(f.table_depth, 3u);  // 3000 leaves of one row, about 60 rowids an interior page
  expect_big(db.get(), 3000, f);
  db.exec("DELETE FROM big WHERE id % 3 = 0; INSERT INTO big VALUES (NULL, x'00ff')", "write");
  EXPECT_EQ(query(db.get(), "PRAGMA integrity_check"), (Table{{"ok"}}));
}

// Every way a tree can end, up to three levels of the index and of the table: the last page of
// each level is closed with however many entries it has.
TEST(BtreeAppend, EveryRowCountUpToThreeLevels) {
  TempDir dir;
  std::size_t deepest = 0;
  for (std::uint32_t rows = 0; rows <= 140; ++rows) {
    SCOPED_TRACE(rows);
    const std::string path = dir.file(std::to_string(rows) + ".db");
    Db db;
    db.open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, "cannot open");
    db.exec("PRAGMA page_size=512; PRAGMA journal_mode=OFF", "pragma");
    const BigFill f = fill_big(db, rows);
    deepest = std::max(deepest, std::min(f.index_depth, f.table_depth));
    expect_big(db.get(), rows, f);
    if (HasFailure()) break;
  }
  EXPECT_EQ(deepest, 3u);
}

// Moves SQLite's lock byte (and with it the page that is never used) for one test; every
// connection of the process must be closed while it changes.
class PendingByte {
 public:
  explicit PendingByte(unsigned v) : old_(sqlite3_test_control(SQLITE_TESTCTRL_PENDING_BYTE, v)) {}
  ~PendingByte() {
    if (old_ > 0) sqlite3_test_control(SQLITE_TESTCTRL_PENDING_BYTE, static_cast<unsigned>(old_));
  }
  bool supported() const { return old_ > 0; }

 private:
  int old_;
};

// The page holding the lock byte (at 1 GiB in a real file, here at 64 KiB) is skipped.
TEST(BtreeAppend, TheLockBytePageIsSkipped) {
  const PendingByte pending(0x10000);
  if (!pending.supported()) GTEST_SKIP() << "SQLite built without test controls";
  const std::uint32_t lock_page = 0x10000 / 512 + 1;
  {
    TempDir dir;
    const std::string path = dir.file("lock.db");
    const Rows rows = make_rows(8000, 5);
    Db db;
    create(db, path, 512);
    append_rows(db, rows);
    ASSERT_GT(std::stoll(one(db.get(), "PRAGMA page_count")), lock_page + 10);
    const std::string bytes = ts::test::read_file(path);
    EXPECT_EQ(bytes.substr(std::size_t{lock_page - 1} * 512, 512), std::string(512, '\0'));
    expect_both(db, path, Model(rows));
    expect_sqlite_writes_after(db, path, Model(rows));
  }
}

TEST(BtreeAppend, RefusesWhatItCannotAppendTo) {
  TempDir dir;
  auto expect_refused = [](auto&& make, const std::string& path, const char* why) {
    try {
      make();
      ADD_FAILURE() << "not refused: " << why;
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(path), std::string::npos) << msg;
      EXPECT_NE(msg.find(why), std::string::npos) << msg;
    }
  };
  {
    const std::string path = dir.file("wal.db");
    Db db;
    create(db, path, 4096, "WAL");
    expect_refused([&] { PageAppender p(db); }, path, "journal mode is wal");
  }
  {
    const std::string path = dir.file("vacuum.db");
    Db db;
    db.open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, "cannot open");
    db.exec("PRAGMA auto_vacuum=FULL", "pragma");
    db.exec(kSchema, "schema");
    expect_refused([&] { PageAppender p(db); }, path, "auto_vacuum");
  }
  {
    Db db;
    db.open_memory("memory", "cannot open");
    db.exec(kSchema, "schema");
    expect_refused([&] { PageAppender p(db); }, "memory", "journal mode is memory");
  }
  const std::string path = dir.file("misuse.db");
  Db db;
  create(db, path, 4096);
  {
    Db reader;
    reader.open(path, SQLITE_OPEN_READONLY, "cannot open");
    expect_refused([&] { PageAppender p(reader); }, path, "read-only");
  }
  db.exec("BEGIN", "begin");
  expect_refused([&] { PageAppender p(db); }, path, "transaction is open");
  db.exec("COMMIT", "commit");
  {
    ts::store::Stmt running(db, "SELECT name FROM sqlite_schema", "select");
    ASSERT_TRUE(running.step());
    expect_refused([&] { PageAppender p(db); }, path, "statement is running");
  }
  {
    db.exec("PRAGMA locking_mode=EXCLUSIVE", "pragma");
    expect_refused([&] { PageAppender p(db); }, path, "locking mode");
    db.exec("PRAGMA locking_mode=NORMAL; SELECT 1 FROM event", "pragma");
  }
  {
    Db other;  // a reader in a transaction holds the file's shared lock
    other.open(path, SQLITE_OPEN_READONLY, "cannot open");
    other.exec("BEGIN; SELECT count(*) FROM event", "read");
    expect_refused([&] { PageAppender p(db); }, path, "another connection");
    other.exec("COMMIT", "commit");
  }
  {
    PageAppender pages(db);
    expect_refused([&] { TableBtreeAppender t(pages, root_of(db, "event_long")); }, path,
                   "not an empty table leaf");
    expect_refused([&] { IndexBtreeAppender t(pages, root_of(db, "event")); }, path,
                   "not an empty index leaf");
    expect_refused([&] { TableBtreeAppender t(pages, 1); }, path, "no table leaf root");
    expect_refused([&] { TableBtreeAppender t(pages, 1000); }, path, "no table leaf root");
    TableBtreeAppender events(pages, root_of(db, "event"));
    IndexBtreeAppender longs(pages, root_of(db, "event_long"));
    RecordBuilder r(pages.integer_constants());
    events.append(5, event_record(r, {5, 1, 1, {}, {}}));
    expect_refused([&] { events.append(5, r.bytes()); }, path, "rowid 5 after 5");
    expect_refused([&] { events.append(-3, r.bytes()); }, path, "rowids must increase");
    longs.append(7, r.bytes());
    expect_refused([&] { longs.append(7, r.bytes()); }, path, "entries must increase");
    // Dropped without finish(): nothing the file counts was written.
  }
  EXPECT_EQ(query(db.get(), "PRAGMA integrity_check"), (Table{{"ok"}}));
  EXPECT_EQ(one(db.get(), "SELECT count(*) FROM event"), "0");
  {
    Db other;  // the lock was released
    other.open(path, SQLITE_OPEN_READWRITE, "cannot open");
    other.exec("INSERT INTO event VALUES (1, 2, 3, 4, 5)", "insert");
  }
  // A table with rows is not empty.
  expect_refused(
      [&] {
        PageAppender pages(db);
        TableBtreeAppender t(pages, root_of(db, "event"));
      },
      path, "not an empty table leaf");
  EXPECT_EQ(query(db.get(), "SELECT * FROM event"), (Table{{"1", "2", "3", "4", "5"}}));
}

}  // namespace
