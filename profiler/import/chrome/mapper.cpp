#include "profiler/import/chrome/mapper.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <thread>

#include "profiler/import/chrome/flat_map.hpp"
#include "profiler/import/common/row.hpp"
#include "profiler/import/common/steps.hpp"
#include "profiler/store/numbered_label.hpp"

namespace ts::import {

namespace {

using trace::Category;
using trace::TrackKind;

// Epoch nanoseconds today are ~1.8e18, past 2^60; the analysis takes times up to 2^61 (73
// years from 1970: 2043), and so does the import.
constexpr std::int64_t kMaxAbsNs = std::int64_t{1} << 61;
constexpr int kSides = 3;  // host, device, device_sync

// Threads whose events make up the trainer's step: what the analysis counts on its threads.
constexpr std::uint32_t kTrainerMask =
    (1u << static_cast<int>(Category::step)) | (1u << static_cast<int>(Category::input_wait)) |
    (1u << static_cast<int>(Category::launch)) | (1u << static_cast<int>(Category::sync)) |
    (1u << static_cast<int>(Category::host_compute)) |
    (1u << static_cast<int>(Category::optimizer)) | (1u << static_cast<int>(Category::collective));

struct LabelInfo {
  Category category = Category::other;
  std::uint32_t label = 0;   // global label id
  std::uint32_t string = 0;  // global string id of the name
  std::int64_t profiler_step = kNone;
  bool dataloader = false;
  bool marker = false;  // matches --step-marker
};

std::string ident_text(const Interner& strings, const Ident& i) {
  return i.str != 0 ? std::string(strings.text(i.str)) : std::to_string(i.num);
}

std::string steps_text(std::size_t n) {
  return std::to_string(n) + (n == 1 ? " step" : " steps");
}

std::string base_name(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

class FileMapper {
 public:
  FileMapper(ParsedFile& f, const FileContext& ctx, const MapOptions& opt, TraceSink& sink)
      : f_(f), ctx_(ctx), opt_(opt), sink_(sink), labels_(1024) {
    base_ = f.base_time_ns.value_or(0);
    rules_.profiler_steps = opt.step_marker == nullptr;
  }

  FileSummary run() {
    classify_cats_and_format();
    classify_threads();
    pair_begin_end();
    first_pass();
    resolve_steps();
    assign_tracks();
    std::vector<std::vector<Row>> chunks = convert_and_sort();
    const WriteResult w = sink_.write_events(chunks);
    sum_.skipped.add(Skip::duplicate, w.duplicates);
    sum_.events_written += w.written;
    sum_.first_start = w.first_start;
    write_counters();
    write_process();
    finish_summary();
    return std::move(sum_);
  }

 private:
  CatClass cat_class(std::uint32_t cat) const { return cat_classes_[cat]; }

  void classify_cats_and_format() {
    cat_classes_.assign(f_.strings.size(), CatClass::unknown);
    std::vector<bool> seen(f_.strings.size(), false);
    f_.events.for_each([&](const RawEvent& e) { seen[e.cat] = true; });
    bool kineto_cats = false;
    for (std::uint32_t id = 0; id < seen.size(); ++id)
      if (seen[id]) {
        cat_classes_[id] = classify_cat(f_.strings.text(id));
        kineto_cats = kineto_cats || is_kineto(cat_classes_[id]);
      }
    bool legacy_pids = false;
    for (const ThreadKey& t : f_.threads)
      if (t.pid.str != 0) {
        const std::string_view p = f_.strings.text(t.pid.str);
        legacy_pids = legacy_pids || p == "CPU functions" || p == "CUDA functions";
      }
    if (f_.object_format)
      rules_.format = f_.kineto_keys || kineto_cats ? TraceFormat::kineto : TraceFormat::chrome;
    else
      rules_.format = legacy_pids || kineto_cats ? TraceFormat::legacy_array : TraceFormat::chrome;
  }

  // Which pids are devices: Kineto labels them "GPU n"; XProf names them "/device:GPU:0"; the
  // legacy profiler's kernels sit under "CUDA functions".
  void classify_threads() {
    std::vector<std::pair<Ident, bool>> gpu_pids;
    const auto mark = [&](const Ident& pid, bool gpu) { gpu_pids.emplace_back(pid, gpu); };
    for (const auto& [pid, labels] : f_.process_labels)
      mark(pid, labels.find("GPU") != std::string::npos);
    for (const auto& [pid, name] : f_.process_names)
      if (name.starts_with("/device:GPU") || name.starts_with("/device:TPU")) mark(pid, true);
    thread_gpu_.assign(f_.threads.size(), false);
    for (std::size_t t = 0; t < f_.threads.size(); ++t) {
      const Ident& pid = f_.threads[t].pid;
      for (const auto& [p, gpu] : gpu_pids)
        if (p == pid) thread_gpu_[t] = gpu;
      if (pid.str != 0 && f_.strings.text(pid.str) == "CUDA functions") thread_gpu_[t] = true;
    }
    // Kineto may name a thread twice, once generically after the process ("thread 7
    // (python)") and once after what it is ("thread 7 (pt_gloo_runloop)"): the specific wins.
    thread_names_.assign(f_.threads.size(), {});
    for (auto& [thread, name] : f_.thread_names) {
      if (name.empty()) continue;
      const Ident& pid = f_.threads[thread].pid;
      bool generic = false;
      for (const auto& [p, process_name] : f_.process_names)
        if (p == pid && !process_name.empty() && name.ends_with("(" + process_name + ")"))
          generic = true;
      if (!generic || thread_names_[thread].empty()) thread_names_[thread] = name;
    }
  }

  // B/E pairs become X events (in file order, per thread, last opened first closed).
  void pair_begin_end() {
    bool any = false;
    f_.events.for_each([&](const RawEvent& e) { any = any || e.ph == 'B' || e.ph == 'E'; });
    if (!any) return;
    std::vector<std::vector<RawEvent*>> open(f_.threads.size());
    f_.events.for_each([&](RawEvent& e) {
      if (e.ph == 'B') {
        open[e.thread].push_back(&e);
      } else if (e.ph == 'E') {
        e.ph = 0;
        auto& stack = open[e.thread];
        if (stack.empty()) {
          sum_.skipped.add(Skip::unpaired_end);
          return;
        }
        RawEvent& b = *stack.back();
        stack.pop_back();
        if (e.ts < b.ts || __builtin_sub_overflow(e.ts, b.ts, &b.dur)) {
          sum_.skipped.add(Skip::negative_duration);
          b.ph = 0;
          return;
        }
        b.ph = 'X';
      }
    });
    for (auto& stack : open)
      for (RawEvent* b : stack) {
        b->ph = 0;
        sum_.skipped.add(Skip::unclosed_begin);
      }
  }

  static std::uint64_t label_key(std::uint32_t name, CatClass c, Side side, CopyKind kind) {
    return (std::uint64_t{name} << 32) | (std::uint64_t(c) << 8) | (std::uint64_t(side) << 4) |
           std::uint64_t(kind);
  }

  // What the events of one name, category class, side and copy kind become. A ProfilerStep#N's
  // is not kept per name (a trace can hold millions of them): every one shares the numbered
  // label "ProfilerStep#" and the event's step holds N (store/numbered_label.hpp).
  LabelInfo info(std::uint32_t name, CatClass c, Side side, CopyKind kind) {
    const std::uint64_t key = label_key(name, c, side, kind);
    if (const std::uint32_t* i = labels_.find(key)) return infos_[*i];
    const std::string_view text = f_.strings.text(name);
    LabelInfo li;
    li.category = category_of(text, c, side, kind, rules_);
    if (side == Side::host && li.category == Category::step && profiler_step_number(text)) {
      if (numbered_step_.label == 0) {
        numbered_step_.category = Category::step;
        numbered_step_.string = sink_.string_id(store::kNumberedStepName);
        numbered_step_.label = sink_.label_id(numbered_step_.string, Category::step);
      }
      return numbered_step(name);
    }
    li.string = sink_.string_id(text.empty() ? std::string_view("(no name)") : text);
    li.label = sink_.label_id(li.string, li.category);
    if (side == Side::host) {
      li.dataloader = li.category == Category::input_wait && is_dataloader(text);
      li.marker = opt_.step_marker != nullptr &&
                  std::regex_search(text.begin(), text.end(), *opt_.step_marker);
    }
    labels_.set(key, static_cast<std::uint32_t>(infos_.size()));
    infos_.push_back(li);
    return li;
  }

  // The label info of an event info() has seen (safe on several threads at once).
  LabelInfo seen_info(std::uint32_t name, CatClass c, Side side, CopyKind kind) const {
    const std::uint32_t* i = labels_.find(label_key(name, c, side, kind));
    return i != nullptr ? infos_[*i] : numbered_step(name);
  }

  LabelInfo numbered_step(std::uint32_t name) const {
    LabelInfo li = numbered_step_;
    li.profiler_step = Interner::is_numbered(name)
                           ? static_cast<std::int64_t>(name & ~Interner::kNumbered)
                           : profiler_step_number(f_.strings.text(name)).value_or(kNone);
    return li;
  }

  Side side_of_event(const RawEvent& e) const {
    return side_of(cat_class(e.cat), thread_gpu_[e.thread], e.device_args != 0);
  }

  // Classifies every event, makes its start absolute, and collects what the steps need.
  void first_pass() {
    slot_mask_.assign(f_.threads.size() * kSides, 0);
    thread_events_.assign(f_.threads.size(), 0);
    thread_end_.assign(f_.threads.size(), kNone);
    std::int64_t index = -1;
    f_.events.for_each([&](RawEvent& e) {
      ++index;
      if (e.ph != 'X') return;
      std::int64_t start = 0, end = 0;
      if (__builtin_add_overflow(e.ts, base_, &start) || start < -kMaxAbsNs || start > kMaxAbsNs ||
          e.dur > kMaxAbsNs) {
        sum_.skipped.add(Skip::invalid_timestamp);
        e.ph = 0;
        return;
      }
      e.ts = start;
      end = start + e.dur;
      const CatClass c = cat_class(e.cat);
      const Side side = side_of_event(e);
      if (side == Side::drop) {
        sum_.skipped.add(drop_reason(c));
        e.ph = 0;
        return;
      }
      const LabelInfo li = info(e.name, c, side, e.copy_kind);
      slot_mask_[e.thread * kSides + static_cast<int>(side)] |= 1u << static_cast<int>(li.category);
      if (side != Side::host) return;
      ++thread_events_[e.thread];
      thread_end_[e.thread] = std::max(thread_end_[e.thread], end);
      const StepCandidate cand{start, end, e.thread, e.name, index};
      if (li.profiler_step != kNone)
        profiler_spans_.push_back({start, end, li.profiler_step, e.thread, index});
      if (li.dataloader) dataloader_.push_back(cand);
      if (li.marker) markers_.push_back(cand);
      if (c == CatClass::runtime && e.correlation != kNone)
        runtime_corr_.emplace_back(e.correlation, start);
    });
  }

  std::uint32_t busiest_thread(const std::vector<StepCandidate>* among) const {
    std::vector<std::uint64_t> n(f_.threads.size(), 0);
    if (among != nullptr) {
      for (const StepCandidate& c : *among) ++n[c.thread];
    } else {
      n = thread_events_;
    }
    return static_cast<std::uint32_t>(std::max_element(n.begin(), n.end()) - n.begin());
  }

  // (c): the annotations of the busiest host thread that could repeat once per step.
  std::vector<StepCandidate> annotations_of(std::uint32_t thread) {
    std::vector<StepCandidate> out;
    std::int64_t index = -1;
    f_.events.for_each([&](const RawEvent& e) {
      ++index;
      if (e.ph != 'X' || e.thread != thread) return;
      const CatClass c = cat_class(e.cat);
      const std::string_view name = f_.strings.text(e.name);
      bool annotation = false;
      switch (rules_.format) {
        case TraceFormat::kineto:
          annotation = c == CatClass::user_annotation;
          break;
        case TraceFormat::legacy_array:  // no cats: skip the ops
          annotation = name.find("::") == std::string_view::npos;
          break;
        case TraceFormat::chrome:
          annotation = side_of_event(e) == Side::host;
          break;
      }
      if (annotation && !is_dataloader(name))
        out.push_back({e.ts, e.ts + e.dur, e.thread, e.name, index});
    });
    return out;
  }

  void resolve_steps() {
    std::vector<StepSpan> spans;
    std::string& source = sum_.steps_source;
    bool marked = false;
    if (opt_.step_marker != nullptr) {
      marked = true;
      spans = steps_from_marker(std::move(markers_));
      source = "--step-marker '" + opt_.step_marker_text + "': " + steps_text(spans.size()) +
               ", the outermost host events whose name matches";
    } else if (!profiler_spans_.empty()) {
      spans = std::move(profiler_spans_);
      std::int64_t lo = spans.front().step, hi = lo;
      for (const StepSpan& s : spans) {
        lo = std::min(lo, s.step);
        hi = std::max(hi, s.step);
      }
      source =
          "ProfilerStep#N markers (torch.profiler with a schedule): " + steps_text(spans.size()) +
          ", #" + std::to_string(lo) + "..#" + std::to_string(hi);
    } else if (!dataloader_.empty()) {
      const std::uint32_t t = busiest_thread(&dataloader_);
      std::vector<StepCandidate> calls;
      for (const StepCandidate& c : dataloader_)
        if (c.thread == t) calls.push_back(c);
      spans = steps_from_dataloader(std::move(calls), thread_end_[t]);
      source =
          "inferred: one step per DataLoader __next__ call, from its start to the next one's (" +
          steps_text(spans.size()) + "; no ProfilerStep markers)";
      const std::uint32_t label =
          sink_.label_id(sink_.string_id("step (DataLoader cadence)"), Category::step);
      for (const StepSpan& s : spans)
        synthetic_.push_back(
            {s.start, s.end - s.start, s.step, store::kNull, store::kNull, s.thread, label});
    } else if (!thread_events_.empty() &&
               *std::max_element(thread_events_.begin(), thread_events_.end()) > 0) {
      std::uint32_t name = 0;
      spans = steps_from_repeating(annotations_of(busiest_thread(nullptr)), name);
      marked = true;
      if (!spans.empty())
        source = "inferred: one step per top-level '" + std::string(f_.strings.text(name)) +
                 "' annotation (" + steps_text(spans.size()) +
                 "; no ProfilerStep markers or DataLoader calls)";
    }
    if (spans.empty() && opt_.step_marker == nullptr)
      source =
          "none: no ProfilerStep markers, DataLoader calls or repeating top-level annotation "
          "(--step-marker REGEX names one)";
    sum_.steps = static_cast<std::int64_t>(spans.size());
    for (const StepSpan& s : spans) step_threads_.push_back(s.thread);
    // Under (a) and (c) the marking events themselves become the step events; ProfilerStep
    // events already are, and (b) adds its own.
    if (marked)
      for (const StepSpan& s : spans)
        if (s.event >= 0) designated_.emplace_back(s.event, s.step);
    std::sort(designated_.begin(), designated_.end());
    step_index_ = StepIndex(std::move(spans));
    // A device event's step is its launch's (by correlation id), else its own start's.
    for (auto& [corr, start] : runtime_corr_) start = step_index_.step_at(start);
    corr_step_ = DenseIdMap<std::int64_t>(runtime_corr_);  // (correlation, step) now
    runtime_corr_ = {};
  }

  void assign_tracks() {
    const std::size_t n = f_.threads.size();
    slot_track_.assign(n * kSides, 0);
    const auto proc = static_cast<std::int64_t>(ctx_.process);
    std::vector<std::uint32_t> order(n);
    for (std::uint32_t t = 0; t < n; ++t) order[t] = t;
    // Host threads: by pid, the main thread (tid == pid) first, then by tid.
    const auto key = [&](std::uint32_t t) {
      const ThreadKey& k = f_.threads[t];
      return std::make_tuple(k.pid.str, k.pid.num, !(k.tid == k.pid), k.tid.str, k.tid.num);
    };
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
    const auto add = [&](std::uint32_t t, int side, const std::string& name, TrackKind kind,
                         std::int64_t os_tid) {
      const std::uint32_t id = sink_.add_track(name, kind, os_tid, proc);
      slot_track_[t * kSides + side] = id;
      if (id != 0 && side == 0 && !step_threads_.empty() &&
          (slot_mask_[t * kSides] & kTrainerMask) != 0)
        sum_.trainer_tracks.push_back(id);
    };
    for (const std::uint32_t t : order) {
      if (slot_mask_[t * kSides] == 0) continue;
      const ThreadKey& k = f_.threads[t];
      std::string name = thread_names_[t];
      if (name.empty())
        name = "pid " + ident_text(f_.strings, k.pid) + " tid " + ident_text(f_.strings, k.tid);
      add(t, 0, name, TrackKind::thread, k.tid.str == 0 ? k.tid.num : store::kNull);
    }
    for (const std::uint32_t t : order) {
      if (slot_mask_[t * kSides + 1] == 0) continue;
      const ThreadKey& k = f_.threads[t];
      const std::string name =
          k.pid.str == 0
              ? "GPU " + std::to_string(k.pid.num) + " stream " + ident_text(f_.strings, k.tid)
              : ident_text(f_.strings, k.pid) + " " + ident_text(f_.strings, k.tid);
      add(t, 1, name, TrackKind::device_queue, store::kNull);
    }
    // cuda_sync activities: one "GPU n sync" track per device, whatever their tid.
    std::map<std::string, std::uint32_t> sync_tracks;
    for (const std::uint32_t t : order) {
      if (slot_mask_[t * kSides + 2] == 0) continue;
      const Ident& pid = f_.threads[t].pid;
      const std::string name = (pid.str == 0 ? "GPU " : "") + ident_text(f_.strings, pid) + " sync";
      auto [it, fresh] = sync_tracks.try_emplace(name, 0);
      if (fresh) it->second = sink_.add_track(name, TrackKind::thread, store::kNull, proc);
      slot_track_[t * kSides + 2] = it->second;
    }
    step_threads_ = {};
  }

  // Pass 2: rows, chunk by chunk on several threads, each chunk sorted; parsed chunks are freed.
  std::vector<std::vector<Row>> convert_and_sort() {
    auto& raw = f_.events.chunks();
    std::vector<std::int64_t> first_index(raw.size(), 0);
    for (std::size_t k = 1; k < raw.size(); ++k)
      first_index[k] = first_index[k - 1] + static_cast<std::int64_t>(raw[k - 1].size());
    // Labels of the events that become steps, made before the threads start.
    std::vector<std::uint32_t> step_labels(designated_.size());
    {
      std::int64_t index = -1;
      std::size_t d = 0;
      f_.events.for_each([&](const RawEvent& e) {
        ++index;
        while (d < designated_.size() && designated_[d].first == index)
          step_labels[d++] =
              sink_.label_id(sink_.string_id(f_.strings.text(e.name)), Category::step);
      });
    }
    std::vector<std::vector<Row>> rows(raw.size() + 1);
    rows.back() = std::move(synthetic_);
    std::sort(rows.back().begin(), rows.back().end(), RowLess{});
    std::atomic<std::size_t> next{0};
    const int threads = std::max(1, std::min<int>(opt_.threads, static_cast<int>(raw.size())));
    std::vector<SkipCounts> skipped(static_cast<std::size_t>(threads));
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
    const auto work = [&](int w) {
      try {
        for (std::size_t k; (k = next++) < raw.size();) {
          convert_chunk(raw[k], first_index[k], step_labels, rows[k],
                        skipped[static_cast<std::size_t>(w)]);
          std::sort(rows[k].begin(), rows[k].end(), RowLess{});
          std::vector<RawEvent>().swap(raw[k]);
        }
      } catch (...) {
        errors[static_cast<std::size_t>(w)] = std::current_exception();
      }
    };
    std::vector<std::thread> pool;
    for (int w = 1; w < threads; ++w) pool.emplace_back(work, w);
    work(0);
    for (std::thread& t : pool) t.join();
    for (const auto& e : errors)
      if (e) std::rethrow_exception(e);
    for (const SkipCounts& s : skipped) sum_.skipped += s;
    return rows;
  }

  void convert_chunk(const std::vector<RawEvent>& chunk, std::int64_t first,
                     const std::vector<std::uint32_t>& step_labels, std::vector<Row>& out,
                     SkipCounts& skipped) const {
    out.reserve(chunk.size());
    auto d = std::lower_bound(designated_.begin(), designated_.end(),
                              std::pair<std::int64_t, std::int64_t>(first, kNone));
    for (std::size_t i = 0; i < chunk.size(); ++i) {
      const RawEvent& e = chunk[i];
      if (e.ph != 'X') continue;
      const CatClass c = cat_class(e.cat);
      const Side side = side_of_event(e);
      const LabelInfo li = seen_info(e.name, c, side, e.copy_kind);
      Row r;
      r.start_ns = e.ts;
      r.dur_ns = e.dur;
      r.bytes = e.bytes;
      r.correlation = e.correlation;
      r.label = li.label;
      r.track = slot_track_[e.thread * kSides + static_cast<int>(side)];
      if (r.track == 0) {
        skipped.add(Skip::too_many_tracks);
        continue;
      }
      const std::int64_t index = first + static_cast<std::int64_t>(i);
      while (d != designated_.end() && d->first < index) ++d;
      if (d != designated_.end() && d->first == index) {
        r.label = step_labels[static_cast<std::size_t>(d - designated_.begin())];
        r.step = d->second;
        ++d;
      } else if (li.profiler_step != kNone) {
        r.step = li.profiler_step;  // its name is its label's and this number
      } else if (side == Side::host) {
        r.step = step_index_.step_at(e.ts);
      } else {
        const std::int64_t* s = e.correlation != kNone ? corr_step_.find(e.correlation) : nullptr;
        r.step = s != nullptr ? *s : step_index_.step_at(e.ts);
      }
      out.push_back(r);
    }
  }

  // The older `[memory]` form's allocations and frees, summed per track in time order: the bytes
  // allocated since the trace began (what was allocated before it is not in the file).
  void sum_memory_deltas() {
    std::stable_sort(f_.memory_deltas.begin(), f_.memory_deltas.end(),
                     [](const RawMemoryDelta& a, const RawMemoryDelta& b) {
                       return a.name != b.name ? a.name < b.name : a.ts < b.ts;
                     });
    double total = 0;
    for (std::size_t i = 0; i < f_.memory_deltas.size(); ++i) {
      const RawMemoryDelta& d = f_.memory_deltas[i];
      if (i == 0 || d.name != f_.memory_deltas[i - 1].name) total = 0;
      total += d.bytes;
      f_.counters.push_back({d.ts, d.name, total});
    }
    f_.memory_deltas = {};
  }

  void write_counters() {
    sum_memory_deltas();
    std::map<std::uint32_t, std::uint32_t> tracks;  // counter name -> track
    std::vector<store::CounterRow> rows;
    rows.reserve(f_.counters.size());
    for (const RawCounter& c : f_.counters) {
      std::int64_t ts = 0;
      if (__builtin_add_overflow(c.ts, base_, &ts) || ts < -kMaxAbsNs || ts > kMaxAbsNs) {
        sum_.skipped.add(Skip::invalid_timestamp);
        continue;
      }
      auto [it, fresh] = tracks.try_emplace(c.name, 0);
      if (fresh)
        it->second = sink_.add_track(f_.strings.text(c.name), TrackKind::counter, store::kNull,
                                     static_cast<std::int64_t>(ctx_.process));
      if (it->second == 0) {
        sum_.skipped.add(Skip::too_many_tracks);
        continue;
      }
      rows.push_back({it->second, ts, c.value});
    }
    sum_.events_written += sink_.write_counters(rows);
    f_.counters = {};
  }

  void write_process() {
    // A rank only from the file itself (distributedInfo) or its name: files without either
    // (e.g. two profiling spans of one worker) are separate processes, not invented ranks.
    std::optional<std::int64_t> rank = f_.rank;
    if (!rank && ctx_.several) rank = ctx_.name_rank;
    sum_.rank = rank;
    // The OS pid: the numeric pid holding the most host events.
    std::map<std::int64_t, std::uint64_t> per_pid;
    for (std::size_t t = 0; t < f_.threads.size(); ++t)
      if (f_.threads[t].pid.str == 0 && thread_events_[t] > 0)
        per_pid[f_.threads[t].pid.num] += thread_events_[t];
    std::int64_t pid = store::kNull;
    std::uint64_t most = 0;
    for (const auto& [p, n] : per_pid)
      if (n > most) {
        most = n;
        pid = p;
      }
    std::string name;
    if (rank) {
      name = "rank " + std::to_string(*rank);
      std::string where = f_.host_name;
      if (pid != store::kNull) where += (where.empty() ? "pid " : " pid ") + std::to_string(pid);
      if (!where.empty()) name += " (" + where + ")";
    } else {
      name = base_name(ctx_.path);
    }
    sink_.add_process(ctx_.process, name, rank.value_or(store::kNull), pid, f_.host_name);
  }

  void finish_summary() {
    sum_.format = rules_.format;
    sum_.world_size = f_.world_size;
    sum_.device_names = f_.device_names;
    sum_.devices = f_.devices;
    sum_.occupancy_weighted_ns = f_.occupancy_weighted_ns;
    sum_.occupancy_ns = f_.occupancy_ns;
    sum_.backend = f_.backend;
    sum_.display_time_unit = f_.display_time_unit;
    sum_.trace_name = f_.trace_name;
    sum_.skipped += f_.skipped;
    sum_.events_read = f_.events_read;
    sum_.bytes = f_.bytes;
    switch (f_.end) {
      case ParseEnd::truncated:
        sum_.skipped.add(Skip::truncated_file);
        break;
      case ParseEnd::syntax_error:
        sum_.skipped.add(Skip::syntax_error);
        sum_.parse_error = f_.error + " at byte " + std::to_string(f_.error_offset);
        break;
      case ParseEnd::too_deep:
        sum_.skipped.add(Skip::nesting_too_deep);
        break;
      case ParseEnd::gzip_error:
        sum_.skipped.add(Skip::gzip_error);
        break;
      default:
        break;
    }
  }

  ParsedFile& f_;
  const FileContext& ctx_;
  const MapOptions& opt_;
  TraceSink& sink_;
  Rules rules_;
  std::int64_t base_ = 0;
  std::vector<CatClass> cat_classes_;
  std::vector<bool> thread_gpu_;
  std::vector<std::string> thread_names_;
  FlatMap<std::uint32_t> labels_;
  std::vector<LabelInfo> infos_;
  LabelInfo numbered_step_;                // label 0 until a ProfilerStep#N is met
  std::vector<std::uint32_t> slot_mask_;   // per (thread, side): categories seen
  std::vector<std::uint32_t> slot_track_;  // per (thread, side): track id
  std::vector<std::uint64_t> thread_events_;
  std::vector<std::int64_t> thread_end_;
  std::vector<StepSpan> profiler_spans_;
  std::vector<StepCandidate> dataloader_, markers_;
  // (correlation, start), then (correlation, step) once the steps are known
  std::vector<std::pair<std::int64_t, std::int64_t>> runtime_corr_;
  std::vector<std::uint32_t> step_threads_;
  std::vector<std::pair<std::int64_t, std::int64_t>> designated_;  // (event index, step)
  std::vector<Row> synthetic_;
  StepIndex step_index_;
  DenseIdMap<std::int64_t> corr_step_;
  FileSummary sum_;
};

}  // namespace

FileSummary map_file(ParsedFile& file, const FileContext& context, const MapOptions& options,
                     TraceSink& sink) {
  return FileMapper(file, context, options, sink).run();
}

}  // namespace ts::import
