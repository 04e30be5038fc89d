#include "profiler/store/btree_append.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "profiler/store/sqlite_format.hpp"

namespace ts::store {

namespace {

constexpr std::uint8_t kIndexInterior = 0x02;
constexpr std::uint8_t kTableInterior = 0x05;
constexpr std::uint8_t kIndexLeaf = 0x0A;
constexpr std::uint8_t kTableLeaf = 0x0D;

// Bytes per write: 64 KiB, one page at least. SQLite's unix VFS writes at most 128 KiB - 1
// bytes a call (it masks the length to 17 bits: a 1 MiB write would write nothing).
constexpr std::uint32_t kWriteBytes = 1u << 16;
// Bytes handed to the writing thread at a time (in writes of kWriteBytes).
constexpr std::uint32_t kChunkBytes = 1u << 20;
// SQLite's PENDING_BYTE: the page holding it carries the file's locks and never data.
constexpr std::uint32_t kDefaultPendingByte = 0x40000000;
// More levels than any b-tree of 2^32 pages can have (every interior page has 2+ children).
constexpr std::size_t kMaxLevels = 40;

using sqlite_format::get2;
using sqlite_format::get4;
using sqlite_format::put2;
using sqlite_format::put4;
using sqlite_format::put_varint;
using sqlite_format::varint_len;

// Copies a record into its cell. Records are mostly 5 to 20 bytes: two overlapping fixed-size
// copies, which the compiler inlines, where memcpy of a size known only now is a call (a quarter
// of the time of the thread appending a job's pages).
void copy_record(std::uint8_t* to, std::span<const std::uint8_t> record) {
  const std::size_t n = record.size();
  const std::uint8_t* from = record.data();
  if (n >= 8 && n <= 16) {
    std::memcpy(to, from, 8);
    std::memcpy(to + n - 8, from + n - 8, 8);
  } else if (n >= 4 && n < 8) {
    std::memcpy(to, from, 4);
    std::memcpy(to + n - 4, from + n - 4, 4);
  } else if (n > 0) {
    std::memcpy(to, from, n);
  }
}

std::string pragma_text(const Db& db, const char* pragma) {
  Stmt st(db, std::string("PRAGMA ") + pragma, "cannot append rows to");
  return st.step() ? st.col_text(0) : std::string();
}

// Checks that `root` is an empty b-tree page of `type`, as CREATE TABLE or CREATE INDEX left it.
void check_empty_root(PageAppender& pages, std::uint32_t root, std::uint8_t type,
                      const char* what) {
  if (root < 2 || root > pages.first_page_count())
    throw Error("cannot append rows to " + pages.path() + ": page " + std::to_string(root) +
                " is no " + what + " root page");
  std::vector<std::uint8_t> page(pages.page_size());
  pages.read(root, page);
  if (page[0] != type || get2(&page[3]) != 0)
    throw Error("cannot append rows to " + pages.path() + ": page " + std::to_string(root) +
                " is not an empty " + what + " (only an empty b-tree can be filled)");
}

}  // namespace

// ---- PageAppender ----

PageAppender::PageAppender(Db& db) : db_(db) {
  sqlite3* h = db.get();
  if (h == nullptr) throw Error("cannot append rows to " + db.path() + ": it is not open");
  if (sqlite3_db_readonly(h, "main") != 0) fail("its connection is read-only");
  if (sqlite3_get_autocommit(h) == 0) fail("a transaction is open on its connection");
  for (sqlite3_stmt* s = sqlite3_next_stmt(h, nullptr); s != nullptr; s = sqlite3_next_stmt(h, s))
    if (sqlite3_stmt_busy(s) != 0) fail("a statement is running on its connection");
  const std::string journal = pragma_text(db, "journal_mode");
  if (journal != "off" && journal != "delete")
    fail("its journal mode is " + journal + ", not OFF or DELETE");
  if (pragma_text(db, "locking_mode") != "normal")
    fail("its connection's locking mode is not NORMAL (an exclusive connection keeps stale pages)");
  // Reading a header field opens a read transaction: a hot journal is rolled back first.
  if (db.pragma_int("auto_vacuum", "cannot append rows to") != 0)
    fail("its auto_vacuum is not NONE (pages would need pointer-map entries)");
  sync_ = db.pragma_int("synchronous", "cannot append rows to") != 0;
  max_page_count_ = static_cast<std::uint32_t>(std::clamp<std::int64_t>(
      db.pragma_int("max_page_count", "cannot append rows to"), 1, 0xFFFFFFFE));

  if (sqlite3_file_control(h, "main", SQLITE_FCNTL_FILE_POINTER, &file_) != SQLITE_OK ||
      file_ == nullptr || file_->pMethods == nullptr)
    fail("SQLite has no file open for it");
  // The locks SQLite's own writer takes, in its order; other connections get SQLITE_BUSY.
  for (const int lock : {SQLITE_LOCK_SHARED, SQLITE_LOCK_RESERVED, SQLITE_LOCK_EXCLUSIVE}) {
    const int rc = file_->pMethods->xLock(file_, lock);
    if (rc != SQLITE_OK) {
      unlock();
      fail("another connection is using it", rc);
    }
    locked_ = true;
  }
  try {
    sqlite3_int64 size = 0;
    if (const int rc = file_->pMethods->xFileSize(file_, &size); rc != SQLITE_OK)
      fail("cannot read its size", rc);
    if (size < 100) fail("it holds no database yet (create its tables first)");
    std::uint8_t hdr[100];
    read_at(hdr, sizeof hdr, 0);
    if (std::memcmp(hdr, "SQLite format 3", 16) != 0) fail("it is not an SQLite database");
    page_size_ = get2(&hdr[16]);
    if (page_size_ == 1) page_size_ = 65536;
    if (page_size_ < 512 || page_size_ > 65536 || (page_size_ & (page_size_ - 1)) != 0)
      fail("its header holds no valid page size");
    if (hdr[18] == 2 || hdr[19] == 2) fail("it is in WAL mode");
    usable_size_ = page_size_ - hdr[20];
    if (usable_size_ < 480) fail("its pages reserve too many bytes");
    if (get4(&hdr[52]) != 0)
      fail("its auto_vacuum is not NONE (pages would need pointer-map entries)");
    schema_format_ = get4(&hdr[44]);
    // The page count in the header is valid only if written with the change counter.
    old_page_count_ = get4(&hdr[28]);
    const auto file_pages = static_cast<std::uint64_t>(size) / page_size_;
    if (old_page_count_ == 0 || get4(&hdr[92]) != get4(&hdr[24]))
      old_page_count_ = static_cast<std::uint32_t>(std::min<std::uint64_t>(file_pages, 0xFFFFFFFF));
    if (old_page_count_ == 0 || old_page_count_ > file_pages)
      fail("the file is shorter than its header says");
    std::memcpy(versions_, &hdr[24], sizeof versions_);

    // A test may move the lock byte (SQLITE_TESTCTRL_PENDING_BYTE); 0 where test controls are
    // compiled out.
    const int pending = sqlite3_test_control(SQLITE_TESTCTRL_PENDING_BYTE, 0u);
    lock_page_ =
        (pending > 0 ? static_cast<std::uint32_t>(pending) : kDefaultPendingByte) / page_size_ + 1;
    next_page_ = old_page_count_ + 1;
    chunk_pages_ = std::max<std::uint32_t>(1, kChunkBytes / page_size_);
    buffer_.resize(std::size_t{chunk_pages_} * page_size_);
    behind_.emplace(file_, std::max(kWriteBytes, page_size_));
  } catch (...) {
    unlock();
    throw;
  }
}

PageAppender::~PageAppender() {
  if (behind_) behind_->wait();  // no write in flight once the lock is given up
  unlock();
}

void PageAppender::unlock() noexcept {
  if (locked_) file_->pMethods->xUnlock(file_, SQLITE_LOCK_NONE);
  locked_ = false;
}

void PageAppender::fail(std::string_view what, int rc) const {
  std::string msg = "cannot append rows to " + db_.path() + ": ";
  msg += what;
  if (rc != SQLITE_OK) msg += std::string(" (") + sqlite3_errstr(rc) + ")";
  throw Error(msg);
}

void PageAppender::write_at(const std::uint8_t* data, std::size_t bytes, std::uint64_t offset) {
  wait_for_writes();
  errno = 0;
  const int rc = file_->pMethods->xWrite(file_, data, static_cast<int>(bytes),
                                         static_cast<sqlite3_int64>(offset));
  if (rc != SQLITE_OK) {
    const int e = errno;
    fail(("cannot write to it: " + std::string(e != 0 ? std::strerror(e) : sqlite3_errstr(rc))));
  }
}

void PageAppender::read_at(std::uint8_t* data, std::size_t bytes, std::uint64_t offset) {
  wait_for_writes();
  const int rc = file_->pMethods->xRead(file_, data, static_cast<int>(bytes),
                                        static_cast<sqlite3_int64>(offset));
  if (rc != SQLITE_OK) fail("cannot read it", rc);
}

void PageAppender::wait_for_writes() {
  if (!behind_) return;
  if (const std::string error = behind_->wait(); !error.empty()) fail(error);
}

void PageAppender::flush() {
  if (buffer_pages_ == 0) return;
  const std::string error = behind_->write(buffer_, std::size_t{buffer_pages_} * page_size_,
                                           std::uint64_t{buffer_first_ - 1} * page_size_);
  if (!error.empty()) fail(error);
  buffer_pages_ = 0;
}

std::uint32_t PageAppender::append(std::span<const std::uint8_t> page) {
  if (finished_) fail("pages appended after finish()");
  if (page.size() != page_size_) fail("a page of the wrong size");
  if (next_page_ == lock_page_) {
    flush();  // the lock-byte page stays a hole
    ++next_page_;
  }
  if (next_page_ > max_page_count_) fail("it would exceed its maximum page count");
  if (buffer_pages_ == 0) buffer_first_ = next_page_;
  std::memcpy(buffer_.data() + std::size_t{buffer_pages_} * page_size_, page.data(), page_size_);
  if (++buffer_pages_ == chunk_pages_) flush();
  return next_page_++;
}

void PageAppender::write(std::uint32_t page_number, std::span<const std::uint8_t> page) {
  if (finished_) fail("a page written after finish()");
  if (page.size() != page_size_) fail("a page of the wrong size");
  if (page_number < 2 || page_number >= next_page_ || page_number == lock_page_)
    fail("page " + std::to_string(page_number) + " is none it may write");
  if (buffer_pages_ != 0 && page_number >= buffer_first_) {
    std::memcpy(buffer_.data() + std::size_t{page_number - buffer_first_} * page_size_, page.data(),
                page_size_);
    return;
  }
  write_at(page.data(), page_size_, std::uint64_t{page_number - 1} * page_size_);
}

void PageAppender::read(std::uint32_t page_number, std::span<std::uint8_t> out) {
  if (out.size() != page_size_) fail("a page read into a buffer of the wrong size");
  if (page_number < 1 || page_number >= next_page_)
    fail("page " + std::to_string(page_number) + " is not in the file");
  if (buffer_pages_ != 0 && page_number >= buffer_first_) {
    std::memcpy(out.data(), buffer_.data() + std::size_t{page_number - buffer_first_} * page_size_,
                page_size_);
    return;
  }
  read_at(out.data(), page_size_, std::uint64_t{page_number - 1} * page_size_);
}

void PageAppender::finish() {
  if (finished_) fail("finish() called twice");
  flush();
  std::uint8_t hdr[100];
  read_at(hdr, sizeof hdr, 0);
  if (std::memcmp(&hdr[24], versions_, sizeof versions_) != 0)
    fail("the file changed while rows were appended (its connection was used meanwhile)");
  const std::uint32_t counter = get4(&hdr[24]) + 1;
  put4(&hdr[24], counter);
  put4(&hdr[28], page_count());
  put4(&hdr[92], counter);
  put4(&hdr[96], static_cast<std::uint32_t>(sqlite3_libversion_number()));
  write_at(hdr, sizeof hdr, 0);
  if (sync_) {
    if (const int rc = file_->pMethods->xSync(file_, SQLITE_SYNC_NORMAL); rc != SQLITE_OK)
      fail("cannot sync it", rc);
  }
  finished_ = true;
  unlock();
}

// ---- RecordBuilder ----

std::span<const std::uint8_t> RecordBuilder::bytes() {
  std::uint8_t* types = record_ + kBodyAt - columns_;
  for (std::size_t i = 0; i < columns_; ++i) types[i] = types_[i];
  // The header's size counts its own varint.
  const std::size_t header = 1 + columns_;
  if (header < 128) {
    types[-1] = static_cast<std::uint8_t>(header);
    return {types - 1, header + body_bytes_};
  }
  put_varint(types - 2, header + 1);  // two bytes: 129 to 258
  return {types - 2, header + 1 + body_bytes_};
}

void RecordBuilder::too_many_columns() {
  throw Error("a record of more than " + std::to_string(kMaxColumns) + " columns");
}

namespace btree_detail {

// ---- PageBuilder ----

void PageBuilder::init(std::uint8_t type, std::uint32_t page_size, std::uint32_t usable_size) {
  page_.assign(page_size, 0);  // the reserved bytes at the end stay zero
  type_ = type;
  header_ = (type == kIndexInterior || type == kTableInterior) ? 12 : 8;
  usable_ = usable_size;
  clear();
}

void PageBuilder::clear() {
  content_ = usable_;
  cells_ = 0;
  last_bytes_ = 0;
}

std::uint8_t* PageBuilder::add(std::size_t cell_bytes) {
  const std::size_t a = alloc(cell_bytes);
  content_ -= static_cast<std::uint32_t>(a);
  put2(&page_[header_ + 2 * cells_], content_);
  ++cells_;
  last_bytes_ = cell_bytes;
  std::uint8_t* cell = page_.data() + content_;
  if (a > cell_bytes) std::memset(cell + cell_bytes, 0, a - cell_bytes);
  return cell;
}

void PageBuilder::drop_last() {
  content_ += static_cast<std::uint32_t>(alloc(last_bytes_));
  --cells_;
  last_bytes_ = 0;
}

std::span<const std::uint8_t> PageBuilder::page(std::uint32_t right_child) {
  std::uint8_t* p = page_.data();
  p[0] = type_;
  put2(&p[1], 0);  // no free blocks
  put2(&p[3], cells_);
  put2(&p[5], content_ & 0xFFFF);  // 65536 (an empty 64 KiB page) is stored as 0
  p[7] = 0;                        // no fragments
  if (header_ == 12) put4(&p[8], right_child);
  const std::uint32_t gap = header_ + 2 * cells_;
  std::memset(p + gap, 0, content_ - gap);
  return page_;
}

// ---- InteriorLevels ----

InteriorLevels::InteriorLevels(PageAppender& pages, std::uint32_t root, std::uint8_t type)
    : pages_(pages), root_(root), type_(type) {
  levels_.reserve(kMaxLevels);  // no reallocation while a level's carry is passed up
}

void InteriorLevels::add_at(std::size_t level, std::uint32_t child,
                            std::span<const std::uint8_t> separator) {
  if (level == levels_.size()) {
    if (level == kMaxLevels)
      throw Error("cannot append rows to " + pages_.path() + ": the b-tree grew too deep");
    levels_.emplace_back();
    levels_.back().page.init(type_, pages_.page_size(), pages_.usable_size());
  }
  const std::size_t cell_bytes = 4 + separator.size();
  if (!levels_[level].page.fits(cell_bytes)) {
    Level& lv = levels_[level];
    if (lv.page.cells() < 2)
      throw Error("cannot append rows to " + pages_.path() +
                  ": an interior page holds fewer "
                  "than 3 cells");
    // The last cell's child becomes the right child; its separator goes up with this page.
    const auto last = lv.page.last();
    const std::uint32_t right = get4(last.data());
    lv.carry.assign(last.begin() + 4, last.end());
    lv.page.drop_last();
    const std::uint32_t node = pages_.append(lv.page.page(right));
    lv.page.clear();
    add_at(level + 1, node, lv.carry);
  }
  std::uint8_t* cell = levels_[level].page.add(cell_bytes);
  put4(cell, child);
  std::memcpy(cell + 4, separator.data(), separator.size());
}

void InteriorLevels::finish(std::uint32_t last_child) {
  std::uint32_t child = last_child;
  for (std::size_t i = 0; i < levels_.size(); ++i) {
    const auto page = levels_[i].page.page(child);
    if (i + 1 == levels_.size())
      pages_.write(root_, page);
    else
      child = pages_.append(page);
  }
}

}  // namespace btree_detail

// ---- TableBtreeAppender ----

TableBtreeAppender::TableBtreeAppender(PageAppender& pages, std::uint32_t root_page)
    : pages_(pages),
      root_(root_page),
      max_record_(pages.usable_size() - 35),
      interior_(pages, root_page, kTableInterior) {
  check_empty_root(pages, root_page, kTableLeaf, "table leaf");
  leaf_.init(kTableLeaf, pages.page_size(), pages.usable_size());
}

void TableBtreeAppender::append(std::int64_t rowid, std::span<const std::uint8_t> record) {
  if (finished_) throw Error("cannot append rows to " + pages_.path() + ": the table is finished");
  if (rows_ != 0 && rowid <= last_rowid_)
    throw Error("cannot append rows to " + pages_.path() + ": rowid " + std::to_string(rowid) +
                " after " + std::to_string(last_rowid_) + " (rowids must increase)");
  if (record.size() > max_record_)
    throw Error("cannot append rows to " + pages_.path() + ": a record of " +
                std::to_string(record.size()) + " bytes needs overflow pages (at most " +
                std::to_string(max_record_) + ")");
  const auto key = static_cast<std::uint64_t>(rowid);
  const std::size_t cell_bytes = static_cast<std::size_t>(varint_len(record.size())) +
                                 static_cast<std::size_t>(varint_len(key)) + record.size();
  if (!leaf_.fits(cell_bytes)) {
    // The full leaf's key in its parent is its largest rowid.
    const std::uint32_t page = pages_.append(leaf_.page());
    std::uint8_t separator[9];
    const int n = put_varint(separator, static_cast<std::uint64_t>(last_rowid_));
    interior_.add(page, {separator, static_cast<std::size_t>(n)});
    leaf_.clear();
  }
  std::uint8_t* p = leaf_.add(cell_bytes);
  p += put_varint(p, record.size());
  p += put_varint(p, key);
  copy_record(p, record);
  last_rowid_ = rowid;
  ++rows_;
}

void TableBtreeAppender::finish() {
  if (finished_) throw Error("cannot append rows to " + pages_.path() + ": finished twice");
  finished_ = true;
  if (rows_ == 0) return;  // the root stays the empty leaf CREATE TABLE made
  if (interior_.empty())
    pages_.write(root_, leaf_.page());
  else
    interior_.finish(pages_.append(leaf_.page()));
}

// ---- IndexBtreeAppender ----

IndexBtreeAppender::IndexBtreeAppender(PageAppender& pages, std::uint32_t root_page)
    : pages_(pages),
      root_(root_page),
      max_record_((pages.usable_size() - 12) * 64 / 255 - 23),
      interior_(pages, root_page, kIndexInterior) {
  check_empty_root(pages, root_page, kIndexLeaf, "index leaf");
  leaf_.init(kIndexLeaf, pages.page_size(), pages.usable_size());
}

void IndexBtreeAppender::append(std::int64_t order_key, std::span<const std::uint8_t> record) {
  if (finished_) throw Error("cannot append rows to " + pages_.path() + ": the index is finished");
  if (entries_ != 0 && order_key <= last_key_)
    throw Error("cannot append rows to " + pages_.path() + ": index entry " +
                std::to_string(order_key) + " after " + std::to_string(last_key_) +
                " (entries must increase)");
  if (record.size() > max_record_)
    throw Error("cannot append rows to " + pages_.path() + ": an index record of " +
                std::to_string(record.size()) + " bytes needs overflow pages (at most " +
                std::to_string(max_record_) + ")");
  const std::size_t cell_bytes =
      static_cast<std::size_t>(varint_len(record.size())) + record.size();
  if (!leaf_.fits(cell_bytes)) {
    // The full leaf's last entry goes up as the separator between it and the next leaf; an
    // index page holds at least 3 entries of the largest size, so the leaf keeps some.
    if (leaf_.cells() < 2)
      throw Error("cannot append rows to " + pages_.path() +
                  ": an index leaf holds fewer than 2 "
                  "entries");
    const auto last = leaf_.last();
    carry_.assign(last.begin(), last.end());
    leaf_.drop_last();
    const std::uint32_t page = pages_.append(leaf_.page());
    interior_.add(page, carry_);
    leaf_.clear();
  }
  std::uint8_t* p = leaf_.add(cell_bytes);
  p += put_varint(p, record.size());
  copy_record(p, record);
  last_key_ = order_key;
  ++entries_;
}

void IndexBtreeAppender::finish() {
  if (finished_) throw Error("cannot append rows to " + pages_.path() + ": finished twice");
  finished_ = true;
  if (entries_ == 0) return;
  if (interior_.empty())
    pages_.write(root_, leaf_.page());
  else
    interior_.finish(pages_.append(leaf_.page()));
}

}  // namespace ts::store
