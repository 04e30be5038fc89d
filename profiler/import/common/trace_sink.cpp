#include "profiler/import/common/trace_sink.hpp"

#include <algorithm>
#include <queue>

#include "profiler/import/common/text_clean.hpp"
#include "profiler/store/batch_pipe.hpp"
#include "profiler/store/event_key.hpp"

namespace ts::import {

namespace {

constexpr std::uint32_t kMaxTracks = 65535;  // events.id keeps 16 bits of track
constexpr std::size_t kBatchRows = 32768;

// While merging, each run holds one coded block and the block decoded (about 4.7 times as many
// bytes): the block size keeps that near kMergeMemory whatever the number of files.
constexpr std::size_t kMergeMemory = std::size_t{64} << 20;
constexpr std::size_t kMinRunBlock = 4096, kMaxRunBlock = 256 << 10;

std::size_t run_block_bytes(std::size_t files) {
  return std::clamp<std::size_t>(kMergeMemory * 2 / 11 / std::max<std::size_t>(files, 1),
                                 kMinRunBlock, kMaxRunBlock);
}

std::string folder_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Rows reach the writer in key order, a file's as they are merged, several files' as their runs
// are: SQLite appends them and never reads a page back, so its default page cache does.
store::WriterOptions bulk_options(std::uint64_t input_bytes) {
  store::WriterOptions o;
  o.bulk = true;
  o.durability = store::Durability::not_synced;  // made again from its sources
  if (input_bytes < (std::uint64_t{4} << 20)) o.page_size = 4096;
  return o;
}

store::EventRow to_event_row(const Row& r) {
  store::EventRow e;
  e.start_ns = r.start_ns;
  e.dur_ns = r.dur_ns;
  e.track = r.track;
  e.label = r.label;
  e.step = r.step;
  e.bytes = r.bytes;
  e.correlation = r.correlation;
  return e;
}

// Merges one file's sorted chunks into `out`, dropping duplicates, counting what it wrote into
// `result` (its first start: the earliest keyed from `origin`). Rows starting before
// `defer_before` come last, after every other row: the first row SQLite is given fixes the
// trace's key origin (event_key.hpp), so a stray early event must not.
void merge_chunks(const std::vector<std::vector<Row>>& chunks, std::int64_t defer_before,
                  std::int64_t origin, store::BatchPipe<store::EventRow>& out,
                  WriteResult& result) {
  struct Cursor {
    const Row* at;
    const Row* end;
  };
  const auto later = [](const Cursor& a, const Cursor& b) { return row_less(*b.at, *a.at); };
  std::priority_queue<Cursor, std::vector<Cursor>, decltype(later)> heap(later);
  for (const auto& c : chunks)
    if (!c.empty()) heap.push({c.data(), c.data() + c.size()});
  std::vector<store::EventRow> deferred;
  // The labels of the rows sharing the current (start, track, duration).
  const Row* run_head = nullptr;
  std::vector<std::uint32_t> run_labels;
  while (!heap.empty()) {
    Cursor c = heap.top();
    heap.pop();
    const Row& r = *c.at;
    if (++c.at != c.end) heap.push(c);
    if (run_head != nullptr && run_head->start_ns == r.start_ns && run_head->track == r.track &&
        run_head->dur_ns == r.dur_ns) {
      if (std::find(run_labels.begin(), run_labels.end(), r.label) != run_labels.end()) {
        ++result.duplicates;
        continue;
      }
    } else {
      run_head = &r;
      run_labels.clear();
    }
    run_labels.push_back(r.label);
    ++result.written;
    if (r.start_ns < defer_before) {
      deferred.push_back(to_event_row(r));
      continue;
    }
    if (result.first_start == store::kNull && store::has_key(r.start_ns, origin))
      result.first_start = r.start_ns;
    out.push(to_event_row(r));
  }
  // The deferred rows the origin keys (the store drops and counts the others) start earlier.
  for (const store::EventRow& e : deferred)
    if (result.first_start == store::kNull || store::has_key(e.start_ns, result.first_start)) {
      result.first_start = e.start_ns;
      break;
    }
  for (const store::EventRow& e : deferred) out.push(e);
}

// The start to key the trace from (the first row to write) so that as many rows as possible
// have a key: the start s maximising the rows within [s - L, s + L), L = store::kKeyOffsetLimit
// (about 39 hours). The earliest start when every row lies within L of it (the usual case: no
// copy of the starts is made).
std::int64_t key_origin_for(const std::vector<std::vector<Row>>& chunks) {
  std::int64_t lo = INT64_MAX, hi = INT64_MIN;
  std::size_t n = 0;
  for (const auto& c : chunks)
    if (!c.empty()) {
      lo = std::min(lo, c.front().start_ns);
      hi = std::max(hi, c.back().start_ns);
      n += c.size();
    }
  if (n == 0 || store::has_key(hi, lo)) return lo;
  std::vector<std::int64_t> starts;
  starts.reserve(n);
  for (const auto& c : chunks)
    for (const Row& r : c) starts.push_back(r.start_ns);
  std::sort(starts.begin(), starts.end());
  std::size_t best = 0, best_count = 0, first = 0, past = 0;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    while (!store::has_key(starts[first], starts[i])) ++first;
    past = std::max(past, i);
    while (past < starts.size() && store::has_key(starts[past], starts[i])) ++past;
    if (past - first > best_count) {
      best_count = past - first;
      best = i;
    }
  }
  return starts[best];
}

}  // namespace

TraceSink::TraceSink(const std::string& path, std::uint64_t input_bytes, std::size_t files)
    : writer_(path, bulk_options(input_bytes)) {
  if (files > 1) runs_.emplace(folder_of(path), run_block_bytes(files));
}

std::uint32_t TraceSink::string_id(std::string_view raw) {
  std::string text = clean_text(raw);
  const auto [it, inserted] =
      strings_.try_emplace(std::move(text), static_cast<std::uint32_t>(strings_.size() + 1));
  if (inserted) writer_.put_string(it->second, it->first);
  return it->second;
}

std::uint32_t TraceSink::label_id(std::uint32_t string, trace::Category category) {
  const std::uint64_t key = (std::uint64_t{string} << 8) | static_cast<std::uint8_t>(category);
  const auto [it, inserted] =
      labels_.try_emplace(key, static_cast<std::uint32_t>(labels_.size() + 1));
  if (inserted) writer_.put_label(it->second, string, category);
  return it->second;
}

std::uint32_t TraceSink::add_track(std::string_view name, trace::TrackKind kind,
                                   std::int64_t os_tid, std::int64_t process) {
  if (next_track_ > kMaxTracks) return 0;
  const std::uint32_t id = next_track_++;
  writer_.put_track(id, clean_text(name), kind, os_tid, process);
  return id;
}

void TraceSink::add_process(std::uint32_t id, std::string_view name, std::int64_t rank,
                            std::int64_t pid, std::string_view host) {
  writer_.put_process(id, clean_text(name), rank, pid, clean_text(host));
}

void TraceSink::put_meta(std::string_view key, std::string_view value) {
  writer_.put_meta(key, clean_text(value, true));
}

WriteResult TraceSink::write_events(std::vector<std::vector<Row>>& chunks) {
  WriteResult result;
  if (runs_ && !origin_fixed_) origin_ = key_origin_for(chunks);
  // The first rows written fix the key origin: chosen where most rows have a key. Spilled rows
  // keep their order: finish() writes them all. The rows of a single file go straight into the
  // file's pages when it can take them, keyed from that origin; else through SQLite, rows
  // starting before it last, since the first row SQLite is given fixes the origin.
  bool pages = false;
  if (!runs_ && !origin_fixed_) origin_ = key_origin_for(chunks);
  if (!origin_fixed_ || runs_) widen_extent(chunks);
  if (!runs_ && !origin_fixed_) pages = writer_.begin_page_append(origin_, extent());
  const std::int64_t defer_before = runs_ || origin_fixed_ || pages ? INT64_MIN : origin_;
  {
    store::BatchProducer<store::EventRow> merged(
        [&](store::BatchPipe<store::EventRow>& out) {
          merge_chunks(chunks, defer_before, origin_, out, result);
        },
        kBatchRows);
    std::vector<store::EventRow> batch;
    std::int64_t first_keyed = store::kNull;
    while (merged.next(batch)) {
      if (!runs_) {
        writer_.append(batch);
        continue;
      }
      runs_->add(batch);
      if (first_keyed == store::kNull)
        for (const store::EventRow& r : batch)
          if (store::has_key(r.start_ns, origin_)) {
            first_keyed = r.start_ns;
            break;
          }
    }
    merged.join();
    if (runs_) {
      runs_->end_run();
      result.first_start = first_keyed;
    }
  }
  if (pages) writer_.end_page_append();
  origin_fixed_ = origin_fixed_ || result.written > 0;
  chunks.clear();
  return result;
}

void TraceSink::write_runs() {
  if (!runs_ || runs_->rows() == 0) return;
  // Merged on a thread of their own while this one stores them, in key order when the file takes
  // them into its pages; else from the origin on first (the first row SQLite is given keys the
  // trace), then what starts before.
  const bool pages = writer_.begin_page_append(origin_, extent());
  store::BatchProducer<store::EventRow> merged(
      [&](store::BatchPipe<store::EventRow>& out) {
        const auto push = [&](std::span<const store::EventRow> rows) {
          for (const store::EventRow& r : rows) out.push(r);
        };
        if (pages) {
          runs_->merge(INT64_MIN, INT64_MAX, push);
          return;
        }
        runs_->merge(origin_, INT64_MAX, push);
        if (origin_ > INT64_MIN) runs_->merge(INT64_MIN, origin_ - 1, push);
      },
      kBatchRows);
  const std::uint64_t events = runs_->rows();
  std::uint64_t written = 0;
  if (writing_progress_) writing_progress_(0, events);
  std::vector<store::EventRow> batch;
  while (merged.next(batch)) {
    writer_.append(batch);
    written += batch.size();
    if (writing_progress_) writing_progress_(written, events);
  }
  merged.join();
  if (pages) writer_.end_page_append();
  runs_.reset();
}

// The time range of the rows with a key: the trace's, unless the writer moves a row past an end
// (the overview built as the rows are written then gives way to one built from the file).
void TraceSink::widen_extent(const std::vector<std::vector<Row>>& chunks) {
  for (const auto& chunk : chunks)
    for (const Row& r : chunk)
      if (store::has_key(r.start_ns, origin_)) {
        extent_start_ = std::min(extent_start_, r.start_ns);
        extent_end_ = std::max(extent_end_, store::sat_add(r.start_ns, r.dur_ns));
      }
}

std::optional<store::TimeRange> TraceSink::extent() const {
  if (extent_start_ > extent_end_) return std::nullopt;
  return store::TimeRange{extent_start_, extent_end_};
}

std::uint64_t TraceSink::write_counters(std::vector<store::CounterRow>& rows) {
  std::sort(rows.begin(), rows.end(), [](const store::CounterRow& a, const store::CounterRow& b) {
    return a.track != b.track ? a.track < b.track : a.ts_ns < b.ts_ns;
  });
  writer_.append(std::span<const store::CounterRow>(rows));
  return rows.size();
}

void TraceSink::finish() {
  write_runs();
  writer_.finish();
}

}  // namespace ts::import
