#include "profiler/io/chrome_trace.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>

#include "profiler/store/reader.hpp"

namespace ts::io {

namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

std::int64_t sat_sub(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (!__builtin_sub_overflow(a, b, &out)) return out;
  return b > 0 ? kMin : kMax;
}

std::int64_t sat_add(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (!__builtin_add_overflow(a, b, &out)) return out;
  return b > 0 ? kMax : kMin;
}

std::optional<std::int64_t> parse_int(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return v;
}

// The host time written as ts 0: the capture start (clock.origin_ns), or the first event when
// that is missing or later than the first event.
std::int64_t origin_of(const store::Reader& r) {
  const store::TimeRange range = r.time_range();
  const bool empty = range.start_ns == range.end_ns && r.event_count() == 0;
  const auto origin = parse_int(r.meta("clock.origin_ns"));
  if (origin && (empty || *origin <= range.start_ns)) return *origin;
  return range.start_ns;
}

class Exporter {
 public:
  Exporter(const store::Reader& reader, JsonStream& js) : r_(reader), js_(js) {}

  ChromeTraceStats run() {
    stats_.origin_ns = origin_of(r_);
    js_.raw("{\"displayTimeUnit\":\"ms\",\"otherData\":{");
    other_data();
    js_.raw("},\"traceEvents\":[");
    metadata();
    events();
    counters();
    js_.raw("\n]}\n");
    js_.flush();
    return stats_;
  }

 private:
  void other_data() {
    bool first = true;
    for (const auto& [key, value] : r_.meta()) {
      if (!first) js_.raw(',');
      first = false;
      js_.string(key).raw(':').string(value);
    }
  }

  void next_event() {
    js_.raw(first_event_ ? "\n" : ",\n");
    first_event_ = false;
  }

  static std::int64_t pid_of(const store::Track* t) {
    return t != nullptr && t->kind == trace::TrackKind::device_queue ? kDevicePid : kHostPid;
  }

  // {"name":NAME,"ph":"M","pid":P[,"tid":T],"args":{KEY:
  void begin_metadata(std::string_view name, std::int64_t pid, std::int64_t tid, const char* key) {
    next_event();
    js_.raw("{\"name\":").string(name).raw(",\"ph\":\"M\",\"pid\":").integer(pid);
    if (tid >= 0) js_.raw(",\"tid\":").integer(tid);
    js_.raw(",\"args\":{\"").raw(key).raw("\":");
    ++stats_.metadata_events;
  }

  void metadata() {
    bool device = false;
    for (const store::Track& t : r_.tracks()) device |= t.kind == trace::TrackKind::device_queue;
    begin_metadata("process_name", kHostPid, -1, "name");
    js_.string("host").raw("}}");
    begin_metadata("process_sort_index", kHostPid, -1, "sort_index");
    js_.integer(0).raw("}}");
    if (device) {
      const auto name = r_.meta("engine.device");
      begin_metadata("process_name", kDevicePid, -1, "name");
      js_.string(name ? "device: " + *name : std::string("device")).raw("}}");
      begin_metadata("process_sort_index", kDevicePid, -1, "sort_index");
      js_.integer(1).raw("}}");
    }
    for (const store::Track& t : r_.tracks()) {
      if (t.kind == trace::TrackKind::counter) continue;
      begin_metadata("thread_name", pid_of(&t), t.id, "name");
      js_.string(t.name).raw("}}");
      begin_metadata("thread_sort_index", pid_of(&t), t.id, "sort_index");
      js_.integer(t.id).raw("}}");
    }
  }

  void args(const store::Event& e) {
    const store::EventArgs a = r_.args(e);
    const store::Label& label = r_.label(e.label);
    bool first = true;
    const auto key = [&](const char* k) {
      js_.raw(first ? ",\"args\":{\"" : ",\"").raw(k).raw("\":");
      first = false;
    };
    if (e.step != store::kNull) key("step"), js_.integer(e.step);
    if (e.bytes != store::kNull) key("bytes"), js_.integer(e.bytes);
    if (a.work_size != store::kNull) key("work_size"), js_.integer(a.work_size);
    if (a.correlation != store::kNull) key("correlation"), js_.integer(a.correlation);
    if (!label.file.empty()) {
      key("source");
      js_.string(label.line != store::kNull ? label.file + ":" + std::to_string(label.line)
                                            : label.file);
    }
    if (!first) js_.raw('}');
  }

  void events() {
    r_.scan(kMin, kMax, 0, [&](const store::Event& e) {
      const store::Track* t = r_.track(e.track);
      next_event();
      js_.raw("{\"name\":").string(r_.name(e)).raw(",\"cat\":");
      js_.string(trace::category_name(e.category)).raw(",\"ph\":\"X\",\"ts\":");
      js_.micros(sat_sub(e.start_ns, stats_.origin_ns)).raw(",\"dur\":").micros(e.dur_ns);
      js_.raw(",\"pid\":").integer(pid_of(t)).raw(",\"tid\":").integer(e.track);
      args(e);
      js_.raw('}');
      ++stats_.complete_events;
    });
  }

  // Counter samples in time windows that widen while they are sparse and narrow while they
  // are dense, so a track is never loaded whole and a hostile time range costs few queries.
  void counters() {
    for (const store::Track& t : r_.tracks()) {
      if (t.kind != trace::TrackKind::counter) continue;
      counter_window(t, kMin, stats_.origin_ns);
      std::int64_t width = std::int64_t{1} << 24;
      for (std::int64_t from = stats_.origin_ns; from != kMax;) {
        const std::int64_t to = sat_add(from, width);
        const std::size_t n = counter_window(t, from, to);
        from = to;
        if (n < 4096)
          width = width > kMax / 2 ? kMax : width * 2;
        else if (n > 65536)
          width = std::max<std::int64_t>(1, width / 2);
      }
    }
  }

  std::size_t counter_window(const store::Track& t, std::int64_t from, std::int64_t to) {
    if (from >= to) return 0;
    const auto samples = r_.counter(t.id, from, to);
    for (const store::CounterSample& s : samples) {
      if (!std::isfinite(s.value)) continue;
      next_event();
      js_.raw("{\"name\":").string(t.name).raw(",\"ph\":\"C\",\"ts\":");
      js_.micros(sat_sub(s.ts_ns, stats_.origin_ns)).raw(",\"pid\":").integer(kHostPid);
      js_.raw(",\"args\":{\"value\":").real(s.value).raw("}}");
      ++stats_.counter_events;
    }
    return samples.size();
  }

  const store::Reader& r_;
  JsonStream& js_;
  ChromeTraceStats stats_;
  bool first_event_ = true;
};

}  // namespace

ChromeTraceStats write_chrome_trace(const store::Reader& reader, std::ostream& out) {
  JsonStream js(out);
  return Exporter(reader, js).run();
}

ChromeTraceStats write_chrome_trace(const store::Reader& reader, const std::string& path) {
  const std::string partial = path + ".partial";
  ChromeTraceStats stats;
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    if (!out) throw WriteError("cannot create " + partial + ": " + std::strerror(errno));
    try {
      stats = write_chrome_trace(reader, out);
      out.close();
      if (!out) throw WriteError("close failed");
    } catch (const WriteError&) {
      const int err = errno != 0 ? errno : EIO;
      std::remove(partial.c_str());
      throw WriteError("cannot write " + path + ": " + std::strerror(err));
    } catch (...) {
      std::remove(partial.c_str());
      throw;
    }
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(partial.c_str());
    throw WriteError("cannot create " + path + ": " + std::strerror(err));
  }
  return stats;
}

}  // namespace ts::io
