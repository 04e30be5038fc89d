// Helpers for the TensorFlow profile import tests: small XSpace messages built with the generated
// classes of profiler/import/xplane/xplane.proto (planes, lines, events, stats as TensorFlow writes
// them), written as <host>.xplane.pb files, imported, and read back through store::Reader.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "profiler/import/xplane/xplane.pb.h"
#include "tests/profiler/import/import_test_util.hpp"

namespace ts::test {

namespace xp = ::tensorflow::profiler;

// The event metadata id of `name` in the plane (added when new; display name set when given).
inline std::int64_t event_meta(xp::XPlane& p, const std::string& name,
                               const std::string& display = "") {
  for (const auto& [id, m] : p.event_metadata())
    if (m.name() == name) return id;
  const auto id = static_cast<std::int64_t>(p.event_metadata_size() + 1);
  xp::XEventMetadata& m = (*p.mutable_event_metadata())[id];
  m.set_id(id);
  m.set_name(name);
  m.set_display_name(display);
  return id;
}

// The stat metadata id of `name` (added when new).
inline std::int64_t stat_meta(xp::XPlane& p, const std::string& name) {
  for (const auto& [id, m] : p.stat_metadata())
    if (m.name() == name) return id;
  const auto id = static_cast<std::int64_t>(p.stat_metadata_size() + 1);
  xp::XStatMetadata& m = (*p.mutable_stat_metadata())[id];
  m.set_id(id);
  m.set_name(name);
  return id;
}

inline xp::XPlane& add_plane(xp::XSpace& s, const std::string& name) {
  xp::XPlane* p = s.add_planes();
  p->set_name(name);
  return *p;
}

// The Task Environment plane with profile_start_time (uint64, as TensorFlow writes it).
inline void add_task_environment(xp::XSpace& s, std::int64_t start_ns) {
  xp::XPlane& p = add_plane(s, "Task Environment");
  xp::XStat* st = p.add_stats();
  st->set_metadata_id(stat_meta(p, "profile_start_time"));
  st->set_uint64_value(static_cast<std::uint64_t>(start_ns));
  xp::XStat* stop = p.add_stats();
  stop->set_metadata_id(stat_meta(p, "profile_stop_time"));
  stop->set_uint64_value(static_cast<std::uint64_t>(start_ns) + 1000000000u);
}

inline xp::XLine& add_line(xp::XPlane& p, std::int64_t id, const std::string& name,
                           std::int64_t timestamp_ns) {
  xp::XLine* l = p.add_lines();
  l->set_id(id);
  l->set_name(name);
  l->set_display_name(name);
  l->set_timestamp_ns(timestamp_ns);
  return *l;
}

inline xp::XEvent& add_event(xp::XPlane& p, xp::XLine& l, const std::string& name,
                             std::int64_t offset_ps, std::int64_t duration_ps,
                             const std::string& display = "") {
  xp::XEvent* e = l.add_events();
  e->set_metadata_id(event_meta(p, name, display));
  e->set_offset_ps(offset_ps);
  e->set_duration_ps(duration_ps);
  return *e;
}

inline void stat_int(xp::XPlane& p, xp::XEvent& e, const std::string& name, std::int64_t v) {
  xp::XStat* s = e.add_stats();
  s->set_metadata_id(stat_meta(p, name));
  s->set_int64_value(v);
}

inline void stat_uint(xp::XPlane& p, xp::XEvent& e, const std::string& name, std::uint64_t v) {
  xp::XStat* s = e.add_stats();
  s->set_metadata_id(stat_meta(p, name));
  s->set_uint64_value(v);
}

// A string stat as TensorFlow writes most of them: a ref_value naming a stat metadata.
inline void stat_ref(xp::XPlane& p, xp::XEvent& e, const std::string& name,
                     const std::string& text) {
  xp::XStat* s = e.add_stats();
  s->set_metadata_id(stat_meta(p, name));
  s->set_ref_value(static_cast<std::uint64_t>(stat_meta(p, text)));
}

inline void stat_str(xp::XPlane& p, xp::XEvent& e, const std::string& name,
                     const std::string& text) {
  xp::XStat* s = e.add_stats();
  s->set_metadata_id(stat_meta(p, name));
  s->set_str_value(text);
}

inline std::string write_space(const ImportDir& dir, const xp::XSpace& s,
                               const std::string& name = "host.xplane.pb") {
  std::string bytes;
  EXPECT_TRUE(s.SerializeToString(&bytes));
  std::filesystem::create_directories(std::filesystem::path(dir.file(name)).parent_path());
  return dir.write(name, bytes);
}

struct XImported {
  import::ImportStats stats;
  std::unique_ptr<store::Reader> reader;
  std::vector<EventView> events;
};

inline XImported import_sources(const ImportDir& dir, const std::vector<std::string>& sources,
                                const import::ImportOptions& options = {}) {
  XImported out;
  out.stats = import::import_traces(sources, dir.file("out.db"), options);
  out.reader = std::make_unique<store::Reader>(dir.file("out.db"));
  out.events = all_events(*out.reader);
  return out;
}

inline XImported import_space(const ImportDir& dir, const xp::XSpace& s,
                              const import::ImportOptions& options = {}) {
  return import_sources(dir, {write_space(dir, s)}, options);
}

// The events of a trace named `name`.
inline std::vector<EventView> named(const std::vector<EventView>& v, const std::string& name) {
  std::vector<EventView> out;
  for (const EventView& e : v)
    if (e.name == name) out.push_back(e);
  return out;
}

}  // namespace ts::test
