// Rows written straight into the b-tree pages of an SQLite database file, in key order, instead of
// through SQLite's per-row INSERT (https://www.sqlite.org/fileformat2.html). The file stays an
// ordinary SQLite database: SQLite reads it, `PRAGMA integrity_check` passes, and SQLite may
// insert and delete rows afterwards.
//
// Use: create the tables and indexes with SQLite and commit; then, on the same connection, one
// PageAppender, one TableBtreeAppender or IndexBtreeAppender per b-tree to fill (their root page
// from sqlite_schema.rootpage), each appender's finish(), and last PageAppender::finish(). The
// connection sees the new rows in its next transaction, without reopening.
//
// Preconditions (checked; an Error otherwise): no transaction or running statement on the
// connection, journal mode OFF or DELETE (not WAL), auto_vacuum NONE, locking mode NORMAL, and
// every b-tree to fill empty, as CREATE TABLE or CREATE INDEX left it. Records must fit on a page
// without overflow pages. Between the PageAppender's construction and its finish() the connection
// must not be used: the PageAppender holds the file's exclusive lock through SQLite's own file
// handle, so other connections get SQLITE_BUSY meanwhile. Not crash-safe: a crash before
// PageAppender::finish() returns leaves a file that fails integrity_check, as a journal_mode=OFF
// write would; the file being written anew is the intended use.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "profiler/store/sqlite.hpp"
#include "profiler/store/write_behind.hpp"

namespace ts::store {

// Appends pages to the database file of an open connection, through SQLite's own file handle
// (SQLITE_FCNTL_FILE_POINTER): a descriptor of our own, once closed, would drop the POSIX locks
// SQLite holds on the file. Pages are buffered and written 64 KiB at a time (a page at least).
class PageAppender {
 public:
  // Checks the preconditions, takes the file's exclusive lock and reads its header.
  explicit PageAppender(Db& db);
  // Releases the lock. Without finish() the file's header still counts only the old pages, and a
  // root page written meanwhile may point past them: the file is then damaged.
  ~PageAppender();
  PageAppender(const PageAppender&) = delete;
  PageAppender& operator=(const PageAppender&) = delete;

  const std::string& path() const { return db_.path(); }
  std::uint32_t page_size() const { return page_size_; }
  // The page size less the bytes reserved at the end of every page (header offset 20).
  std::uint32_t usable_size() const { return usable_size_; }
  // Schema format 4 or more: serial types 8 and 9 stand for the integers 0 and 1.
  bool integer_constants() const { return schema_format_ >= 4; }
  // Pages the file had when the appender took it; pages up to this number may be written again.
  std::uint32_t first_page_count() const { return old_page_count_; }
  // Pages the file holds with those appended so far.
  std::uint32_t page_count() const { return next_page_ - 1; }

  // Writes `page` (page_size() bytes) after the last page of the file; returns its number. The
  // lock-byte page (the page holding byte 2^30 of the file) is skipped, as SQLite skips it.
  std::uint32_t append(std::span<const std::uint8_t> page);
  // Writes page `page_number` again (a root page): one of the file's pages but the first.
  void write(std::uint32_t page_number, std::span<const std::uint8_t> page);
  // Reads page `page_number` (page_size() bytes into `out`).
  void read(std::uint32_t page_number, std::span<std::uint8_t> out);
  // Writes what is buffered and the header: the new page count, the file change counter plus
  // one, and the version-valid-for number equal to it, so that every connection (this one
  // included) drops its cached pages at its next transaction. Syncs unless synchronous=OFF.
  // Releases the lock; nothing may be appended afterwards.
  void finish();

 private:
  void flush();
  void wait_for_writes();
  // The file read and written directly, once the buffers handed over are written.
  void write_at(const std::uint8_t* data, std::size_t bytes, std::uint64_t offset);
  void read_at(std::uint8_t* data, std::size_t bytes, std::uint64_t offset);
  void unlock() noexcept;
  [[noreturn]] void fail(std::string_view what, int rc = SQLITE_OK) const;

  Db& db_;
  sqlite3_file* file_ = nullptr;
  bool locked_ = false;
  bool finished_ = false;
  bool sync_ = true;
  std::uint32_t page_size_ = 0;
  std::uint32_t usable_size_ = 0;
  std::uint32_t schema_format_ = 0;
  std::uint32_t old_page_count_ = 0;
  std::uint32_t next_page_ = 0;  // the number the next appended page gets
  std::uint32_t lock_page_ = 0;  // the lock-byte page, never written
  std::uint32_t max_page_count_ = 0;
  std::uint8_t versions_[16] = {};  // header bytes 24..39 as read: a change meanwhile is refused
  std::vector<std::uint8_t> buffer_;
  std::optional<WriteBehind> behind_;  // writes the full buffers while the next fills
  std::uint32_t buffer_first_ = 0;     // page number of the first buffered page
  std::uint32_t buffer_pages_ = 0;
  std::uint32_t chunk_pages_ = 0;
};

// One record (header and body) as SQLite's OP_MakeRecord builds it, for integer and NULL
// columns: each integer in its smallest serial type. A rowid table's INTEGER PRIMARY KEY column
// is stored as NULL (its value is the rowid), as SQLite stores it. No allocation once warmed.
class RecordBuilder {
 public:
  // Columns a record holds at most (the header's size then fits a varint of two bytes).
  static constexpr std::size_t kMaxColumns = 256;

  // integer_constants: PageAppender::integer_constants() of the file the record goes to.
  explicit RecordBuilder(bool integer_constants = true) : integer_constants_(integer_constants) {}

  void clear() {
    columns_ = 0;
    body_bytes_ = 0;
  }
  // Each add throws Error past kMaxColumns.
  void add_null() { add_type(0); }
  void add_int(std::int64_t v) {
    const std::uint64_t u = static_cast<std::uint64_t>(v < 0 ? ~v : v);
    if (u <= 127 && integer_constants_ && (v == 0 || v == 1)) {
      add_type(static_cast<std::uint8_t>(8 + v));
      return;
    }
    int type = 6, width = 8;
    if (u <= 127) {
      type = 1, width = 1;
    } else if (u <= 0x7FFF) {
      type = 2, width = 2;
    } else if (u <= 0x7FFFFF) {
      type = 3, width = 3;
    } else if (u <= 0x7FFFFFFF) {
      type = 4, width = 4;
    } else if (u <= 0x7FFFFFFFFFFF) {
      type = 5, width = 6;
    }
    add_type(static_cast<std::uint8_t>(type));
    // The value big-endian, its low `width` bytes: shifted to the top of a word whose bytes are
    // then stored in big-endian order, 8 at once (a fixed-size copy the compiler inlines, where
    // `width` bytes took a call to memmove); the zeros past them are written over by the next
    // column or not part of the record.
    const std::uint64_t top = static_cast<std::uint64_t>(v) << (8 * (8 - width));
    const std::uint64_t big = __builtin_bswap64(top);
    std::memcpy(record_ + kBodyAt + body_bytes_, &big, 8);
    body_bytes_ += static_cast<std::size_t>(width);
  }
  std::size_t columns() const { return columns_; }
  // The record; valid until the builder changes.
  std::span<const std::uint8_t> bytes();

 private:
  void add_type(std::uint8_t type) {
    if (columns_ == kMaxColumns) too_many_columns();
    types_[columns_++] = type;
  }
  [[noreturn]] static void too_many_columns();

  bool integer_constants_;
  std::size_t columns_ = 0;
  std::size_t body_bytes_ = 0;
  // Where the body starts in record_: room before it for the header, which bytes() puts right
  // in front of it (its size, one or two bytes, then one serial type per column, 0..9).
  static constexpr std::size_t kBodyAt = 2 + kMaxColumns;
  std::uint8_t types_[kMaxColumns];
  std::uint8_t record_[kBodyAt + 8 * kMaxColumns];
};

namespace btree_detail {

// One b-tree page being filled: cell pointers from the header on, cell content packed down from
// the end of the usable area, so the page has no free blocks and no fragments.
class PageBuilder {
 public:
  void init(std::uint8_t type, std::uint32_t page_size, std::uint32_t usable_size);
  void clear();
  bool fits(std::size_t cell_bytes) const {
    return 2 + alloc(cell_bytes) + header_ + 2 * std::size_t{cells_} <= content_;
  }
  // Room for a cell of `cell_bytes` (it must fit), the next in key order.
  std::uint8_t* add(std::size_t cell_bytes);
  std::uint32_t cells() const { return cells_; }
  // The last cell added (its bytes, not the padding), and its removal (once per page).
  std::span<const std::uint8_t> last() const { return {page_.data() + content_, last_bytes_}; }
  void drop_last();
  // The whole page, its header written; right_child is for interior pages.
  std::span<const std::uint8_t> page(std::uint32_t right_child = 0);

 private:
  // SQLite counts a cell as at least 4 bytes (a free block's size).
  static std::size_t alloc(std::size_t cell_bytes) { return cell_bytes < 4 ? 4 : cell_bytes; }

  std::vector<std::uint8_t> page_;
  std::uint8_t type_ = 0;
  std::uint32_t header_ = 8;
  std::uint32_t usable_ = 0;
  std::uint32_t content_ = 0;  // offset of the cell content area
  std::uint32_t cells_ = 0;
  std::size_t last_bytes_ = 0;
};

// The interior levels of a b-tree built bottom-up, one page per level in memory. Level 0 takes
// the pages of the leaves; a full page keeps its last cell back, whose child becomes its right
// child and whose key goes up as the separator of the page, so every page has at least one cell
// and the tree stays balanced however the rows end.
class InteriorLevels {
 public:
  InteriorLevels(PageAppender& pages, std::uint32_t root, std::uint8_t type);
  // A finished child (of the level below) and the separator after it: the cell's bytes after its
  // 4-byte child pointer (a varint rowid for a table, a varint size and a record for an index).
  void add(std::uint32_t child, std::span<const std::uint8_t> separator) {
    add_at(0, child, separator);
  }
  bool empty() const { return levels_.empty(); }
  std::size_t depth() const { return levels_.size(); }
  // The last child of level 0: finishes each level; the top one goes to the root page.
  void finish(std::uint32_t last_child);

 private:
  struct Level {
    PageBuilder page;
    std::vector<std::uint8_t> carry;  // the separator kept back from the page just written
  };
  void add_at(std::size_t level, std::uint32_t child, std::span<const std::uint8_t> separator);

  PageAppender& pages_;
  std::uint32_t root_;
  std::uint8_t type_;
  std::vector<Level> levels_;
};

}  // namespace btree_detail

// Fills an empty rowid table's b-tree with rows in strictly increasing rowid order, each leaf as
// full as it goes (as SQLite's own appends leave them). Leaves and interior pages are appended;
// the top page goes to the table's root page at finish().
class TableBtreeAppender {
 public:
  // root_page: the table's (sqlite_schema.rootpage); it must be an empty table leaf.
  TableBtreeAppender(PageAppender& pages, std::uint32_t root_page);
  // record: at most max_record_bytes(); rowid greater than the previous one.
  void append(std::int64_t rowid, std::span<const std::uint8_t> record);
  // Writes the last pages; zero rows leave the root an empty leaf.
  void finish();

  // The largest record a leaf holds without overflow pages: usable size - 35.
  std::uint32_t max_record_bytes() const { return max_record_; }
  std::uint64_t rows() const { return rows_; }
  // Levels of the tree so far: 1 while all rows fit on the root leaf.
  std::size_t depth() const { return interior_.depth() + 1; }

 private:
  PageAppender& pages_;
  std::uint32_t root_;
  std::uint32_t max_record_;
  btree_detail::PageBuilder leaf_;
  btree_detail::InteriorLevels interior_;
  std::int64_t last_rowid_ = 0;
  std::uint64_t rows_ = 0;
  bool finished_ = false;
};

// Fills an empty index b-tree with entries in strictly increasing order (the caller's: SQLite
// compares records column by column). Every entry is stored once: the last entry of a full leaf
// goes up as the separator between it and the next leaf.
class IndexBtreeAppender {
 public:
  // root_page: the index's (sqlite_schema.rootpage); it must be an empty index leaf.
  IndexBtreeAppender(PageAppender& pages, std::uint32_t root_page);
  // order_key: an integer that increases with the entries (checked), e.g. the rowid of an index
  // (id) of a rowid table whose id is its rowid. record: at most max_record_bytes().
  void append(std::int64_t order_key, std::span<const std::uint8_t> record);
  void finish();

  // The largest record an index page holds without overflow pages: (U - 12) * 64 / 255 - 23.
  std::uint32_t max_record_bytes() const { return max_record_; }
  std::uint64_t entries() const { return entries_; }
  std::size_t depth() const { return interior_.depth() + 1; }

 private:
  PageAppender& pages_;
  std::uint32_t root_;
  std::uint32_t max_record_;
  btree_detail::PageBuilder leaf_;
  btree_detail::InteriorLevels interior_;
  std::vector<std::uint8_t> carry_;  // the separator taken from a full leaf
  std::int64_t last_key_ = 0;
  std::uint64_t entries_ = 0;
  bool finished_ = false;
};

}  // namespace ts::store
