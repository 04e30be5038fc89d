// Builds small traces with the store writer directly (no capture) for the store tests.
#pragma once

#include <sqlite3.h>

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "profiler/store/file_check.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/writer.hpp"
#include "tests/profiler/test_util.hpp"

namespace ts::test {

// A hand-built trace's label: its id names the string and the label both.
struct NamedLabel {
  std::uint32_t id;
  const char* name;
  trace::Category category;
};
inline void put_labels(store::Writer& w, std::initializer_list<NamedLabel> labels) {
  for (const NamedLabel& l : labels) {
    w.put_string(l.id, l.name);
    w.put_label(l.id, l.id, l.category);
  }
}

// Labels 1..3: "fwd" host_compute, "gemm" kernel, "step" step. Tracks 1 (thread "main"),
// 2 (device queue "gpu0"), 3 (counter "fill").
// Writer options of a capture: events staged as blocks until finish() indexes them.
inline store::WriterOptions staged() {
  store::WriterOptions o;
  o.staged = true;
  return o;
}

inline void write_dictionary(store::Writer& w) {
  w.put_string(1, "fwd");
  w.put_string(2, "gemm");
  w.put_string(3, "step");
  w.put_string(4, "model.cpp");
  w.put_label(1, 1, trace::Category::host_compute, 4, 12);
  w.put_label(2, 2, trace::Category::kernel);
  w.put_label(3, 3, trace::Category::step);
  w.put_track(1, "main", trace::TrackKind::thread, 4242);
  w.put_track(2, "gpu0", trace::TrackKind::device_queue);
  w.put_track(3, "fill", trace::TrackKind::counter);
  w.put_meta("clock.origin_ns", "1000000000");
}

// `steps` steps of 1 ms from t = 1 s; in each: a step event on track 1, five 100 us "fwd"
// zones on track 1 and five 50 us "gemm" kernels (work size 64, correlation = step) on track 2.
inline std::vector<store::EventRow> step_rows(int steps) {
  std::vector<store::EventRow> rows;
  const std::int64_t t0 = 1'000'000'000;
  for (int s = 0; s < steps; ++s) {
    const std::int64_t base = t0 + std::int64_t{s} * 1'000'000;
    rows.push_back({base, 1'000'000, 1, 3, s});
    for (int k = 0; k < 5; ++k) {
      rows.push_back({base + 10'000 + k * 150'000, 100'000, 1, 1, s, 1024});
      rows.push_back({base + 20'000 + k * 150'000, 50'000, 2, 2, s, store::kNull, 64, s});
    }
  }
  return rows;
}

// A trace of `steps` steps (step_rows) with the dictionary, finished, as dir/good.db.
inline std::string good_trace(const TempDir& dir, int steps = 200) {
  const std::string path = dir.file("good.db");
  store::Writer w(path);
  write_dictionary(w);
  auto rows = step_rows(steps);
  w.append(std::span<const store::EventRow>(rows));
  w.finish();
  return path;
}

// The message of the Error that opening `path` with a Reader throws ("" when it opens).
inline std::string open_error(const std::string& path) {
  try {
    store::Reader r(path);
    return "";
  } catch (const store::Error& e) {
    return e.what();
  }
}

inline bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// SQL copying the attached trace src's events and their arguments into a trace of `version`:
// before version 5, keyed by (start_ns, track) instead of one integer.
inline std::string events_as_version(int version) {
  if (version >= 5)
    return "INSERT INTO event SELECT * FROM src.event;"
           "INSERT INTO event_arg SELECT * FROM src.event_arg;";
  const std::string start =
      "(id >> 16) + (SELECT CAST(value AS INTEGER) FROM src.meta WHERE key = "
      "'event.key_origin_ns'), id & 65535";
  return "INSERT INTO event SELECT " + start + ", dur_ns, label, step, bytes FROM src.event;" +
         "INSERT INTO event_arg SELECT " + start + ", work_size, correlation FROM src.event_arg;";
}

// Copies the current-version trace `from` into a new file `to` of schema `version`, as a writer
// of that version made it: its tables, indexes and views, and the rows they can hold.
inline void write_older_version(const std::string& from, const std::string& to, int version) {
  sqlite3* db = nullptr;
  sqlite3_open(to.c_str(), &db);
  std::string script = store::schema_sql_of_version(version) + "ATTACH '" + from +
                       "' AS src; BEGIN;"
                       "INSERT INTO meta SELECT * FROM src.meta;"
                       "INSERT INTO string SELECT * FROM src.string;"
                       "INSERT INTO label SELECT * FROM src.label;"
                       "INSERT INTO track SELECT id, name, kind, os_tid" +
                       (version >= 3 ? ", process" : "") + " FROM src.track;" +
                       events_as_version(version) +
                       "INSERT INTO step_span SELECT * FROM src.step_span;"
                       "INSERT INTO counter_sample SELECT * FROM src.counter_sample;";
  if (version >= 2) script += "INSERT INTO event_block SELECT * FROM src.event_block;";
  if (version >= 3) script += "INSERT INTO process SELECT * FROM src.process;";
  script += "COMMIT; DETACH src;";
  char* error = nullptr;
  const int rc = sqlite3_exec(db, script.c_str(), nullptr, nullptr, &error);
  const std::string why = error != nullptr ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  if (rc != SQLITE_OK) throw std::runtime_error("cannot write " + to + ": " + why);
}

}  // namespace ts::test
