// Reads a trace file. Opens it read-only and defensively (SQLITE_DBCONFIG_DEFENSIVE,
// trusted_schema=OFF, no views or triggers, query_only), checks it is a trainscope trace of a
// schema version this build understands, and answers range queries from the tables (never the
// views, which a hostile file could redefine). Events a killed capture left staged (event_block)
// are indexed into an in-memory copy of the file, which is never written. Every failure — missing,
// foreign, newer, truncated or corrupt file — is an Error with one sentence naming the file. A
// Reader is used by one thread at a time; open one per thread to read in parallel.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "profiler/store/event_pages.hpp"
#include "profiler/store/numbered_label.hpp"
#include "profiler/store/row_function.hpp"
#include "profiler/store/rows.hpp"
#include "profiler/store/sqlite.hpp"
#include "trainscope/taxonomy.hpp"

namespace ts::store {

class LiveCopy;

// An immutable copy of a reader's in-memory trace (a capture still running, its staged events
// indexed), which any number of readers on any threads read at once without indexing again.
class Snapshot {
 public:
  Snapshot(unsigned char* bytes, std::size_t size) : bytes_(bytes), size_(size) {}
  ~Snapshot();
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;
  const unsigned char* bytes() const { return bytes_; }
  std::size_t size() const { return size_; }

 private:
  unsigned char* bytes_;  // from sqlite3_serialize, freed with sqlite3_free
  std::size_t size_;
};

struct Track {
  std::uint32_t id = 0;
  std::string name;
  trace::TrackKind kind = trace::TrackKind::thread;
  std::int64_t os_tid = kNull;
  std::int64_t process = kNull;  // a Process id; kNull: the trace's only process
};

// A process of the trace (schema version 3): a rank of a distributed job, or one imported file.
struct Process {
  std::uint32_t id = 0;
  std::string name;
  std::int64_t rank = kNull;
  std::int64_t pid = kNull;
  std::string host;
};

struct Label {
  std::string name;
  trace::Category category = trace::Category::other;
  std::string file;
  std::int64_t line = kNull;
};

struct Event {
  std::int64_t start_ns = 0;
  std::int64_t dur_ns = 0;
  std::uint32_t track = 0;
  std::uint32_t label = 0;
  trace::Category category = trace::Category::other;
  std::int64_t step = kNull;
  std::int64_t bytes = kNull;
  std::int64_t end_ns() const { return sat_add(start_ns, dur_ns); }
};

struct EventArgs {
  std::int64_t work_size = kNull;
  std::int64_t correlation = kNull;
};

struct Step {
  std::int64_t step = 0;
  std::int64_t start_ns = 0;
  std::int64_t dur_ns = 0;
  std::uint32_t track = 0;
};

struct CounterSample {
  std::int64_t ts_ns = 0;
  double value = 0;
};

struct TimeRange {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;  // the latest event end; start == end for an empty trace
};

// Names (strings, track, process and host names) longer than this are cut when read: a file
// cannot make every later use of a name (a report line, an exported event) arbitrarily costly.
inline constexpr std::size_t kMaxNameBytes = std::size_t{64} << 10;

// How long a reader of a trace file waits for another connection's commit to it.
inline constexpr int kReaderBusyMs = 10'000;

class Reader {
 public:
  // Throws Error when the file is missing, not a trainscope trace, of a newer schema or damaged.
  explicit Reader(const std::string& path);
  // Reads `snapshot` (made by snapshot_copy() of a reader of `path`) instead of the file; a null
  // snapshot reads the file.
  Reader(const std::string& path, std::shared_ptr<const Snapshot> snapshot);
  // As above, taking the string, label, track and process tables from `tables_from` (another
  // reader of `path`, used on other threads meanwhile) instead of loading a copy of its own when
  // both read what cannot have changed: the same snapshot, or a finished trace (one with an
  // overview) whose first and last events are the same. Anything else (a capture still running,
  // a file replaced) loads its own. A trace of N steps names N labels: this keeps one copy of
  // them per process, not one per reader. `tables_from` must not refresh() while this opens.
  Reader(const std::string& path, std::shared_ptr<const Snapshot> snapshot,
         const Reader& tables_from);
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  // Takes in what a capture still running has committed since this reader opened or last
  // refreshed, reading only that (reader_refresh.cpp): the blocks staged since, indexed into the
  // in-memory copy, and the small tables (strings, labels, tracks, processes, meta). Every
  // Track*, Label& and Process* handed out before is invalidated. `reopen`: what changed cannot
  // be taken in place (the capture stopped and indexed its events, the file was recovered or
  // replaced, or it had staged nothing when this reader opened): open a new Reader.
  enum class Refresh { unchanged, appended, reopen };
  Refresh refresh();
  // A copy of what this reader reads, for readers on other threads: of a reader that indexed
  // staged events (a capture still running) a new copy, of a snapshot's reader that snapshot,
  // else null (other readers open the file: nothing to index). Costs a copy of the trace.
  std::shared_ptr<const Snapshot> snapshot_copy() const;
  // What this reader reads: its snapshot, or null for the file.
  const std::shared_ptr<const Snapshot>& snapshot() const { return snapshot_; }
  // Staged blocks indexed by this reader: on opening and by each refresh().
  std::uint64_t blocks_indexed() const;
  // Every event that the last refresh() took in starts at or after this (INT64_MAX: it took none
  // in; INT64_MIN: everything may be new, as after opening or reading the file itself), where
  // the indexer placed them (it moves a start a few nanoseconds to keep keys unique).
  std::int64_t changed_from_ns() const { return changed_from_ns_; }

  const std::string& path() const { return db_.path(); }
  int schema_version() const { return version_; }

  const std::vector<Track>& tracks() const { return tables_->tracks; }
  const Track* track(std::uint32_t id) const;
  // The process rows, by id; empty for a trace of one process (and every file before version 3).
  const std::vector<Process>& processes() const { return tables_->processes; }
  const Process* process(std::int64_t id) const;
  // The label of an event; a placeholder ("?", other) for ids the file does not define.
  const Label& label(std::uint32_t id) const;
  // Its label's name; full_name() adds the step number a numbered step label stands for.
  std::string_view name(const Event& e) const { return label(e.label).name; }
  std::string full_name(const Event& e) const {
    const Label& l = label(e.label);
    return full_event_name(l.name, l.category, e.step);
  }

  // Events overlapping [t0, t1) (an event ending exactly at t0 counts), ordered by start.
  // track == 0 means every track.
  std::vector<Event> events(std::int64_t t0, std::int64_t t1, std::uint32_t track = 0) const;
  void scan(std::int64_t t0, std::int64_t t1, std::uint32_t track,
            const std::function<void(const Event&)>& fn) const;
  // Events carrying step number `step`, on any track, ordered by start.
  std::vector<Event> step_events(std::int64_t step) const;
  EventArgs args(const Event& e) const;
  // scan() over every track with each event's arguments, read in the same pass: the event and
  // event_arg tables are walked side by side in their common key order, so a row costs no
  // lookup of its own (export, analysis).
  void scan_with_args(std::int64_t t0, std::int64_t t1,
                      const std::function<void(const Event&, const EventArgs&)>& fn) const;
  // Events starting in [t0, t1) whose correlation id is `id` (a launch and the device events
  // it caused share one), on any track; at most `limit`. A range scan of event_arg.
  std::vector<Event> events_with_correlation(std::int64_t id, std::int64_t t0, std::int64_t t1,
                                             int limit = 16) const;

  // Ordered by start, then track, one per (start, track), even from a damaged file.
  std::vector<Step> steps() const;
  // How many step rows the file holds (steps() may hold fewer from a damaged file).
  std::int64_t step_count() const;
  // steps() one at a time, without a list of them all (a 100 M-event trace has 2.2 M steps).
  // Returns false, having stopped, at a row out of (start, track) order or repeated, which
  // only a damaged b-tree returns: steps() sorts those.
  bool each_step(const std::function<void(const Step&)>& fn) const;
  // The steps starting in [t0, t1), ordered as steps() orders them.
  std::vector<Step> steps_starting_in(std::int64_t t0, std::int64_t t1) const;
  // The last step (by start, then track) starting before t.
  std::optional<Step> last_step_before(std::int64_t t) const;
  // How many steps come at or after `from` (by start, then track) and start before t.
  std::int64_t steps_from_until(const Step& from, std::int64_t t) const;
  // At most `limit` steps from `from` on (by start, then track; `from` itself if stored).
  std::vector<Step> steps_from(const Step& from, std::int64_t limit) const;
  // The steps numbered first..last, in time order (unless the file is damaged), until `fn`
  // returns false.
  void each_numbered_step(std::int64_t first, std::int64_t last,
                          const std::function<bool(const Step&)>& fn) const;
  // Samples of `track` in [t0, t1), in time order, one per time, even from a damaged file.
  std::vector<CounterSample> counter(std::uint32_t track, std::int64_t t0, std::int64_t t1) const;

  std::optional<std::string> meta(std::string_view key) const;
  std::vector<std::pair<std::string, std::string>> meta() const;

  // Names longer than kMaxNameBytes that were cut (to that length, at a UTF-8 character
  // boundary, with "…" appended).
  std::uint64_t names_cut() const { return names_cut_; }

  // The stored overview's bytes (overview_codec.hpp decodes them); empty when the file has
  // none, or when events a killed capture left staged were indexed on opening (an overview
  // never covers those).
  std::string overview_bytes() const;
  // Whether overview_bytes() would return any: the trace was finished (written to its end).
  bool has_overview() const;
  // Calls `part` with each part of the analysis kept under `key` (the `analysis` table), in
  // order, and the size of all of them, until it returns false. False when the trace keeps none
  // under that key (the table is absent, the trace is not finished) or `part` refused one.
  // Throws Error when the file cannot be read.
  bool kept_analysis(
      std::string_view key,
      const std::function<bool(std::string_view part, std::uint64_t all_bytes)>& part) const;
  // The seal kept with those parts (analysis_table.hpp's kSealPart row), as stored; nullopt when
  // there is none.
  std::optional<std::string> kept_analysis_seal(std::string_view key) const;
  // Whether events a killed (or still running) capture left staged were indexed on opening.
  bool staged_events_indexed() const { return staged_indexed_; }
  // Whether this reader shares its tables with another reader (the constructor taking
  // `tables_from`) rather than holding a copy of its own.
  bool shares_tables_with(const Reader& other) const { return tables_ == other.tables_; }

  // Every event counted: a walk of the whole table (0.2 s for 52 M events from the page cache).
  std::int64_t event_count() const;
  // The events, counted up to `at_most` (then at_most): what a threshold needs.
  std::int64_t event_count(std::int64_t at_most) const;
  // Whether the trace holds an event: one lookup.
  bool has_events() const { return event_count(1) > 0; }
  TimeRange time_range() const;
  // The first and the last event's stored key (the id in version 5, the start before; both 0 for
  // a trace without events): two lookups that tell apart traces whose events changed at an end.
  std::pair<std::int64_t, std::int64_t> first_last_keys() const;

 private:
  void open_file(const std::string& path);
  void open_snapshot(const std::string& path);
  void open_checked();
  bool has_staged_events() const;
  // The trace's small tables, immutable once loaded: readers of a file that cannot change share
  // one (the constructor taking `tables_from`); refresh() loads a new one.
  struct Tables {
    std::vector<Track> tracks;
    std::unordered_map<std::uint32_t, std::size_t> track_index;  // id -> tracks index
    std::vector<Process> processes;
    std::unordered_map<std::uint32_t, Label> labels;
    // labels by id for the small ids real traces use: a lookup per event on every scan.
    std::vector<const Label*> label_index;
    std::uint64_t names_cut = 0;  // names cut while loading these
    // Read from a finished trace (one with an overview), whose tables never change, with these
    // first and last event keys: what another reader of the file compares before sharing them
    // (without touching this reader's connection, busy on its own thread).
    bool finished = false;
    std::pair<std::int64_t, std::int64_t> first_last_keys{0, 0};
  };
  void open(const std::string& path);
  bool can_share_tables(const Reader& other) const;
  void load_key_origin();
  void load_tables();
  void prepare_queries();
  // The event of a row whose first columns are the key then dur_ns, label, step, bytes: a
  // Stmt's or a RowValues.
  template <class Row>
  Event read_event(const Row& row) const;
  // The step_span row at `st` (columns step, start_ns, dur_ns, track).
  static Step read_step(const Stmt& st);
  // The rows of `st` as steps, ordered and one per (start, track) as steps() returns them.
  std::vector<Step> read_steps(Stmt& st) const;
  // The stored key of the row at `st`'s first columns, compared as stored: (id, 0) in version 5,
  // (start_ns, track) before.
  template <class Row>
  std::pair<std::int64_t, std::int64_t> stored_key(const Row& row) const;
  struct Bounds {
    std::int64_t lo = 0, hi = -1;  // inclusive; lo > hi: nothing
  };
  // The stored keys of events starting in [t0, t1).
  Bounds start_bounds(std::int64_t t0, std::int64_t t1) const;
  void scan_long(std::int64_t t0, std::int64_t before, std::uint32_t track,
                 std::vector<Event>& out) const;
  // The event rows with keys in b, every track, to on_row (a RowValues or an EventPages::Row):
  // from the pages where the file allows (event_pages.hpp), the rest through range_.
  template <class Fn>
  void range_rows(Bounds b, Fn&& on_row) const;
  template <class Fn>
  void each_row(Stmt& st, Fn&& fn) const;

  static std::string name_text(const Stmt& st, int column, std::uint64_t& names_cut);

  std::int64_t changed_from_ns_ = INT64_MIN;
  std::shared_ptr<const Snapshot> snapshot_;  // before db_: outlives the connection reading it
  Db db_;
  int version_ = 0;
  // Version 5 keys events by one integer from an origin (event_key.hpp); earlier versions by
  // (start_ns, track).
  bool keyed_ = false;
  std::int64_t key_origin_ = 0;
  bool staged_indexed_ = false;
  // A file with staged events: db_ is its in-memory copy, which this keeps up to date.
  std::unique_ptr<LiveCopy> live_;
  std::int64_t data_version_ = -1;  // a file read in place: of db_, at the last refresh
  std::uint64_t names_cut_ = 0;
  std::shared_ptr<const Tables> tables_;
  Label unknown_label_{"?", trace::Category::other, {}, kNull};
  // Hands the rows of range_ and range_track_ to scans (row_function.hpp).
  mutable RowFunction rows_;
  // The event table's pages, read without SQLite; null for a copy in memory or a write-ahead
  // log (event_pages.hpp).
  std::unique_ptr<EventPages> pages_;
  mutable bool in_range_rows_ = false;
  // Prepared once; mutable because stepping a statement is not a logical change.
  mutable Stmt range_, range_track_, long_, arg_, steps_, step_by_number_, step_after_, counter_,
      meta_one_, by_correlation_, args_range_, steps_in_, step_before_, steps_until_, steps_from_,
      steps_numbered_, event_root_;
};

}  // namespace ts::store
