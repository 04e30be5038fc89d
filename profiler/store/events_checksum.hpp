// The checksum of what a finished trace's analysis is made from: every table and index of the
// file but the derived ones (`analysis`, `overview`), as SQLite stores them. The bytes of each
// b-tree's pages (interior, leaf and overflow pages, in key order) are hashed (content_hash.hpp),
// read from the file without SQLite, page by page and on several threads: reading 3.6 GB of pages
// this way costs a fraction of what reading the same events through SQLite does.
//
// Any change to a row the analysis reads (an event edited, deleted or added with sqlite3, a
// string renamed, meta rewritten) changes a page, so the checksum; so does one that changes no
// figure (a VACUUM repacks the pages). Storing the kept analysis itself does not: its pages, the
// free list and the header are left out, and the table's creation moves no page of another tree
// (the keep creates it in a transaction of its own before taking the checksum).
//
// Only a file in rollback-journal mode (a finished trace) has all its pages in itself; nullopt
// for one in write-ahead-log mode, one whose b-trees are damaged (a page out of the file, a
// loop, a cell out of its page), or one that cannot be read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiler/store/sqlite.hpp"

namespace ts::store {

struct EventsChecksum {
  std::uint64_t checksum = 0;
  std::uint64_t bytes = 0;  // the pages hashed
};

// The checksum of the file `db` has open, read while the caller holds a transaction on `db`
// (so no other connection commits meanwhile) in which `db` wrote nothing yet. `skip`: tables
// left out besides the derived ones (with their indexes), which the caller checks otherwise.
std::optional<EventsChecksum> events_checksum(const Db& db,
                                              const std::vector<std::string>& skip = {}) noexcept;

// The same for the trace at `path`, in a read transaction of a connection of its own.
std::optional<EventsChecksum> events_checksum(const std::string& path,
                                              const std::vector<std::string>& skip = {}) noexcept;

}  // namespace ts::store
