#include "profiler/store/event_indexer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "profiler/store/event_block.hpp"
#include "profiler/store/event_key.hpp"
#include "trainscope/meta_keys.hpp"

namespace ts::store {

namespace {

constexpr const char* kWrite = "cannot write trace";

// The order insert() takes rows in: by start, then track, the longer first.
bool key_less(const EventRow& a, const EventRow& b) {
  if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
  if (a.track != b.track) return a.track < b.track;
  return a.dur_ns > b.dur_ns;
}

}  // namespace

EventIndexer::EventIndexer(Db& db, bool keyed) : db_(db), keyed_(keyed) {
  prepare();
}

EventIndexer::EventIndexer(Db& db, Existing) : db_(db) {
  keyed_ = db_.pragma_int("user_version", kWrite) >= 5;
  if (keyed_) {
    Stmt origin(db_, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?", kWrite);
    origin.bind(1, std::string_view(meta_key::kEventKeyOriginNs));
    if (origin.step() && !origin.col_null(0)) key_origin_ = origin.col_int(0);
  }
  prepare();
  Stmt st(db_, "SELECT id FROM label WHERE category = 0 AND id >= 0 AND id <= 4294967295", kWrite);
  while (st.step()) mark_step_label(static_cast<std::uint32_t>(st.col_int(0)), true);
}

void EventIndexer::prepare() {
  sql_.emplace(db_, keyed_, key_origin_);
  table_ = &*sql_;
  ins_counter_ = Stmt(db_, "INSERT OR IGNORE INTO counter_sample VALUES (?,?,?)", kWrite);
  put_meta_ = Stmt(db_, "INSERT OR REPLACE INTO meta VALUES (?,?)", kWrite);
}

void EventIndexer::use_table(EventTable* table) {
  flush_batch();
  flush_extras();
  table_ = table != nullptr ? table : &*sql_;
}

void EventIndexer::fix_key_origin(std::span<const EventRow> rows) {
  if (!keyed_ || key_origin_ || rows.empty()) return;
  key_origin_ = rows.front().start_ns;
  put_meta_.bind(1, std::string_view(meta_key::kEventKeyOriginNs));
  put_meta_.bind(2, std::string_view(std::to_string(*key_origin_)));
  put_meta_.run();
}

std::uint64_t EventIndexer::index_blocks(int cache_mib) {
  earliest_indexed_start_ = INT64_MAX;
  std::vector<std::int64_t> blocks;
  {
    Stmt st(db_, "SELECT seq FROM event_block ORDER BY seq", kWrite);
    while (st.step()) blocks.push_back(st.col_int(0));
  }
  if (blocks.empty()) return 0;
  db_.exec(("PRAGMA cache_size=-" + std::to_string(cache_mib * 1024)).c_str(), kWrite);
  Stmt read(db_, "SELECT data FROM event_block WHERE seq = ?", kWrite);
  DecodedBlock rows;
  std::uint64_t indexed = 0;
  for (const std::int64_t seq : blocks) {
    read.bind(1, seq);
    rows.clear();
    if (read.step()) {
      const auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(read.get(), 0));
      const auto n = static_cast<std::size_t>(sqlite3_column_bytes(read.get(), 0));
      if (!decode_block({p, p == nullptr ? 0 : n}, rows))
        throw Error(db_.path() + " is corrupt: staged event block " + std::to_string(seq) +
                    " is malformed");
    }
    read.reset();
    for (const EventRow& e : rows.events)
      earliest_indexed_start_ = std::min(earliest_indexed_start_, e.start_ns);
    fix_key_origin(rows.events);
    insert(rows.events);
    insert(rows.counters);
    indexed += rows.events.size();
  }
  db_.exec("DELETE FROM event_block", kWrite);
  return indexed;
}

void EventIndexer::note_out_of_key_range() {
  if (out_of_key_range_ == 0) return;
  put_meta_.bind(1, std::string_view(meta_key::kEventsOutOfKeyRange));
  put_meta_.bind(2, std::string_view(std::to_string(out_of_key_range_)));
  put_meta_.run();
}

void EventIndexer::drop_pending() {
  batch_.clear();
  args_.clear();
  steps_.clear();
}

void EventIndexer::release() {
  for (Stmt* st : {&ins_counter_, &put_meta_}) *st = Stmt();
  if (sql_) sql_->release();
}

bool EventIndexer::keyless(const EventRow& r) const {
  return keyed_ && !has_key(r.start_ns, key_origin_.value_or(r.start_ns));
}

// The last start an event moved in `direction` may take: the end of the keys' range.
std::optional<std::int64_t> EventIndexer::last_start(int direction) const {
  if (!keyed_ || !key_origin_) return std::nullopt;
  return direction > 0 ? sat_add(*key_origin_, kKeyOffsetLimit - 1)
                       : sat_sub(*key_origin_, kKeyOffsetLimit);
}

// Rows are taken in key order: by start, then track, longer first; rows with equal keys keep
// the order they were given in (the order they were recorded). A row starting after everything
// already written on its track, alone on its (start_ns, track), cannot collide: it goes in a
// multi-row INSERT. The others (an outer zone ending after its children were written, zones
// starting on the same clock tick) are placed one at a time by place_same_start.
void EventIndexer::insert(std::span<const EventRow> rows) {
  const auto off_limits = [&](const EventRow& r) { return r.track >= kTrackLimit || keyless(r); };
  const bool damaged = std::any_of(rows.begin(), rows.end(), off_limits);
  if (damaged || !std::is_sorted(rows.begin(), rows.end(), key_less)) {
    sorted_.assign(rows.begin(), rows.end());
    out_of_key_range_ += std::erase_if(sorted_, [&](const EventRow& r) { return keyless(r); });
    std::erase_if(sorted_, off_limits);
    std::stable_sort(sorted_.begin(), sorted_.end(), key_less);
    rows = sorted_;
  }
  for (std::size_t i = 0; i < rows.size();) {
    const EventRow& row = rows[i];
    std::size_t j = i + 1;
    while (j < rows.size() && rows[j].start_ns == row.start_ns && rows[j].track == row.track) ++j;
    std::int64_t& latest = latest_start(row.track);
    if (j == i + 1 && row.start_ns > latest) {
      latest = row.start_ns;
      batch_.push_back(row);
    } else {
      flush_batch();
      place_same_start(rows.subspan(i, j - i));
    }
    i = j;
  }
  flush_batch();
  flush_extras();
}

void EventIndexer::flush_batch() {
  if (batch_.empty()) return;
  table_->insert_new(batch_, [&](std::span<EventRow> chunk, std::size_t inserted) {
    if (inserted != chunk.size()) {
      resolve_collisions(chunk);
      return;
    }
    inserted_ += chunk.size();
    insert_extras(chunk);
  });
  batch_.clear();
}

// Safety net, not expected to run: a batched row met a key written outside this writer's
// bookkeeping. Rows that made it in are recognised by content; the others are placed again.
void EventIndexer::resolve_collisions(std::span<EventRow> rows) {
  std::vector<std::pair<std::int64_t, std::uint32_t>> claimed;
  for (EventRow& r : rows) {
    const std::optional<StoredEvent> there = table_->find(r.start_ns, r.track);
    const bool present = there && there->dur_ns == r.dur_ns &&
                         there->label == std::int64_t{r.label} && there->step == r.step &&
                         there->bytes == r.bytes;
    const std::pair key{r.start_ns, r.track};
    if (present && std::find(claimed.begin(), claimed.end(), key) == claimed.end()) {
      claimed.push_back(key);
      written_one(r);
      continue;
    }
    place_same_start(std::span<const EventRow>(&r, 1));
    claimed.emplace_back(r.start_ns, r.track);
  }
}

// Places rows sharing one (start_ns, track), given longer first and equal durations in the
// order recorded. Clocks tick coarsely (10 ns on some CPUs), so a zone and the first zone nested
// in it often start on the same tick, and often end on the same tick too: the rows are taken
// to nest, outermost first. The outermost keeps the start and each nested row moves a
// nanosecond later than the one enclosing it; when a nested row is too short for that (it would
// end later than it did), the innermost keeps the start and the enclosing rows move earlier
// instead. When an event written earlier already holds the start (a nested zone written before
// the zone enclosing it ended), the rows enclosing it move earlier, the innermost nearest, and
// those it encloses move later. Moved rows keep their ends.
void EventIndexer::place_same_start(std::span<const EventRow> group) {
  group_.assign(group.begin(), group.end());
  for (auto it = group_.begin(); it != group_.end();) {  // equal durations: the later encloses
    const std::int64_t dur = it->dur_ns;
    const auto run =
        std::find_if(it, group_.end(), [&](const EventRow& r) { return r.dur_ns != dur; });
    std::reverse(it, run);
    it = run;
  }
  const std::size_t n = group_.size();
  bool nested_can_move_later = true;
  for (std::size_t k = 1; k < n; ++k)
    if (group_[k].dur_ns < static_cast<std::int64_t>(k)) nested_can_move_later = false;
  std::size_t keeper = nested_can_move_later ? 0 : n - 1;  // the row that keeps the start
  if (try_insert(group_[keeper])) {
    written_one(group_[keeper]);
  } else {
    const std::int64_t start = group_[0].start_ns;
    std::int64_t taken_end = start;
    if (const auto there = table_->find(start, group_[0].track))
      taken_end = sat_add(taken_end, there->dur_ns);
    keeper = 0;  // rows [0, keeper) enclose the event there, rows [keeper, n) lie inside it
    while (keeper < n && sat_add(start, group_[keeper].dur_ns) >= taken_end) ++keeper;
    if (keeper < n)
      insert_moving(group_[keeper], +1);
    else
      insert_moving(group_[--keeper], -1);
  }
  for (std::size_t k = keeper; k-- > 0;) insert_moving(group_[k], -1);
  for (std::size_t k = keeper + 1; k < n; ++k) insert_moving(group_[k], +1);
}

bool EventIndexer::try_insert(const EventRow& r) {
  return table_->try_insert(r);
}

// Inserts r at the first free start from r.start_ns on in `direction` (-1 or +1), keeping its
// end (a row moved later than its end keeps no duration). event_starts_ skips the starts found
// taken before, so the rows of one key cost one search in all. A row with no free start left
// before the end of the time range is dropped.
void EventIndexer::insert_moving(EventRow r, int direction) {
  const EventRow wanted = r;
  const auto placed = event_starts_.place(
      r.track, wanted.start_ns, direction,
      [&](std::int64_t s) {
        r.start_ns = s;
        if (direction > 0)
          r.dur_ns = std::max<std::int64_t>(0, sat_sub(wanted.dur_ns, sat_sub(s, wanted.start_ns)));
        else
          r.dur_ns = sat_add(wanted.dur_ns, sat_sub(wanted.start_ns, s));
        return try_insert(r);
      },
      last_start(direction));
  if (!placed) return;
  if (*placed != wanted.start_ns) ++moved_;
  earliest_indexed_start_ = std::min(earliest_indexed_start_, r.start_ns);
  written_one(r);
}

void EventIndexer::written_one(const EventRow& r) {
  ++inserted_;
  std::int64_t& latest = latest_start(r.track);
  latest = std::max(latest, r.start_ns);
  insert_extras(std::span<const EventRow>(&r, 1));
}

// Arguments and steps of inserted events wait for flush_extras(), to go in multi-row INSERTs.
void EventIndexer::insert_extras(std::span<const EventRow> rows) {
  for (const EventRow& r : rows) {
    if (table_->stores_extras_with_events()) continue;
    if (r.work_size != kNull || r.correlation != kNull) args_.push_back(r);
    if (r.step != kNull && is_step_label(r.label)) steps_.push_back(r);
  }
}

void EventIndexer::flush_extras() {
  if (!args_.empty()) table_->insert_args(args_);
  args_.clear();
  if (!steps_.empty()) table_->insert_steps(steps_);
  steps_.clear();
}

// Samples of one track at the same nanosecond move later, to the first free time. A NaN value
// is never stored (SQLite makes it NULL, which the table refuses): the sample is skipped
// rather than offered every later time.
void EventIndexer::insert(std::span<const CounterRow> rows) {
  for (const CounterRow& c : rows) {
    if (std::isnan(c.value)) continue;
    counter_times_.place(c.track, c.ts_ns, +1, [&](std::int64_t ts) {
      ins_counter_.bind(1, std::int64_t{c.track});
      ins_counter_.bind(2, ts);
      ins_counter_.bind(3, c.value);
      ins_counter_.run();
      return sqlite3_changes(db_.get()) == 1;
    });
  }
}

// Label ids are dense from 1 in every writer's caller; a hostile one far above goes in a set
// rather than sizing the table by it.
void EventIndexer::mark_step_label(std::uint32_t id, bool is_step) {
  if (id < kDenseLabels) {
    if (step_labels_.size() <= id) step_labels_.resize(std::size_t{id} + 1, false);
    step_labels_[id] = is_step;
  } else if (is_step) {
    sparse_step_labels_.insert(id);
  } else {
    sparse_step_labels_.erase(id);
  }
}

bool EventIndexer::is_step_label(std::uint32_t label) const {
  if (label < step_labels_.size()) return step_labels_[label];
  return label >= kDenseLabels && sparse_step_labels_.contains(label);
}

std::int64_t& EventIndexer::latest_start(std::uint32_t track) {
  if (track_max_start_.size() <= track)
    track_max_start_.resize(std::size_t{track} + 1, std::numeric_limits<std::int64_t>::min());
  return track_max_start_[track];
}

}  // namespace ts::store
