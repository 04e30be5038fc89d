#include "profiler/store/page_event_table.hpp"

#include <algorithm>
#include <string>

#include "profiler/store/event_key.hpp"
#include "profiler/store/schema.hpp"

namespace ts::store {

namespace {

constexpr const char* kWrite = "cannot write trace";

// The root page of an empty table or index of the schema; throws Error when it has rows.
std::uint32_t empty_root(Db& db, const char* name) {
  Stmt root(db, "SELECT rootpage FROM sqlite_schema WHERE name = ?", kWrite);
  root.bind(1, std::string_view(name));
  if (!root.step() || root.col_int(0) <= 0)
    throw Error(db.path() + " has no " + name + " to append events to");
  const auto page = static_cast<std::uint32_t>(root.col_int(0));
  const std::string table = std::string(name) == "event_long"       ? "event"
                            : std::string(name) == "step_span_step" ? "step_span"
                                                                    : name;
  Stmt any(db, "SELECT 1 FROM " + table + " LIMIT 1", kWrite);
  if (any.step()) throw Error(db.path() + " already holds events: cannot append pages to them");
  return page;
}

}  // namespace

PageEventTable::Roots PageEventTable::empty_roots(Db& db) {
  empty_root(db, "step_span_step");  // rebuilt afterwards: it must hold nothing now
  return {empty_root(db, "event"), empty_root(db, "event_arg"), empty_root(db, "event_long"),
          empty_root(db, "step_span")};
}

PageEventTable::PageEventTable(Db& db, std::int64_t key_origin,
                               std::function<bool(std::uint32_t)> is_step, OverviewFeed* feed)
    : origin_(key_origin),
      is_step_(std::move(is_step)),
      feed_(feed),
      roots_(empty_roots(db)),
      pages_(db),
      events_(pages_, roots_.event),
      args_(pages_, roots_.event_arg),
      long_events_(pages_, roots_.event_long),
      steps_(pages_, roots_.step_span),
      record_(pages_.integer_constants()) {}

std::int64_t PageEventTable::key_of(const EventRow& r) const {
  return event_key(r.start_ns, r.track, origin_);
}

const EventRow* PageEventTable::waiting(std::int64_t key) const {
  const auto it = std::lower_bound(in_order_.begin(), in_order_.end(), key,
                                   [](const Waiting& w, std::int64_t k) { return w.key < k; });
  if (it != in_order_.end() && it->key == key) return &it->row;
  const auto m = moved_.find(key);
  return m == moved_.end() ? nullptr : &m->second;
}

void PageEventTable::insert_new(std::span<EventRow> rows, const ChunkDone& done) {
  std::size_t inserted = 0;
  for (const EventRow& r : rows) inserted += try_insert(r) ? 1 : 0;
  done(rows, inserted);
}

bool PageEventTable::try_insert(const EventRow& row) {
  const std::int64_t key = key_of(row);
  if (written_any_ && key <= last_written_) {
    late_.push_back(row);
    return true;
  }
  if (in_order_.empty() || key > in_order_.back().key) {
    if (moved_.contains(key)) return false;
    in_order_.push_back({key, row});
  } else {
    if (waiting(key) != nullptr) return false;
    moved_.emplace(key, row);
  }
  if (row.start_ns > latest_start_) {
    latest_start_ = row.start_ns;
    write_before(sat_sub(latest_start_, kWindowNs));
  } else if (in_order_.size() + moved_.size() > kMaxWaiting) {
    write_before(INT64_MIN);
  }
  return true;
}

std::optional<StoredEvent> PageEventTable::find(std::int64_t start, std::uint32_t track) {
  const EventRow* r = waiting(event_key(start, track, origin_));
  if (r == nullptr) return std::nullopt;
  return StoredEvent{r->dur_ns, std::int64_t{r->label}, r->step, r->bytes};
}

// Writes the waiting rows that start before `start`, in key order, and then, while more than
// kMaxWaiting rows wait, the earliest.
void PageEventTable::write_before(std::int64_t start) {
  for (;;) {
    const bool over = in_order_.size() + moved_.size() > kMaxWaiting;
    const bool from_moved =
        !moved_.empty() && (in_order_.empty() || moved_.begin()->first < in_order_.front().key);
    if (from_moved) {
      const auto it = moved_.begin();
      if (it->second.start_ns >= start && !over) return;
      write({it->first, it->second});
      moved_.erase(it);
    } else if (!in_order_.empty()) {
      if (in_order_.front().row.start_ns >= start && !over) return;
      write(in_order_.front());
      in_order_.pop_front();
    } else {
      return;
    }
  }
}

void PageEventTable::write(const Waiting& w) {
  const EventRow& r = w.row;
  const auto opt = [&](std::int64_t v) {
    if (v == kNull) {
      record_.add_null();
    } else {
      record_.add_int(v);
    }
  };
  record_.clear();
  record_.add_null();  // id: the rowid
  record_.add_int(r.dur_ns);
  record_.add_int(r.label);
  opt(r.step);
  opt(r.bytes);
  events_.append(w.key, record_.bytes());
  if (r.dur_ns >= kLongEventNs) {
    record_.clear();
    record_.add_int(w.key);
    record_.add_int(w.key);
    long_events_.append(w.key, record_.bytes());
  }
  if (r.work_size != kNull || r.correlation != kNull) {
    record_.clear();
    record_.add_null();
    opt(r.work_size);
    opt(r.correlation);
    args_.append(w.key, record_.bytes());
  }
  if (r.step != kNull && is_step_(r.label)) {  // step_span (start_ns, track, step, dur_ns)
    record_.clear();
    record_.add_int(r.start_ns);
    record_.add_int(r.track);
    record_.add_int(r.step);
    record_.add_int(r.dur_ns);
    steps_.append(w.key, record_.bytes());
  }
  last_written_ = w.key;
  written_any_ = true;
  if (feed_ != nullptr) feed_->take(r);
}

void PageEventTable::finish() {
  write_before(INT64_MAX);
  events_.finish();
  args_.finish();
  long_events_.finish();
  steps_.finish();
  pages_.finish();
}

}  // namespace ts::store
