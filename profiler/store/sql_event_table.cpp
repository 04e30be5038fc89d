#include "profiler/store/sql_event_table.hpp"

#include "profiler/store/event_key.hpp"

namespace ts::store {

namespace {
constexpr const char* kWrite = "cannot write trace";
}  // namespace

SqlEventTable::SqlEventTable(Db& db, bool keyed, const std::optional<std::int64_t>& key_origin)
    : db_(db), keyed_(keyed), key_origin_(key_origin) {
  const int key_columns = keyed_ ? 1 : 2;
  ins_event_ = MultiRowInsert(db_, "INSERT OR IGNORE INTO event VALUES ", key_columns + 4, kWrite);
  ins_event1_ = Stmt(db_,
                     keyed_ ? "INSERT OR IGNORE INTO event VALUES (?,?,?,?,?)"
                            : "INSERT OR IGNORE INTO event VALUES (?,?,?,?,?,?)",
                     kWrite);
  find_event_ = Stmt(db_,
                     keyed_ ? "SELECT dur_ns, label, step, bytes FROM event WHERE id = ?"
                            : "SELECT dur_ns, label, step, bytes FROM event "
                              "WHERE start_ns = ? AND track = ?",
                     kWrite);
  ins_arg_ =
      MultiRowInsert(db_, "INSERT OR IGNORE INTO event_arg VALUES ", key_columns + 2, kWrite);
  ins_step_ = MultiRowInsert(db_, "INSERT OR IGNORE INTO step_span VALUES ", 4, kWrite);
}

void SqlEventTable::release() {
  for (Stmt* s : {&ins_event1_, &find_event_}) *s = Stmt();
  for (MultiRowInsert* m : {&ins_event_, &ins_arg_, &ins_step_}) m->clear();
}

// Binds an event's key at parameter p; returns the next parameter.
int SqlEventTable::bind_key(Stmt& st, int p, std::int64_t start, std::uint32_t track) const {
  if (keyed_) {
    st.bind(p, event_key(start, track, key_origin_.value_or(start)));
    return p + 1;
  }
  st.bind(p, start);
  st.bind(p + 1, std::int64_t{track});
  return p + 2;
}

void SqlEventTable::bind_event(Stmt& st, int p, const EventRow& r) const {
  p = bind_key(st, p, r.start_ns, r.track);
  st.bind(p, r.dur_ns);
  st.bind(p + 1, std::int64_t{r.label});
  st.bind_opt(p + 2, r.step, kNull);
  st.bind_opt(p + 3, r.bytes, kNull);
}

void SqlEventTable::insert_new(std::span<EventRow> rows, const ChunkDone& done) {
  ins_event_.insert(
      rows, [&](Stmt& st, int p, const EventRow& r) { bind_event(st, p, r); }, done);
}

bool SqlEventTable::try_insert(const EventRow& r) {
  bind_event(ins_event1_, 1, r);
  ins_event1_.run();
  return sqlite3_changes(db_.get()) == 1;
}

std::optional<StoredEvent> SqlEventTable::find(std::int64_t start, std::uint32_t track) {
  bind_key(find_event_, 1, start, track);
  std::optional<StoredEvent> found;
  if (find_event_.step()) {
    const auto opt = [&](int c) {
      return find_event_.col_null(c) ? kNull : find_event_.col_int(c);
    };
    found = StoredEvent{find_event_.col_int(0), find_event_.col_int(1), opt(2), opt(3)};
  }
  find_event_.reset();
  return found;
}

void SqlEventTable::insert_args(std::span<const EventRow> rows) {
  ins_arg_.insert(rows, [&](Stmt& st, int p, const EventRow& r) {
    p = bind_key(st, p, r.start_ns, r.track);
    st.bind_opt(p, r.work_size, kNull);
    st.bind_opt(p + 1, r.correlation, kNull);
  });
}

void SqlEventTable::insert_steps(std::span<const EventRow> rows) {
  ins_step_.insert(rows, [](Stmt& st, int p, const EventRow& r) {
    st.bind(p, r.start_ns);
    st.bind(p + 1, std::int64_t{r.track});
    st.bind(p + 2, r.step);
    st.bind(p + 3, r.dur_ns);
  });
}

}  // namespace ts::store
