#include "profiler/import/xplane/xplane_mapper.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "profiler/import/common/row.hpp"
#include "profiler/import/common/steps.hpp"
#include "profiler/import/common/text_clean.hpp"
#include "profiler/import/xplane/xplane_rules.hpp"
#include "profiler/import/xplane/xplane_stats.hpp"
#include "profiler/import/xplane/xplane_steps.hpp"

namespace ts::import {

namespace {

using trace::Category;
using trace::TrackKind;

// The analysis takes times within +-2^61 ns of the epoch (1970 +- 73 years), as the JSON import.
constexpr std::int64_t kMaxAbsNs = std::int64_t{1} << 61;
// Line ids below this (Linux's largest pid_max) are OS thread ids.
constexpr std::int64_t kLinuxMaxTid = std::int64_t{1} << 22;

constexpr std::uint32_t bit(Category c) {
  return 1u << static_cast<int>(c);
}

// What a thread does that makes it part of the trainer's step (as the JSON import decides).
constexpr std::uint32_t kTrainerMask =
    bit(Category::step) | bit(Category::input_wait) | bit(Category::launch) | bit(Category::sync) |
    bit(Category::host_compute) | bit(Category::optimizer) | bit(Category::collective);

// floor(a / 1000): picoseconds to nanoseconds, rounding down also before the line's start.
__int128 ps_to_ns(__int128 ps) {
  __int128 q = ps / 1000;
  if (ps % 1000 != 0 && ps < 0) --q;
  return q;
}

// One event metadata of a plane, classified once.
struct MetaInfo {
  const xp::XEventMetadata* meta = nullptr;
  std::string_view name;  // as in the file (the plane owns it)
  std::uint32_t string = 0;
  Category category = Category::other;
  std::uint32_t label = 0;
  bool memory = false;     // MemoryAllocation/MemoryDeallocation
  bool copy = false;       // a device memcpy/memset: its kind and bytes are in its stats
  bool truncated = false;  // its name was cut to kMaxNameBytes
  bool marker = false;     // matches --step-marker
  bool batching = false;   // a tf.data stage making batches
};

struct LineTrack {
  PlaneKind plane = PlaneKind::host_cpu;
  std::string name;
  std::int64_t os_tid = store::kNull;
  std::uint32_t track = 0;
  bool created = false;
  bool worker = false;     // a tf.data thread: never the trainer
  std::uint32_t mask = 0;  // categories written on it
};

class XPlaneMapper {
 public:
  XPlaneMapper(const XSpaceFile& f, const XPlaneFileContext& ctx, TraceSink& sink)
      : f_(f), ctx_(ctx), sink_(sink) {}

  XPlaneSummary run() {
    read_time_base();
    for (const PlaneSlice& s : f_.planes()) map_plane(s);
    resolve_steps();
    write();
    return std::move(sum_);
  }

 private:
  // Task Environment's profile_start_time (the first plane's that has one): what TF 2.x's
  // relative line timestamps start from. Every such plane is parsed: a corrupt one is refused.
  void read_time_base() {
    for (const PlaneSlice& s : f_.planes()) {
      if (plane_kind(s.name) != PlaneKind::task_environment) continue;
      const ParsedPlane p = f_.parse(s);
      const PlaneTimes t = StatNames(*p.plane).read_plane(*p.plane);
      if (!base_ && t.start_ns && *t.start_ns > 0 && *t.start_ns <= kMaxAbsNs) base_ = t.start_ns;
    }
    sum_.profile_start_ns = base_;
    sum_.aligned = base_.has_value();
  }

  void map_plane(const PlaneSlice& s) {
    const PlaneKind kind = plane_kind(s.name);
    if (kind == PlaneKind::task_environment) return;
    // The plane without its lines, then each line parsed, mapped and freed in turn.
    const PlaneParts parts = f_.parse_parts(s);
    const xp::XPlane& plane = *parts.header.plane;
    const auto each_line = [&](const auto& fn) {
      for (const xp::XLine& line : plane.lines()) fn(line);
      for (const auto& where : parts.lines) {
        google::protobuf::Arena arena;
        fn(*f_.parse_line(s, where, arena));
      }
    };
    if (kind == PlaneKind::unsupported) {
      std::uint64_t n = 0;
      each_line(
          [&](const xp::XLine& line) { n += static_cast<std::uint64_t>(line.events_size()); });
      sum_.events_read += n;
      sum_.skipped.add(Skip::unsupported_plane, n);
      return;
    }
    if (kind == PlaneKind::gpu &&
        std::find(sum_.devices.begin(), sum_.devices.end(), s.name) == sum_.devices.end())
      sum_.devices.push_back(clean_text(s.name));
    const StatNames stats(plane);
    std::unordered_map<std::int64_t, MetaInfo> infos;
    each_line([&](const xp::XLine& line) { map_line(kind, plane, line, stats, infos); });
  }

  const MetaInfo& info(PlaneKind kind, const xp::XPlane& plane, std::int64_t id,
                       std::unordered_map<std::int64_t, MetaInfo>& infos) {
    auto [it, fresh] = infos.try_emplace(id);
    MetaInfo& mi = it->second;
    if (!fresh) return mi;
    std::string_view display, stored;
    const auto m = plane.event_metadata().find(id);
    if (m != plane.event_metadata().end()) {
      mi.meta = &m->second;
      mi.name = mi.meta->name();
      display = mi.meta->display_name();
      stored = mi.name.empty() ? std::string_view("(no name)") : mi.name;
    } else {
      stored = "(unknown event metadata)";
    }
    switch (kind) {
      case PlaneKind::host_cpu:
        mi.category = host_category(mi.name, display);
        if (const std::string_view k = iterator_kind(mi.name); !k.empty()) {
          stored = k;
          mi.batching = is_batching_kind(k);
        }
        mi.memory = is_memory_event(mi.name);
        mi.marker = ctx_.step_marker != nullptr &&
                    std::regex_search(mi.name.begin(), mi.name.end(), *ctx_.step_marker);
        break;
      case PlaneKind::driver_api:
        mi.category = driver_category(mi.name);
        break;
      default: {
        mi.category = device_class(mi.name, {}, {}).category;
        const std::string_view n = mi.name;
        const auto starts = [&](std::string_view p) {
          if (n.size() < p.size()) return false;
          for (std::size_t i = 0; i < p.size(); ++i)
            if ((n[i] | 0x20) != p[i]) return false;
          return true;
        };
        mi.copy = starts("memcpy") || starts("memset");
        break;
      }
    }
    if (stored.size() > kMaxNameBytes) {
      stored = cut_at_boundary(stored, kMaxNameBytes);
      mi.truncated = true;
    }
    mi.string = sink_.string_id(stored);
    mi.label = sink_.label_id(mi.string, mi.category);
    return mi;
  }

  LineTrack& line_track(PlaneKind kind, const xp::XPlane& plane, const xp::XLine& line) {
    const auto key = std::make_tuple(plane.name(), line.id());
    auto [it, fresh] = line_index_.try_emplace(key, lines_.size());
    if (!fresh) return lines_[it->second];
    LineTrack lt;
    lt.plane = kind;
    const std::string& line_name = line.display_name().empty() ? line.name() : line.display_name();
    switch (kind) {
      case PlaneKind::host_cpu:
        lt.name = line_name.empty() ? "thread " + std::to_string(line.id()) : line_name;
        lt.worker = is_tf_data_worker(line_name);
        break;
      case PlaneKind::driver_api:
        lt.name = (plane.name() == "/host:ROCTRACER" ? "ROCTRACER " : "CUPTI ") +
                  (line_name.empty() ? "thread " + std::to_string(line.id()) : line_name);
        break;
      default:
        lt.name = "GPU " + std::to_string(gpu_ordinal(plane.name()).value_or(0)) + " " +
                  (line_name.empty() ? "stream " + std::to_string(line.id()) : line_name);
        break;
    }
    if (kind != PlaneKind::gpu && line.id() > 0 && line.id() < kLinuxMaxTid) lt.os_tid = line.id();
    lines_.push_back(std::move(lt));
    return lines_.back();
  }

  // The track of a line, created with its first row; 0 beyond the trace's 65 535 tracks.
  std::uint32_t track_of(LineTrack& lt) {
    if (!lt.created) {
      lt.created = true;
      lt.track = sink_.add_track(
          lt.name, lt.plane == PlaneKind::gpu ? TrackKind::device_queue : TrackKind::thread,
          lt.os_tid, static_cast<std::int64_t>(ctx_.process));
      if (lt.track != 0) {
        if (track_end_.size() <= lt.track) track_end_.resize(lt.track + 1, kNone);
        if (track_line_.size() <= lt.track) track_line_.resize(lt.track + 1, 0);
        track_line_[lt.track] = static_cast<std::size_t>(&lt - lines_.data());
      }
    }
    return lt.track;
  }

  void map_line(PlaneKind kind, const xp::XPlane& plane, const xp::XLine& line,
                const StatNames& stats, std::unordered_map<std::int64_t, MetaInfo>& infos) {
    const auto n = static_cast<std::uint64_t>(line.events_size());
    sum_.events_read += n;
    if (kind == PlaneKind::gpu) {
      const std::string& line_name =
          line.display_name().empty() ? line.name() : line.display_name();
      switch (device_line(line_name)) {
        case DeviceLine::overhead:
          sum_.skipped.add(Skip::cupti_overhead, n);
          return;
        case DeviceLine::derived:
          sum_.skipped.add(Skip::derived_line, n);
          return;
        case DeviceLine::stream:
          break;
      }
    }
    __int128 line_ns = line.timestamp_ns();
    if (base_ && line.timestamp_ns() < *base_ / 2) line_ns += *base_;
    const std::size_t line_index =
        static_cast<std::size_t>(&line_track(kind, plane, line) - lines_.data());
    const std::size_t chunk = chunks_.size();
    chunks_.emplace_back();
    chunk_device_.push_back(kind == PlaneKind::gpu);
    std::vector<Row>& rows = chunks_.back();
    rows.reserve(line.events_size());
    for (const xp::XEvent& e : line.events()) {
      const MetaInfo& mi = info(kind, plane, e.metadata_id(), infos);
      if (e.data_case() == xp::XEvent::kNumOccurrences) {
        sum_.skipped.add(Skip::missing_timestamp);  // an aggregate: no time of its own
        continue;
      }
      if (e.duration_ps() < 0) {
        sum_.skipped.add(Skip::negative_duration);
        continue;
      }
      const __int128 offset = e.offset_ps();
      const __int128 start = line_ns + ps_to_ns(offset);
      const __int128 end = line_ns + ps_to_ns(offset + e.duration_ps());
      if (start < -kMaxAbsNs || start > kMaxAbsNs || end - start > kMaxAbsNs) {
        sum_.skipped.add(Skip::invalid_timestamp);
        continue;
      }
      const EventStats st = stats.read(e, mi.meta);
      if (e.duration_ps() == 0) {
        if (kind == PlaneKind::host_cpu && mi.memory && st.bytes_allocated)
          add_counter(st.allocator, static_cast<std::int64_t>(start), *st.bytes_allocated);
        else
          sum_.skipped.add(Skip::instant_event);
        continue;
      }
      LineTrack& lt = lines_[line_index];
      const std::uint32_t track = track_of(lt);
      if (track == 0) {
        sum_.skipped.add(Skip::too_many_tracks);
        continue;
      }
      if (mi.truncated) sum_.skipped.add(Skip::name_truncated);
      Category category = mi.category;
      std::int64_t bytes = store::kNull;
      if (kind == PlaneKind::host_cpu && st.tf_function_call && category != Category::input_wait)
        category = Category::other;  // a tf.function call: it contains the function's run
      if (kind == PlaneKind::gpu &&
          (mi.copy || !st.memcpy_details.empty() || !st.memset_details.empty())) {
        const DeviceClass dc = device_class(mi.name, st.memcpy_details, st.memset_details);
        category = dc.category;
        if (dc.bytes) bytes = *dc.bytes;
      }
      Row r;
      r.start_ns = static_cast<std::int64_t>(start);
      r.dur_ns = static_cast<std::int64_t>(end - start);
      r.bytes = bytes;
      r.correlation = st.correlation.value_or(store::kNull);
      r.track = track;
      r.label = category == mi.category ? mi.label : sink_.label_id(mi.string, category);
      lt.mask |= bit(category);
      track_end_[track] = std::max(track_end_[track], r.start_ns + r.dur_ns);
      if (kind == PlaneKind::host_cpu) {
        if (mi.batching && st.batch_size) stage_batches_.insert(*st.batch_size);
        collect_step_candidates(mi, st, r, chunk, rows.size());
        if (category == Category::input_wait)
          get_next_.push_back({r.start_ns, r.start_ns + r.dur_ns, track, 0, -1});
      }
      if (kind == PlaneKind::driver_api && st.correlation)
        driver_corr_.emplace_back(*st.correlation, r.start_ns);
      rows.push_back(r);
    }
  }

  void collect_step_candidates(const MetaInfo& mi, const EventStats& st, const Row& r,
                               std::size_t chunk, std::size_t row) {
    const bool root = st.root && *st.root != 0 && !is_implicit_root(mi.name);
    const bool profiled = mi.name == "Profiled batch";
    if (!root && mi.name != "TraceContext" && !profiled && !mi.marker) return;
    MarkerEvent m{r.start_ns, r.start_ns + r.dur_ns, r.track,     chunk,
                  row,        std::string(mi.name),  st.step_num, st.epoch_num};
    if (m.name.empty()) m.name = "(no name)";
    if (m.name.size() > kMaxNameBytes) m.name = std::string(cut_at_boundary(m.name, kMaxNameBytes));
    if (mi.marker) regex_.push_back(m);
    if (st.batch_size && *st.batch_size > 0) marker_batches_.insert(*st.batch_size);
    if (root || mi.name == "TraceContext")
      explicit_.push_back(std::move(m));
    else if (profiled)
      profiled_.push_back(std::move(m));
  }

  void add_counter(std::string_view allocator, std::int64_t ts, std::int64_t value) {
    const std::string key(allocator);
    auto [it, fresh] = counter_tracks_.try_emplace(key, 0);
    if (fresh)
      it->second = sink_.add_track((key.empty() ? std::string() : key + " ") + "memory allocated",
                                   TrackKind::counter, store::kNull,
                                   static_cast<std::int64_t>(ctx_.process));
    if (it->second == 0) {
      sum_.skipped.add(Skip::too_many_tracks);
      return;
    }
    counters_.push_back({it->second, ts, static_cast<double>(value)});
  }

  void resolve_steps() {
    StepPlan plan =
        find_xplane_steps(ctx_.step_marker_text, std::move(regex_), std::move(explicit_),
                          std::move(profiled_), std::move(get_next_), track_end_);
    sum_.steps_source = plan.source;
    sum_.steps = static_cast<std::int64_t>(plan.spans.size());
    if (marker_batches_.size() == 1)
      sum_.batch = *marker_batches_.begin();
    else if (marker_batches_.empty() && stage_batches_.size() == 1 && *stage_batches_.begin() > 0)
      sum_.batch = *stage_batches_.begin();
    const StepIndex index(plan.spans);
    // A device row's step is its driver call's (same correlation id), else its own start's.
    std::unordered_map<std::int64_t, std::int64_t> corr_step;
    for (const auto& [corr, start] : driver_corr_) corr_step.emplace(corr, index.step_at(start));
    for (std::size_t c = 0; c < chunks_.size(); ++c)
      for (Row& r : chunks_[c]) {
        if (chunk_device_[c] && r.correlation != store::kNull) {
          const auto it = corr_step.find(r.correlation);
          if (it != corr_step.end()) {
            r.step = it->second == kNone ? store::kNull : it->second;
            continue;
          }
        }
        const std::int64_t s = index.step_at(r.start_ns);
        r.step = s == kNone ? store::kNull : s;
      }
    // The markers become the step events; the cadence adds its own.
    for (const StepSpan& span : plan.spans) {
      if (plan.cadence || span.event < 0) continue;
      const MarkerEvent& m = plan.markers[static_cast<std::size_t>(span.event)];
      Row& r = chunks_[m.chunk][m.row];
      r.label = sink_.label_id(sink_.string_id(m.name), Category::step);
      r.step = span.step;
      lines_[track_line_[r.track]].mask |= bit(Category::step);
    }
    if (plan.cadence) {
      const std::uint32_t label =
          sink_.label_id(sink_.string_id("step (IteratorGetNext cadence)"), Category::step);
      chunks_.emplace_back();
      chunk_device_.push_back(false);
      for (const StepSpan& s : plan.spans) {
        chunks_.back().push_back(
            {s.start, s.end - s.start, s.step, store::kNull, store::kNull, s.thread, label});
        lines_[track_line_[s.thread]].mask |= bit(Category::step);
      }
    }
    if (plan.spans.empty()) return;
    for (const LineTrack& lt : lines_)
      if (lt.created && lt.track != 0 && lt.plane != PlaneKind::gpu && !lt.worker &&
          (lt.mask & kTrainerMask) != 0)
        sum_.trainer_tracks.push_back(lt.track);
  }

  void write() {
    for (std::vector<Row>& c : chunks_) std::sort(c.begin(), c.end(), RowLess{});
    const WriteResult w = sink_.write_events(chunks_);
    sum_.skipped.add(Skip::duplicate, w.duplicates);
    sum_.events_written += w.written;
    sum_.first_start = w.first_start == store::kNull ? kNone : w.first_start;
    sum_.events_written += sink_.write_counters(counters_);
    sink_.add_process(ctx_.process, ctx_.host, ctx_.rank.value_or(store::kNull), store::kNull,
                      ctx_.host);
  }

  const XSpaceFile& f_;
  const XPlaneFileContext& ctx_;
  TraceSink& sink_;
  std::optional<std::int64_t> base_;
  std::map<std::tuple<std::string, std::int64_t>, std::size_t> line_index_;
  std::vector<LineTrack> lines_;
  std::vector<std::size_t> track_line_;   // by track id: the index into lines_
  std::vector<std::int64_t> track_end_;   // by track id: the end of its last event
  std::vector<std::vector<Row>> chunks_;  // one per line (and one for cadence steps)
  std::vector<bool> chunk_device_;
  std::vector<MarkerEvent> regex_, explicit_, profiled_;
  std::vector<StepCandidate> get_next_;
  std::vector<std::pair<std::int64_t, std::int64_t>> driver_corr_;  // (correlation, start)
  std::set<std::int64_t> marker_batches_, stage_batches_;
  std::map<std::string, std::uint32_t> counter_tracks_;
  std::vector<store::CounterRow> counters_;
  XPlaneSummary sum_;
};

}  // namespace

XPlaneSummary map_xplane_file(const XSpaceFile& file, const XPlaneFileContext& context,
                              TraceSink& sink) {
  return XPlaneMapper(file, context, sink).run();
}

}  // namespace ts::import
