// The writer thread's half of capture: drains every thread's ring, turns raw events into store
// rows (sites -> labels, ticks -> nanoseconds, counter sites -> counter tracks) and copies the
// process tables (strings, tracks, meta, drop counters) into the trace.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "profiler/capture/core/clock.hpp"
#include "profiler/capture/core/runtime.hpp"
#include "profiler/store/rows.hpp"
#include "profiler/store/writer.hpp"
#include "trainscope/trace.hpp"

namespace ts::trace::capture {

class Collector {
 public:
  Collector(store::Writer& writer, const core::Calibration& calibration, core::Runtime& runtime);

  // Drains every ring once and writes the rows (inside the writer's open transaction).
  // Returns the number of events drained.
  std::size_t drain();
  // Drains threads that have exited, a last time, and lets the registry free them. With
  // `last`, every buffer is released to the registry (the session ends).
  void reap(bool last = false);
  // Copies strings, tracks, meta and drop counters into the trace.
  void sync_tables();
  // After a write error: empties every ring without writing and releases the buffers to the
  // registry (the session ends). Returns the number of events (counter samples aside) thrown
  // away, with those of rows not yet written.
  std::uint64_t discard();

  // Events lost to full rings during the session: as last written, or counted afresh.
  std::uint64_t dropped() const { return dropped_; }
  std::uint64_t count_dropped();

 private:
  void on_event(const core::ThreadBuffer& thread, const core::Event& e,
                const core::ArgsRecord* args);
  void write_rows();
  std::uint32_t site_label(const Site* site);
  std::uint32_t name_label(std::uint32_t name_id, std::uint8_t category);
  std::uint32_t step_label();
  std::uint32_t counter_track(const CounterSite* site);
  void use_track(std::uint32_t track);
  void sync_tracks();
  void sync_drops();
  std::map<std::uint32_t, std::uint64_t> drops_by_track();  // this session's, nonzero only

  store::Writer& writer_;
  core::Calibration cal_;
  core::Runtime& rt_;
  std::vector<store::EventRow> rows_;
  std::vector<store::CounterRow> counters_;
  std::unordered_map<const Site*, std::uint32_t> site_labels_;
  std::unordered_map<std::uint64_t, std::uint32_t> name_labels_;
  std::unordered_map<const CounterSite*, std::uint32_t> counter_tracks_;
  std::uint32_t next_label_ = 1;
  std::uint32_t step_label_ = 0;
  std::uint32_t next_string_ = 1;  // first string id not yet in the trace
  std::vector<bool> track_used_;   // thread tracks appear once they have events
  bool tracks_dirty_ = true;
  std::uint64_t tracks_version_ = ~0ull;
  std::map<std::uint32_t, std::string> tracks_written_;  // id -> name as written
  std::uint64_t meta_version_ = ~0ull;
  std::map<std::uint32_t, std::uint64_t> drop_baseline_;
  std::map<std::uint32_t, std::uint64_t> drops_written_;
  std::uint64_t dropped_ = 0;
  bool drops_written_once_ = false;
};

}  // namespace ts::trace::capture
