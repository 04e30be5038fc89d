#include "profiler/store/events_checksum.hpp"

#include <fcntl.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string_view>
#include <thread>
#include <vector>

#include "profiler/store/content_hash.hpp"
#include "profiler/store/page_file.hpp"
#include "profiler/store/read_only_open.hpp"
#include "profiler/store/sqlite_format.hpp"
#include "profiler/store/worker_threads.hpp"

namespace ts::store {

namespace {

constexpr int kMaxDepth = 40;  // SQLite's own limit is 20
constexpr std::size_t kUnitsPerTask = 64;

using sqlite_format::get4;
using sqlite_format::get_varint;

// One page of a tree to hash: interior pages are read once before (to find their children).
struct Unit {
  std::uint32_t page;
  bool leaf;
};

struct Tree {
  std::string type, name, sql;
  std::uint32_t root = 0;
  bool table = true;  // a table b-tree (rowid), else an index b-tree (WITHOUT ROWID tables too)
  std::size_t first_unit = 0, units = 0;
};

// Hashes the overflow pages of every cell of page `n` (in `buf`) that has some, in cell order,
// into `hash`; false on damage.
bool hash_overflow(PageFile& file, std::uint32_t n, const unsigned char* buf,
                   const std::vector<std::uint32_t>& offsets, unsigned char* scratch,
                   ContentHash& hash) {
  const unsigned char type = buf[PageFile::header_at(n)];
  if (type == kTableInterior) return true;  // its cells hold a child and a key, no payload
  const std::uint64_t u = file.usable_size();
  const std::uint64_t max_local = type == kTableLeaf ? u - 35 : (u - 12) * 64 / 255 - 23;
  const std::uint64_t min_local = (u - 12) * 32 / 255 - 23;
  const unsigned char* end = buf + u;
  for (const std::uint32_t off : offsets) {
    const unsigned char* p = buf + off;
    if (type == kTableLeaf && *p < 0x80) continue;  // a payload under 128 bytes: all local
    if (type == kIndexInterior) p += 4;
    std::uint64_t payload = 0, rowid = 0;
    if (!get_varint(p, end, payload)) return false;
    if (payload <= max_local) continue;
    if (type == kTableLeaf && !get_varint(p, end, rowid)) return false;
    const std::uint64_t k = min_local + (payload - min_local) % (u - 4);
    const std::uint64_t local = k <= max_local ? k : min_local;
    if (p + local + 4 > end) return false;
    std::uint64_t left = (payload - local + u - 5) / (u - 4);  // overflow pages
    if (left > file.pages()) return false;
    std::uint32_t next = get4(p + local);
    for (; left > 0; --left) {
      if (!file.read(next, scratch)) return false;
      hash.update(scratch, file.page_size());
      next = get4(scratch);
    }
  }
  return true;
}

// Lists the pages of `tree` in key order (each interior page before its children) into
// `units`, reading its interior pages only: every leaf of a b-tree is at the depth of its
// leftmost one (a leaf found elsewhere fails the hashing). False on damage.
bool list_pages(PageFile& file, Tree& tree, std::vector<Unit>& units) {
  std::vector<unsigned char> buf(file.page_size());
  std::vector<std::uint32_t> offsets, kids;
  tree.first_unit = units.size();
  // The leftmost path, read without marking its pages (the walk below reads them again).
  int leaf_depth = 0;
  if (!file.read(tree.root, buf.data(), false)) return false;
  const unsigned char kind = buf[PageFile::header_at(tree.root)];
  tree.table = is_table(kind);
  for (std::uint32_t n = tree.root; is_interior(buf[PageFile::header_at(n)]);) {
    if (++leaf_depth > kMaxDepth || !children(file, n, buf.data(), offsets, kids)) return false;
    n = kids.front();
    if (!file.read(n, buf.data(), false)) return false;
  }
  std::vector<std::pair<std::uint32_t, int>> stack{{tree.root, 0}};
  while (!stack.empty()) {
    const auto [n, depth] = stack.back();
    stack.pop_back();
    if (depth == leaf_depth) {
      units.push_back({n, true});
      continue;
    }
    if (!file.read(n, buf.data())) return false;
    const unsigned char type = buf[PageFile::header_at(n)];
    if (!is_interior(type) || is_table(type) != tree.table) return false;
    if (!children(file, n, buf.data(), offsets, kids)) return false;
    units.push_back({n, false});
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.emplace_back(*it, depth + 1);
  }
  tree.units = units.size() - tree.first_unit;
  return true;
}

// The hash of one unit: its page's bytes and those of its cells' overflow pages.
bool hash_unit(PageFile& file, const Tree& tree, const Unit& unit, unsigned char* buf,
               unsigned char* scratch, std::vector<std::uint32_t>& offsets, std::uint64_t& out) {
  // Interior pages were reached (marked) while listing.
  if (!file.read(unit.page, buf, unit.leaf)) return false;
  const unsigned char type = buf[PageFile::header_at(unit.page)];
  if (is_interior(type) == unit.leaf || is_table(type) != tree.table) return false;
  if (!file.cells(unit.page, buf, offsets)) return false;
  ContentHash hash;
  hash.update(buf, file.page_size());
  if (!hash_overflow(file, unit.page, buf, offsets, scratch, hash)) return false;
  out = hash.digest();
  return true;
}

// Hashes every unit on up to 8 threads; false on damage.
bool hash_units(PageFile& file, const std::vector<Tree>& trees, const std::vector<Unit>& units,
                std::vector<std::uint64_t>& digests) {
  digests.assign(units.size(), 0);
  std::vector<std::size_t> tree_of(units.size());
  for (std::size_t t = 0; t < trees.size(); ++t)
    std::fill_n(tree_of.begin() + static_cast<std::ptrdiff_t>(trees[t].first_unit), trees[t].units,
                t);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> damaged{false};
  auto work = [&] {
    std::vector<unsigned char> buf(file.page_size()), scratch(file.page_size());
    std::vector<std::uint32_t> offsets;
    for (;;) {
      const std::size_t from = next.fetch_add(kUnitsPerTask);
      if (from >= units.size() || damaged.load(std::memory_order_relaxed)) return;
      const std::size_t to = std::min(units.size(), from + kUnitsPerTask);
      for (std::size_t i = from; i < to; ++i) {
        if (!hash_unit(file, trees[tree_of[i]], units[i], buf.data(), scratch.data(), offsets,
                       digests[i])) {
          damaged = true;
          return;
        }
      }
    }
  };
  const std::size_t threads = std::clamp<std::size_t>(
      std::min<std::size_t>(std::thread::hardware_concurrency(), units.size() / 256 + 1), 1, 8);
  run_on_threads(threads, work);
  return !damaged;
}

}  // namespace

std::optional<EventsChecksum> events_checksum(const Db& db,
                                              const std::vector<std::string>& skip) noexcept {
  try {
    OwnedFd fd;
    fd.fd = ::open(db.path().c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd.fd < 0) return std::nullopt;
    const std::optional<PageGeometry> geometry = rollback_geometry(fd.fd);
    if (!geometry) return std::nullopt;
    const std::uint32_t page_size = geometry->page_size, usable = geometry->usable;
    const std::uint64_t pages = geometry->pages;
    PageFile file(fd.fd, *geometry);

    std::vector<Tree> trees;
    {
      Stmt schema(db,
                  "SELECT type, name, coalesce(sql, ''), rootpage, tbl_name FROM sqlite_schema "
                  "WHERE rootpage > 0 AND tbl_name NOT IN ('analysis', 'overview') ORDER BY name",
                  "cannot read the schema of");
      while (schema.step()) {
        if (std::find(skip.begin(), skip.end(), schema.col_text(4)) != skip.end()) continue;
        const std::int64_t root = schema.col_int(3);
        if (root <= 0 || static_cast<std::uint64_t>(root) > pages) return std::nullopt;
        Tree t;
        t.type = schema.col_text(0);
        t.name = schema.col_text(1);
        t.sql = schema.col_text(2);
        t.root = static_cast<std::uint32_t>(root);
        trees.push_back(std::move(t));
      }
    }
    std::vector<Unit> units;
    for (Tree& t : trees)
      if (!list_pages(file, t, units)) return std::nullopt;
    std::vector<std::uint64_t> digests;
    if (!hash_units(file, trees, units, digests)) return std::nullopt;

    ContentHash all;
    all.update_u64(page_size);
    all.update_u64(usable);
    for (const Tree& t : trees) {
      for (const std::string* s : {&t.type, &t.name, &t.sql}) {
        all.update_u64(s->size());
        all.update(*s);
      }
      all.update_u64(t.units);
      all.update(digests.data() + t.first_unit, t.units * sizeof(std::uint64_t));
    }
    return EventsChecksum{all.digest(), std::uint64_t{units.size()} * page_size};
  } catch (...) {
    return std::nullopt;
  }
}

std::optional<EventsChecksum> events_checksum(const std::string& path,
                                              const std::vector<std::string>& skip) noexcept {
  try {
    Db db;
    open_read_only(db, path, "cannot open trace");
    sqlite3_busy_timeout(db.get(), 2000);
    sqlite3_db_config(db.get(), SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    db.exec("PRAGMA trusted_schema=OFF; BEGIN", "cannot read");
    // The schema query takes the shared lock, held until the transaction ends: no other
    // connection commits while the pages are read.
    std::optional<EventsChecksum> sum = events_checksum(db, skip);
    sqlite3_exec(db.get(), "COMMIT", nullptr, nullptr, nullptr);
    return sum;
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace ts::store
