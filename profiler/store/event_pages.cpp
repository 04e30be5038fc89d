#include "profiler/store/event_pages.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <vector>

#include "profiler/store/page_file.hpp"
#include "profiler/store/sqlite_format.hpp"

namespace ts::store {

namespace {

using sqlite_format::get4;
using sqlite_format::get_varint;

constexpr int kMaxDepth = 40;  // SQLite's own limit is 20
constexpr int kColumns = 5;    // id, dur_ns, label, step, bytes

// A signed big-endian integer of `n` bytes (1 to 8).
std::int64_t get_int(const unsigned char* p, int n) {
  std::uint64_t v = p[0] & 0x80 ? ~std::uint64_t{0} : 0;
  for (int i = 0; i < n; ++i) v = v << 8 | p[i];
  return static_cast<std::int64_t>(v);
}

// The record at [p, end) as a Row; false when it is not of the plain shape (see the header).
bool read_record(const unsigned char* p, const unsigned char* end, EventPages::Row& row) {
  const unsigned char* start = p;
  std::uint64_t header = 0;
  if (!get_varint(p, end, header) || header > static_cast<std::uint64_t>(end - start)) return false;
  const unsigned char* types_end = start + header;
  const unsigned char* body = types_end;
  for (int c = 0; c < kColumns; ++c) {
    if (p >= types_end) {  // columns past the record's end: NULL (no column has a default)
      if (c > 0) row.nulls |= static_cast<std::uint8_t>(1u << c);
      continue;
    }
    std::uint64_t type = 0;
    if (!get_varint(p, types_end, type)) return false;
    static constexpr int kIntBytes[] = {0, 1, 2, 3, 4, 6, 8};
    std::int64_t v = 0;
    if (type == 0) {
      if (c > 0) row.nulls |= static_cast<std::uint8_t>(1u << c);
    } else if (type <= 6) {
      const int n = kIntBytes[type];
      if (body + n > end) return false;
      v = get_int(body, n);
      body += n;
    } else if (type == 8 || type == 9) {
      v = type == 9;
    } else {
      return false;  // a real, text or blob: SQLite's conversions are its own
    }
    if (c > 0) row.values[c] = v;  // column 0 is the id: its value is the rowid
  }
  return p == types_end;  // more columns than the table has: not a plain row
}

struct Scan {
  Scan(PageFile& f, std::int64_t from, std::int64_t to,
       const std::function<void(const EventPages::Row&)>& out)
      : file(f), lo(from), hi(to), fn(out), buf(f.page_size()) {}

  PageFile& file;
  std::int64_t lo, hi;
  const std::function<void(const EventPages::Row&)>& fn;
  std::optional<std::int64_t> last;  // the last id handed over
  bool done = false;                 // a row past hi was met
  std::vector<unsigned char> buf;
  std::vector<std::uint32_t> offsets;

  // Rows of the subtree at page n, seeking lo on the way down while `seek`; false: stop here.
  bool visit(std::uint32_t n, int depth, bool seek) {
    if (depth > kMaxDepth || !file.read(n, buf.data())) return false;
    const std::size_t at = PageFile::header_at(n);
    const unsigned char type = buf[at];
    if (!is_table(type) || !file.cells(n, buf.data(), offsets)) return false;
    const unsigned char* end = buf.data() + file.usable_size();
    if (type == kTableInterior) {
      // Children and the keys bounding them from above; the page is read again below this, so
      // they are copied out first.
      std::vector<std::pair<std::uint32_t, std::int64_t>> kids;
      kids.reserve(offsets.size() + 1);
      for (const std::uint32_t off : offsets) {
        const unsigned char* p = buf.data() + off + 4;
        std::uint64_t key = 0;
        if (!get_varint(p, end, key)) return false;
        kids.emplace_back(get4(buf.data() + off), static_cast<std::int64_t>(key));
      }
      kids.emplace_back(get4(buf.data() + at + 8), INT64_MAX);
      std::size_t first = 0;
      if (seek)  // the first child whose keys may reach lo
        while (first + 1 < kids.size() && kids[first].second < lo) ++first;
      for (std::size_t i = first; i < kids.size() && !done; ++i)
        if (!visit(kids[i].first, depth + 1, seek && i == first)) return false;
      return true;
    }
    const std::uint64_t max_local = file.usable_size() - 35;
    for (const std::uint32_t off : offsets) {
      const unsigned char* p = buf.data() + off;
      std::uint64_t payload = 0, key = 0;
      if (!get_varint(p, end, payload) || !get_varint(p, end, key)) return false;
      const auto id = static_cast<std::int64_t>(key);
      if (last && id <= *last) return false;  // out of order: damage
      if (id < lo) continue;
      if (id > hi) {
        done = true;
        return true;
      }
      if (payload > max_local || payload > static_cast<std::uint64_t>(end - p)) return false;
      EventPages::Row row;
      row.values[0] = id;
      if (!read_record(p, p + payload, row)) return false;
      fn(row);
      last = id;
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<EventPages> EventPages::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return nullptr;
  std::unique_ptr<EventPages> pages(new EventPages(fd));
  if (!rollback_geometry(fd)) return nullptr;
  return pages;
}

EventPages::~EventPages() {
  ::close(fd_);
}

std::optional<std::int64_t> EventPages::scan(std::uint32_t root, std::int64_t lo, std::int64_t hi,
                                             const std::function<void(const Row&)>& fn) const {
  if (lo > hi) return std::nullopt;
  // The page size and count as they are now, inside the caller's read transaction.
  const std::optional<PageGeometry> geometry = rollback_geometry(fd_);
  if (!geometry) return lo;
  PageFile file(fd_, *geometry);
  Scan s(file, lo, hi, fn);
  if (s.visit(root, 0, true)) return std::nullopt;
  // Stopped: the rest is read from just past the last row handed over.
  if (!s.last) return lo;
  return *s.last == INT64_MAX ? std::nullopt : std::optional<std::int64_t>(*s.last + 1);
}

}  // namespace ts::store
