// The event table's rows read straight from its b-tree pages, in id order, for a range of ids:
// what SQLite's range scan of the table returns, for about a third of the CPU (its virtual
// machine was a third of an analysis of a large trace). Used for traces in rollback-journal
// mode (imports, finished captures), inside a read transaction of the reader's connection, so
// that no writer changes a page meanwhile.
//
// Only rows of the plain shape are read here: the id, then integers or NULLs, all on the leaf
// page. At anything else (a payload on overflow pages, a value of another type, a page that is
// not what a table b-tree holds, a page reached twice) the scan stops and says from which id on
// the rest is to be read through SQLite, whose answer, or error, stands: a damaged file gets
// SQLite's own message, as before.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace ts::store {

class EventPages {
 public:
  // A row: column 0 is the id, then dur_ns, label, step, bytes (0 and null when absent).
  struct Row {
    std::int64_t values[5] = {};
    std::uint8_t nulls = 0;  // bit i: column i is NULL
    std::int64_t col_int(int i) const { return values[i]; }
    bool col_null(int i) const { return (nulls >> i & 1) != 0; }
  };

  // The pages of the file at `path` when it is in rollback-journal mode; nullptr otherwise.
  static std::unique_ptr<EventPages> open(const std::string& path);
  ~EventPages();
  EventPages(const EventPages&) = delete;
  EventPages& operator=(const EventPages&) = delete;

  // Hands the rows of the table whose root page is `root` with ids in [lo, hi] to `fn`, in id
  // order. nullopt when every one was handed over; else the id from which on none was, to be
  // read some other way.
  std::optional<std::int64_t> scan(std::uint32_t root, std::int64_t lo, std::int64_t hi,
                                   const std::function<void(const Row&)>& fn) const;

 private:
  explicit EventPages(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace ts::store
