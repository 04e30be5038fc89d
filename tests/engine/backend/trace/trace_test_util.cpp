#include "tests/engine/backend/trace/trace_test_util.hpp"

#include <algorithm>
#include <limits>
#include <map>

namespace ts::test {

TraceRun::TraceRun(const ts::trace::SessionOptions& options) : path_(dir_.file("run.db")) {
  ts::trace::start(path_, {{"command_line", "test_backend_trace"}}, options);
}

TraceRun::~TraceRun() {
  if (!stopped_) ts::trace::stop();
}

void TraceRun::read() {
  ts::trace::stop();
  stopped_ = true;
  reader_ = std::make_unique<ts::store::Reader>(path_);
  const ts::store::TimeRange range = reader_->time_range();
  for (const ts::store::Event& e : reader_->events(range.start_ns, range.end_ns + 1)) {
    TraceEvent t;
    t.event = e;
    t.name = std::string(reader_->name(e));
    if (const ts::store::Track* track = reader_->track(e.track)) {
      t.track = track->name;
      t.kind = track->kind;
    }
    const ts::store::EventArgs args = reader_->args(e);
    t.work_size = args.work_size;
    t.correlation = args.correlation;
    events_.push_back(std::move(t));
  }
}

std::vector<TraceEvent> TraceRun::of(ts::trace::Category c, const std::string& name,
                                     std::uint32_t track) const {
  std::vector<TraceEvent> out;
  for (const TraceEvent& e : events_)
    if (e.category() == c && (name.empty() || e.name == name) &&
        (track == 0 || e.event.track == track))
      out.push_back(e);
  return out;
}

std::vector<TraceEvent> TraceRun::on_track(std::uint32_t track) const {
  std::vector<TraceEvent> out;
  for (const TraceEvent& e : events_)
    if (e.event.track == track) out.push_back(e);
  std::sort(out.begin(), out.end(),
            [](const TraceEvent& a, const TraceEvent& b) { return a.start() < b.start(); });
  return out;
}

const ts::store::Track* TraceRun::track_named(const std::string& name) const {
  for (const ts::store::Track& t : reader_->tracks())
    if (t.name == name) return &t;
  return nullptr;
}

std::string TraceRun::meta(const std::string& key) const {
  return reader_->meta(key).value_or("");
}

void run_gemm_steps(Backend& backend, int steps, std::int64_t m, std::int64_t k, std::int64_t n,
                    const std::vector<float>& ha, const std::vector<float>& hb,
                    std::vector<float>& hc) {
  const Tensor a = backend.alloc(Shape{m, k}, DType::F32);
  const Tensor b = backend.alloc(Shape{k, n}, DType::F32);
  const Tensor c = backend.alloc(Shape{m, n}, DType::F32);
  hc.assign(static_cast<std::size_t>(m * n), -1.0f);
  for (int step = 0; step < steps; ++step) {
    TS_STEP(step);
    backend.upload(a, ha.data());
    backend.upload(b, hb.data());
    backend.gemm(false, false, m, n, k, 1.0f, a, b, 0.0f, c);
    backend.relu(c, c);
    backend.download(c, hc.data());
  }
}

void expect_disjoint(const std::vector<TraceEvent>& events, const std::string& what) {
  for (std::size_t i = 1; i < events.size(); ++i) {
    EXPECT_LE(events[i - 1].end(), events[i].start())
        << what << ": " << events[i - 1].name << " [" << events[i - 1].start() << ", "
        << events[i - 1].end() << ") overlaps " << events[i].name << " starting at "
        << events[i].start();
    EXPECT_GE(events[i].event.dur_ns, 0) << what;
  }
}

void expect_device_inside_host_span(const TraceRun& run) {
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  std::int64_t last = std::numeric_limits<std::int64_t>::min();
  for (const TraceEvent& e : run.events()) {
    if (e.kind != ts::trace::TrackKind::thread) continue;
    first = std::min(first, e.start());
    last = std::max(last, e.end());
  }
  ASSERT_LT(first, last) << "no host events";
  int device = 0;
  for (const TraceEvent& e : run.events()) {
    if (e.kind != ts::trace::TrackKind::device_queue) continue;
    ++device;
    EXPECT_GE(e.start(), first - kSpanToleranceNs) << e.name << " on " << e.track;
    EXPECT_LE(e.end(), last + kSpanToleranceNs) << e.name << " on " << e.track;
  }
  EXPECT_GT(device, 0);
}

void expect_correlated_with_launches(const TraceRun& run,
                                     const std::vector<TraceEvent>& device_events) {
  std::multimap<std::int64_t, TraceEvent> launches;
  for (const TraceEvent& e : run.of(ts::trace::Category::launch))
    if (e.correlation != ts::store::kNull) launches.emplace(e.correlation, e);
  for (const TraceEvent& d : device_events) {
    ASSERT_NE(d.correlation, ts::store::kNull) << d.name << " has no correlation id";
    const auto [lo, hi] = launches.equal_range(d.correlation);
    ASSERT_EQ(std::distance(lo, hi), 1) << d.name << ": launch zones with its correlation id";
    const TraceEvent& launch = lo->second;
    EXPECT_EQ(launch.kind, ts::trace::TrackKind::thread);
    EXPECT_EQ(launch.step(), d.step()) << d.name;
    EXPECT_LE(launch.start(), d.start()) << d.name << " started before its enqueue";
  }
}

}  // namespace ts::test
