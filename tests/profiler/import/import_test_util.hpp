// Helpers for the importer tests: scratch files (plain or gzip), importing JSON text into a
// trace, and reading the trace back through store::Reader.
#pragma once

#include <unistd.h>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "profiler/import/import.hpp"
#include "profiler/store/reader.hpp"

namespace ts::test {

class ImportDir {
 public:
  ImportDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "tsimport_XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    path_ = tmpl;
  }
  ~ImportDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ImportDir(const ImportDir&) = delete;
  ImportDir& operator=(const ImportDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = file(name);
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  std::string write_gz(const std::string& name, const std::string& text) const {
    const std::string p = file(name);
    gzFile g = gzopen(p.c_str(), "wb");
    gzwrite(g, text.data(), static_cast<unsigned>(text.size()));
    gzclose(g);
    return p;
  }

 private:
  std::filesystem::path path_;
};

// The events of a trace in start order, with their names and categories resolved.
struct EventView {
  store::Event e;
  std::string name;
  trace::Category category;
  std::string track;
  trace::TrackKind kind;
  std::int64_t correlation = store::kNull;
};

inline std::vector<EventView> all_events(const store::Reader& r) {
  std::vector<EventView> out;
  const store::TimeRange range = r.time_range();
  for (const store::Event& e : r.events(range.start_ns, range.end_ns + 1)) {
    const store::Track* t = r.track(e.track);
    out.push_back({e, r.full_name(e), r.label(e.label).category, t ? t->name : "?",
                   t ? t->kind : trace::TrackKind::thread, r.args(e).correlation});
  }
  return out;
}

inline const EventView* find_event(const std::vector<EventView>& v, const std::string& name) {
  for (const EventView& e : v)
    if (e.name == name) return &e;
  return nullptr;
}

inline std::string meta_or(const store::Reader& r, const std::string& key,
                           const std::string& fallback = "") {
  return r.meta(key).value_or(fallback);
}

// Whether a comma-separated id list (meta analysis.trainer_tracks) holds `id`.
inline bool in_id_list(const std::string& list, std::uint32_t id) {
  std::size_t begin = 0;
  while (begin <= list.size()) {
    std::size_t end = list.find(',', begin);
    if (end == std::string::npos) end = list.size();
    if (list.compare(begin, end - begin, std::to_string(id)) == 0) return true;
    begin = end + 1;
  }
  return false;
}

// Imports `json` (written as a file named `name` in dir) into dir/out.db.
inline import::ImportStats import_text(const ImportDir& dir, const std::string& json,
                                       const import::ImportOptions& options = {},
                                       const std::string& name = "trace.json") {
  const std::vector<std::string> sources{dir.write(name, json)};
  return import::import_traces(sources, dir.file("out.db"), options);
}

// A Kineto-style X event.
inline std::string x_event(const std::string& cat, const std::string& name, long long pid,
                           long long tid, const std::string& ts, const std::string& dur,
                           const std::string& args = "{}") {
  return "{\"ph\":\"X\",\"cat\":\"" + cat + "\",\"name\":\"" + name +
         "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + ts +
         ",\"dur\":" + dur + ",\"args\":" + args + "}";
}

inline std::string kineto_trace(const std::vector<std::string>& events,
                                const std::string& extra = "") {
  std::string s =
      "{\"schemaVersion\":1," + extra + (extra.empty() ? "" : ",") + "\"traceEvents\":[";
  for (std::size_t i = 0; i < events.size(); ++i) s += (i ? ",\n" : "\n") + events[i];
  return s + "\n]}";
}

}  // namespace ts::test
