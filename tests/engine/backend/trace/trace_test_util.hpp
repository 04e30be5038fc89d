// Shared by the backend trace tests: record a session into a temporary file, read it back, and
// the checks every backend's timeline must pass.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/backend/backend.hpp"
#include "profiler/store/reader.hpp"
#include "tests/profiler/test_util.hpp"
#include "trainscope/session.hpp"
#include "trainscope/trace.hpp"

namespace ts::test {

// Every device event must lie inside the host events' span. Both ends are host timestamps of
// the same process clock, and the backends clamp device intervals between the enqueue and the
// host seeing completion, so no clock error is tolerated here; 1 us covers the few nanoseconds
// the writer moves an event whose (start, track) key collides (traces/README.md) and TSC -> ns
// rounding.
inline constexpr std::int64_t kSpanToleranceNs = 1000;

// One event with everything the tests look at.
struct TraceEvent {
  ts::store::Event event;
  std::string name;
  std::string track;
  ts::trace::TrackKind kind = ts::trace::TrackKind::thread;
  std::int64_t work_size = ts::store::kNull;
  std::int64_t correlation = ts::store::kNull;

  std::int64_t start() const { return event.start_ns; }
  std::int64_t end() const { return event.end_ns(); }
  ts::trace::Category category() const { return event.category; }
  std::int64_t step() const { return event.step; }
  std::int64_t bytes() const { return event.bytes; }
};

// Starts a session into a fresh temporary file; read() stops it and loads the file.
class TraceRun {
 public:
  explicit TraceRun(const ts::trace::SessionOptions& options = {});
  ~TraceRun();  // stops the session if read() was not called
  TraceRun(const TraceRun&) = delete;
  TraceRun& operator=(const TraceRun&) = delete;

  void read();
  const ts::store::Reader& reader() const { return *reader_; }
  const std::vector<TraceEvent>& events() const { return events_; }
  std::string path() const { return path_; }

  // Events matching a category / also a name / also a track id (0: any track).
  std::vector<TraceEvent> of(ts::trace::Category c, const std::string& name = {},
                             std::uint32_t track = 0) const;
  // Events on one track, by start.
  std::vector<TraceEvent> on_track(std::uint32_t track) const;
  const ts::store::Track* track_named(const std::string& name) const;
  std::string meta(const std::string& key) const;

 private:
  TempDir dir_;
  std::string path_;
  bool stopped_ = false;
  std::unique_ptr<ts::store::Reader> reader_;
  std::vector<TraceEvent> events_;
};

// `steps` training-like steps, step k inside TS_STEP(k): upload A [m,k] and B [k,n] from `ha`,
// `hb`, C [m,n] = relu(A B), download C into `hc` (resized). Five commands a step.
void run_gemm_steps(Backend& backend, int steps, std::int64_t m, std::int64_t k, std::int64_t n,
                    const std::vector<float>& ha, const std::vector<float>& hb,
                    std::vector<float>& hc);

// The events of one in-order queue are ordered and never overlap.
void expect_disjoint(const std::vector<TraceEvent>& queue_events, const std::string& what);
// Every device_queue event lies within [first host event start, last host event end].
void expect_device_inside_host_span(const TraceRun& run);
// Each device event with a correlation id has exactly one `launch` zone with that id, on a
// thread track, carrying the same step and starting no later than the device event.
void expect_correlated_with_launches(const TraceRun& run,
                                     const std::vector<TraceEvent>& device_events);

}  // namespace ts::test
