// Reader::refresh: a reader following a capture that is still running takes in what was committed
// since it last looked, without reading the rest again: of a file with staged events, through its
// live copy (live_copy.hpp); of a file without, by reading the small tables again.
#include <sqlite3.h>

#include "profiler/store/live_copy.hpp"
#include "profiler/store/reader.hpp"

namespace ts::store {

namespace {

constexpr const char* kRefresh = "cannot refresh trace";

}  // namespace

Snapshot::~Snapshot() {
  sqlite3_free(bytes_);
}

Reader::~Reader() = default;

Reader::Refresh Reader::refresh() {
  if (snapshot_) return Refresh::reopen;  // a snapshot never changes
  if (!live_) {
    // Read from the file itself: new rows show in every query. A capture that had staged nothing
    // when this reader opened is read in memory once it has.
    if (has_staged_events()) return Refresh::reopen;
    const std::int64_t version = db_.pragma_int("data_version", kRefresh);
    changed_from_ns_ = INT64_MAX;
    if (version == data_version_) return Refresh::unchanged;
    data_version_ = version;
    changed_from_ns_ = INT64_MIN;                // the file's own rows: anything may have changed
    tables_ = std::make_shared<const Tables>();  // the old ones go before the new ones load
    load_tables();
    return Refresh::appended;
  }
  const std::uint64_t before = live_->blocks_indexed();
  switch (live_->update(db_, changed_from_ns_)) {
    case LiveCopy::Update::unchanged:
      return Refresh::unchanged;
    case LiveCopy::Update::reopen:
      return Refresh::reopen;
    case LiveCopy::Update::taken:
      break;
  }
  tables_ = std::make_shared<const Tables>();
  load_tables();
  return live_->blocks_indexed() > before ? Refresh::appended : Refresh::unchanged;
}

}  // namespace ts::store
