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
#include <vector>

#include "profiler/io/gzip_stream.hpp"
#include "profiler/io/output_file.hpp"
#include "profiler/store/batch_pipe.hpp"
#include "profiler/store/reader.hpp"
#include "trainscope/meta_keys.hpp"

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
  const bool empty = range.start_ns == range.end_ns && !r.has_events();
  const auto origin = parse_int(r.meta(meta_key::kClockOriginNs));
  if (origin && (empty || *origin <= range.start_ns)) return *origin;
  return range.start_ns;
}

// ns as microseconds with three decimals, exactly (no rounding through a double); "1.5" for
// 1 500 ns, "2" for 2 000.
std::string_view micros_text(std::int64_t ns, char (&buf)[32]) {
  // |ns| as unsigned, so that INT64_MIN does not overflow.
  const bool negative = ns < 0;
  const std::uint64_t mag =
      negative ? std::uint64_t{0} - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  char* p = buf;
  if (negative) *p++ = '-';
  p = std::to_chars(p, buf + sizeof buf, mag / 1000).ptr;
  const auto frac = static_cast<unsigned>(mag % 1000);
  if (frac != 0) {
    *p++ = '.';
    *p++ = static_cast<char>('0' + frac / 100);
    *p++ = static_cast<char>('0' + frac / 10 % 10);
    *p++ = static_cast<char>('0' + frac % 10);
  }
  return std::string_view(buf, static_cast<std::size_t>(p - buf));
}

// Labels whose quoted names the export keeps (ids below it; real traces use small ids).
constexpr std::uint32_t kCachedLabels = 1 << 20;

class Exporter {
 public:
  Exporter(const store::Reader& reader, json::Writer& j, const ChromeAnnotations* annotations)
      : r_(reader), j_(j), annotations_(annotations) {}

  ChromeTraceStats run() {
    stats_.origin_ns = origin_of(r_);
    j_.begin_object().field("displayTimeUnit", "ms").key("otherData").begin_object();
    for (const auto& [key, value] : r_.meta()) j_.field(key, value);
    j_.end_object().key("traceEvents").begin_array();
    metadata();
    events();
    counters();
    annotate();
    // One event per line: a line break before each.
    j_.line_break().end_array().end_object().finish();
    return stats_;
  }

 private:
  static std::int64_t pid_of(const store::Track* t) {
    return t != nullptr && t->kind == trace::TrackKind::device_queue ? kDevicePid : kHostPid;
  }

  void micros(std::string_view key, std::int64_t ns) {
    char buf[32];
    j_.key(key).number_text(micros_text(ns, buf));
  }

  // {"name":NAME,"ph":"M","pid":P[,"tid":T],"args":{KEY:VALUE}}
  template <class Value>
  void metadata_event(std::string_view name, std::int64_t pid, std::int64_t tid, const char* key,
                      const Value& value) {
    j_.line_break().begin_object().field("name", name).field("ph", "M").field("pid", pid);
    if (tid >= 0) j_.field("tid", tid);
    j_.key("args").begin_object().field(key, value).end_object().end_object();
    ++stats_.metadata_events;
  }

  void metadata() {
    bool device = false;
    for (const store::Track& t : r_.tracks()) device |= t.kind == trace::TrackKind::device_queue;
    metadata_event("process_name", kHostPid, -1, "name", "host");
    metadata_event("process_sort_index", kHostPid, -1, "sort_index", std::int64_t{0});
    if (device) {
      const auto name = r_.meta(meta_key::kEngineDevice);
      metadata_event("process_name", kDevicePid, -1, "name",
                     name ? "device: " + *name : std::string("device"));
      metadata_event("process_sort_index", kDevicePid, -1, "sort_index", std::int64_t{1});
    }
    for (const store::Track& t : r_.tracks()) {
      if (t.kind == trace::TrackKind::counter) continue;
      metadata_event("thread_name", pid_of(&t), t.id, "name", t.name);
      metadata_event("thread_sort_index", pid_of(&t), t.id, "sort_index", std::int64_t{t.id});
    }
  }

  void args(const store::Event& e, const store::EventArgs& a) {
    const store::Label& label = r_.label(e.label);
    bool open = false;
    const auto key = [&](std::string_view k) -> json::Writer& {
      if (!open) j_.key("args").begin_object();
      open = true;
      return j_.key(k);
    };
    if (e.step != store::kNull) key("step").integer(e.step);
    if (e.bytes != store::kNull) key("bytes").integer(e.bytes);
    if (a.work_size != store::kNull) key("work_size").integer(a.work_size);
    if (a.correlation != store::kNull) key("correlation").integer(a.correlation);
    if (!label.file.empty())
      key("source").str(label.line != store::kNull ? label.file + ":" + std::to_string(label.line)
                                                   : label.file);
    if (open) j_.end_object();
  }

  // An event's name, quoted and escaped once per label (a numbered step label's each time: its
  // events' names differ by their step).
  std::string_view quoted_name(const store::Event& e) {
    const std::uint32_t label = e.label;
    const store::Label& l = r_.label(label);
    if (label >= kCachedLabels || store::is_numbered_label(l.name, l.category))
      return quoted_spare_ = json::quote(store::full_event_name(l.name, l.category, e.step));
    if (label >= quoted_names_.size()) quoted_names_.resize(label + 1);
    std::string& q = quoted_names_[label];
    if (q.empty()) q = json::quote(l.name);
    return q;
  }

  // The events are read on a thread of their own while this one writes them: reading (SQLite)
  // and writing (JSON) each take about half the time.
  void events() {
    struct Item {
      store::Event e;
      store::EventArgs a;
    };
    store::BatchProducer<Item> reading([&](store::BatchPipe<Item>& pipe) {
      r_.scan_with_args(kMin, kMax, [&](const store::Event& e, const store::EventArgs& a) {
        pipe.push({e, a});
      });
    });
    std::vector<Item> batch;
    while (reading.next(batch))
      for (const Item& item : batch) event(item.e, item.a);
  }

  void event(const store::Event& e, const store::EventArgs& a) {
    const store::Track* t = r_.track(e.track);
    j_.line_break().begin_object().key("name").quoted(quoted_name(e));
    j_.field("cat", trace::category_name(e.category)).field("ph", "X");
    micros("ts", sat_sub(e.start_ns, stats_.origin_ns));
    micros("dur", e.dur_ns);
    j_.field("pid", pid_of(t)).field("tid", std::int64_t{e.track});
    args(e, a);
    j_.end_object();
    ++stats_.complete_events;
    if (a.correlation != store::kNull) flow(e, t, a.correlation);
  }

  // The flow arrow's end at this event: its start on the host (the launch, which comes first in
  // time), its finish on a device queue, bound to the slice that encloses its timestamp.
  void flow(const store::Event& e, const store::Track* t, std::int64_t correlation) {
    const bool device = t != nullptr && t->kind == trace::TrackKind::device_queue;
    j_.line_break().begin_object().field("name", "launch").field("cat", "correlation");
    j_.field("ph", device ? "f" : "s").field("id", correlation);
    if (device) j_.field("bp", "e");
    micros("ts", sat_sub(e.start_ns, stats_.origin_ns));
    j_.field("pid", pid_of(t)).field("tid", std::int64_t{e.track});
    j_.end_object();
    ++stats_.flow_events;
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
      j_.line_break().begin_object().field("name", t.name).field("ph", "C");
      micros("ts", sat_sub(s.ts_ns, stats_.origin_ns));
      j_.field("pid", kHostPid).key("args").begin_object().key("value").real(s.value);
      j_.end_object().end_object();
      ++stats_.counter_events;
    }
    return samples.size();
  }

  // The annotation tracks: threads 1, 2, ... of their own process, after the device's.
  void annotate() {
    if (annotations_ == nullptr || annotations_->tracks.empty()) return;
    metadata_event("process_name", kAnalysisPid, -1, "name", annotations_->process);
    metadata_event("process_sort_index", kAnalysisPid, -1, "sort_index", std::int64_t{2});
    std::int64_t tid = 0;
    for (const auto& [name, slices] : annotations_->tracks) {
      ++tid;
      metadata_event("thread_name", kAnalysisPid, tid, "name", name);
      metadata_event("thread_sort_index", kAnalysisPid, tid, "sort_index", tid);
      for (const ChromeSlice& s : slices) {
        j_.line_break().begin_object().field("name", s.name).field("cat", s.cat).field("ph", "X");
        micros("ts", sat_sub(s.start_ns, stats_.origin_ns));
        micros("dur", s.dur_ns);
        j_.field("pid", kAnalysisPid).field("tid", tid).end_object();
        ++stats_.annotation_events;
      }
    }
  }

  const store::Reader& r_;
  json::Writer& j_;
  const ChromeAnnotations* annotations_;
  ChromeTraceStats stats_;
  std::vector<std::string> quoted_names_;  // by label id, filled as labels are met
  std::string quoted_spare_;               // a name of a label beyond kCachedLabels
};

}  // namespace

ChromeTraceStats write_chrome_trace(const store::Reader& reader, std::ostream& out,
                                    const ChromeAnnotations* annotations) {
  json::Writer j(out);
  return Exporter(reader, j, annotations).run();
}

ChromeTraceStats write_chrome_trace(const store::Reader& reader, const std::string& path,
                                    const ChromeAnnotations* annotations) {
  ChromeTraceStats stats;
  write_output(path, [&](std::ostream& out) {
    if (!gzip_output_name(path)) {
      stats = write_chrome_trace(reader, out, annotations);
      return;
    }
    GzipOstream gz(out);
    stats = write_chrome_trace(reader, gz, annotations);
    gz.finish();
  });
  return stats;
}

}  // namespace ts::io
