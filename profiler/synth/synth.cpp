#include "profiler/synth/synth.hpp"

#include <algorithm>
#include <array>
#include <span>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "profiler/store/writer.hpp"
#include "trainscope/meta_keys.hpp"

namespace ts::synth {

namespace {

using store::EventRow;
using store::kNull;
using trace::Category;

// splitmix64: tiny, fast and the same on every platform (std:: distributions are not).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  std::int64_t ns(double lo, double hi) { return static_cast<std::int64_t>(uniform(lo, hi)); }

 private:
  std::uint64_t s_;
};

// Labels (ids) and their names and categories.
enum Label : std::uint32_t {
  kStep = 1,
  kWait,
  kBatch,
  kLoad,
  kDecode,
  kAugment,
  kUpload,
  kDownload,
  kEnqueueKernel,
  kEnqueueUpload,
  kOptimizer,
  kWaitDownload,
  kLoss,
  kFirstKernel,  // kFirstKernel + i: the i-th kernel of kKernels
};

struct KernelSpec {
  std::string_view name;
  std::int64_t ns;  // typical duration
};
// An MLP step: forward, loss, backward, Adam; about 290 µs of kernels, as on a small GPU.
constexpr std::array<KernelSpec, kKernelsPerStep> kKernels = {{
    {"sgemm_NN", 80'000},
    {"bias_add", 6'000},
    {"relu", 4'000},
    {"sgemm_NN", 24'000},
    {"bias_add", 4'000},
    {"softmax_xent", 10'000},
    {"softmax_xent_backward", 4'000},
    {"sgemm_NT", 20'000},
    {"sgemm_TN", 24'000},
    {"relu_backward", 4'000},
    {"sgemm_TN", 70'000},
    {"adam_update", 40'000},
}};

// Per-sample input work of a worker when the pipeline keeps up.
constexpr double kReadNsPerSample = 1'000, kDecodeNsPerSample = 3'000, kMapNsPerSample = 1'000;
constexpr double kCopyBytesPerNs = 25.0;  // 25 GB/s host to device (PCIe 4 x16)

void write_dictionary(store::Writer& w, int workers) {
  const std::pair<Label, std::pair<std::string_view, Category>> labels[] = {
      {kStep, {"step", Category::step}},
      {kWait, {"wait for batch", Category::input_wait}},
      {kBatch, {"batch", Category::input_batch}},
      {kLoad, {"load samples", Category::input_read}},
      {kDecode, {"decode image", Category::input_decode}},
      {kAugment, {"augment", Category::input_map}},
      {kUpload, {"upload", Category::h2d}},
      {kDownload, {"download", Category::d2h}},
      {kEnqueueKernel, {"enqueue kernel", Category::launch}},
      {kEnqueueUpload, {"enqueue upload", Category::launch}},
      {kOptimizer, {"optimizer", Category::optimizer}},
      {kWaitDownload, {"wait for download", Category::sync}},
      {kLoss, {"loss", Category::host_compute}},
  };
  for (const auto& [id, nc] : labels) {
    w.put_string(id, nc.first);
    w.put_label(id, id, nc.second);
  }
  // Kernel names repeat (two sgemm_NN calls): one label per distinct name, as the capture does.
  for (std::size_t i = 0; i < kKernels.size(); ++i) {
    std::size_t first = i;
    for (std::size_t j = 0; j < i; ++j)
      if (kKernels[j].name == kKernels[i].name) {
        first = j;
        break;
      }
    if (first != i) continue;
    const auto id = static_cast<std::uint32_t>(kFirstKernel + i);
    w.put_string(id, kKernels[i].name);
    w.put_label(id, id, Category::kernel);
  }
  w.put_track(kTrainerTrack, "trainer", trace::TrackKind::thread);
  w.put_track(kComputeTrack, "synthetic GPU compute", trace::TrackKind::device_queue);
  w.put_track(kCopyTrack, "synthetic GPU copy", trace::TrackKind::device_queue);
  w.put_track(kFillTrack, "prefetch buffer fill", trace::TrackKind::counter);
  for (int i = 0; i < workers; ++i)
    w.put_track(kFirstWorkerTrack + static_cast<std::uint32_t>(i),
                "input worker " + std::to_string(i + 1), trace::TrackKind::thread);
}

std::uint32_t kernel_label(std::size_t i) {
  for (std::size_t j = 0; j < i; ++j)
    if (kKernels[j].name == kKernels[i].name) return static_cast<std::uint32_t>(kFirstKernel + j);
  return static_cast<std::uint32_t>(kFirstKernel + i);
}

bool row_less(const EventRow& a, const EventRow& b) {
  if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
  if (a.track != b.track) return a.track < b.track;
  return a.dur_ns > b.dur_ns;
}

class Generator {
 public:
  Generator(const SynthOptions& o, store::Writer& w)
      : o_(o), w_(w), rng_(o.seed), worker_free_(static_cast<std::size_t>(o.workers)) {
    // Workers start prefetching 1 ms before the first step.
    for (auto& f : worker_free_) f = o.start_ns - 1'000'000;
  }

  SynthResult run(std::int64_t steps) {
    SynthResult r;
    r.start_ns = o_.start_ns - 1'000'000;
    std::int64_t t = o_.start_ns;
    for (std::int64_t s = 0; s < steps; ++s) {
      t = step(s, t, r);
      if (pending_.size() >= (1u << 15)) flush(false);
    }
    flush(true);
    write_fill();
    r.steps = steps;
    r.end_ns = t;
    return r;
  }

 private:
  void emit(std::int64_t start, std::int64_t dur, std::uint32_t track, std::uint32_t label,
            std::int64_t step, std::int64_t bytes = kNull, std::int64_t work = kNull,
            std::int64_t correlation = kNull) {
    pending_.push_back({start, dur, track, label, step, bytes, work, correlation});
    ++events_;
  }

  // One step starting at t; returns the start of the next one.
  std::int64_t step(std::int64_t s, std::int64_t t, SynthResult& r) {
    const double scale = o_.compute_scale;
    std::int64_t compute = 0;
    for (const KernelSpec& k : kKernels) compute += static_cast<std::int64_t>(k.ns * scale);
    const bool input_bound = rng_.uniform() < o_.input_bound_fraction;
    if (input_bound) ++r.input_bound_steps;
    const std::int64_t wait_start = t + 50;
    const std::int64_t wait =
        input_bound ? rng_.ns(0.3 * compute, 1.0 * compute) : rng_.ns(500, 1'500);
    const std::int64_t ready = wait_start + wait;
    produce_batch(s, ready, input_bound);
    emit(wait_start, wait, kTrainerTrack, kWait, s);
    const std::int64_t batch_dur = rng_.ns(500, 1'500);
    emit(ready + 20, batch_dur, kTrainerTrack, kBatch, s);
    fill_.push_back({ready + 30, -1});
    taken_.push_back(ready + 30);
    std::int64_t cur = ready + 20 + batch_dur + 100;

    // Upload the batch: launch on the trainer, copy on the copy queue.
    const std::int64_t bytes = std::int64_t{o_.batch} * 784 * 4;
    std::int64_t launch = rng_.ns(2'000, 4'000);
    std::int64_t corr = ++correlation_;
    emit(cur, launch, kTrainerTrack, kEnqueueUpload, s, bytes, kNull, corr);
    const std::int64_t h2d_start = cur + launch + 200;
    const auto h2d = static_cast<std::int64_t>(static_cast<double>(bytes) / kCopyBytesPerNs);
    emit(h2d_start, h2d, kCopyTrack, kUpload, s, bytes, kNull, corr);
    std::int64_t device_free = h2d_start + h2d;
    cur += launch + 100;

    // The kernels, each launched by the trainer; the optimizer zone wraps the last launch and
    // the host work around it.
    for (std::size_t k = 0; k < kKernels.size(); ++k) {
      const bool adam = k + 1 == kKernels.size();
      std::int64_t opt_start = 0;
      if (adam) {
        opt_start = cur;
        cur += 500;  // optimizer bookkeeping before the launch
      }
      launch = rng_.ns(2'000, 5'000);
      corr = ++correlation_;
      emit(cur, launch, kTrainerTrack, kEnqueueKernel, s, kNull, kNull, corr);
      const std::int64_t start = std::max(cur + launch + 300, device_free);
      const auto dur = static_cast<std::int64_t>(static_cast<double>(kKernels[k].ns) * scale *
                                                 rng_.uniform(0.8, 1.2));
      emit(start, std::max<std::int64_t>(1, dur), kComputeTrack, kernel_label(k), s, kNull, 4096,
           corr);
      device_free = start + std::max<std::int64_t>(1, dur);
      cur += launch + 100;
      if (adam) {
        cur += 1'000;
        emit(opt_start, cur - opt_start, kTrainerTrack, kOptimizer, s);
        cur += 100;
      }
    }

    // Read the loss back: the trainer blocks until the kernels and the download are done.
    const std::int64_t d2h_start = device_free + 200;
    const std::int64_t d2h = 2'000;
    corr = ++correlation_;
    emit(d2h_start, d2h, kCopyTrack, kDownload, s, 4, kNull, corr);
    const std::int64_t sync_end = std::max(cur, d2h_start + d2h) + 300;
    emit(cur, sync_end - cur, kTrainerTrack, kWaitDownload, s);
    const std::int64_t loss = rng_.ns(2'000, 8'000);
    emit(sync_end + 100, loss, kTrainerTrack, kLoss, s);
    const std::int64_t end = sync_end + 100 + loss + 200;
    emit(t, end - t, kTrainerTrack, kStep, s);
    return end + rng_.ns(200, 2'000);
  }

  // The worker owning batch s produces it in chunks, finishing by `ready` (when the trainer
  // stops waiting). A worker that keeps up starts as soon as it is free and finishes early; for
  // an input-bound step it was slow and used all the time up to `ready`.
  void produce_batch(std::int64_t s, std::int64_t ready, bool input_bound) {
    std::int64_t& free = worker_free_[static_cast<std::size_t>(s % o_.workers)];
    const auto track = kFirstWorkerTrack + static_cast<std::uint32_t>(s % o_.workers);
    // A batch needs a free slot in the prefetch buffer: the trainer must have taken batch
    // s - prefetch.
    std::int64_t begin = free + 100;
    if (s >= o_.prefetch)
      begin = std::max(begin, taken_[static_cast<std::size_t>(s - o_.prefetch)] + 100);
    const std::int64_t deadline = ready - 100;
    const double per_sample =
        (kReadNsPerSample + kDecodeNsPerSample + kMapNsPerSample) * rng_.uniform(0.8, 1.2);
    const auto base = static_cast<std::int64_t>(per_sample * o_.batch);
    const std::int64_t available = deadline - begin;
    const int chunks = o_.chunks_per_batch;
    // At least 200 ns a chunk, so nested zones never share a start with their parent.
    const std::int64_t work =
        std::max<std::int64_t>(input_bound ? available : std::min(base, available), 200 * chunks);
    const std::int64_t chunk = work / chunks;
    std::int64_t c = begin;
    for (int i = 0; i < chunks; ++i) {
      const std::int64_t len = (i + 1 == chunks ? work - chunk * (chunks - 1) : chunk) - 50;
      // read self time, then decode and map nested in the read zone.
      const std::int64_t read = len * 2 / 10, decode = len * 6 / 10;
      const std::int64_t map = len - read - decode - 10;
      emit(c, len, track, kLoad, kNull);
      emit(c + read, decode, track, kDecode, kNull);
      emit(c + read + decode, map, track, kAugment, kNull);
      c += len + 50;
    }
    free = c;
    fill_.push_back({c, +1});
  }

  // Writes the pending rows that no later row can precede: every row still to come starts at
  // or after the earliest time a worker is free (future steps start later still).
  void flush(bool all) {
    std::sort(pending_.begin(), pending_.end(), row_less);
    std::size_t n = pending_.size();
    if (!all) {
      const std::int64_t mark = *std::min_element(worker_free_.begin(), worker_free_.end());
      n = static_cast<std::size_t>(
          std::partition_point(pending_.begin(), pending_.end(),
                               [&](const EventRow& e) { return e.start_ns < mark; }) -
          pending_.begin());
    }
    w_.append(std::span<const EventRow>(pending_.data(), n));
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(n));
    if (++flushes_ % 64 == 0) w_.commit();
  }

  // The prefetch buffer fill counter: +1 when a worker finishes a batch, -1 when the trainer
  // takes it; one sample per distinct time, holding the running count.
  void write_fill() {
    std::sort(fill_.begin(), fill_.end());
    std::vector<store::CounterRow> rows;
    rows.reserve(fill_.size());
    std::int64_t level = 0;
    for (const auto& [ts, d] : fill_) {
      level += d;
      if (!rows.empty() && rows.back().ts_ns == ts) {
        rows.back().value = static_cast<double>(level);
      } else {
        rows.push_back({kFillTrack, ts, static_cast<double>(level)});
      }
    }
    w_.append(std::span<const store::CounterRow>(rows));
  }

 public:
  std::int64_t events() const { return events_; }

 private:
  const SynthOptions& o_;
  store::Writer& w_;
  Rng rng_;
  std::vector<std::int64_t> worker_free_;
  std::vector<EventRow> pending_;
  std::vector<std::pair<std::int64_t, int>> fill_;
  std::vector<std::int64_t> taken_;  // per step: when the trainer took its batch
  std::int64_t events_ = 0;
  std::int64_t correlation_ = 0;
  std::int64_t flushes_ = 0;
};

}  // namespace

std::int64_t events_per_step(const SynthOptions& o) {
  // trainer: step, wait, batch, upload launch, kernel launches, optimizer, sync, loss;
  // queues: upload, kernels, download; worker: 3 zones per chunk.
  return 7 + kKernelsPerStep + 2 + kKernelsPerStep + 3 * std::int64_t{o.chunks_per_batch};
}

SynthResult write_synthetic_trace(const std::string& path, const SynthOptions& o) {
  if (o.workers < 1 || o.prefetch < 1 || o.chunks_per_batch < 1 || o.batch < 1 ||
      o.target_events < 1 || !(o.compute_scale > 0) ||
      !(o.input_bound_fraction >= 0 && o.input_bound_fraction <= 1))
    throw std::invalid_argument("write_synthetic_trace: invalid SynthOptions");
  const std::int64_t per_step = events_per_step(o);
  const std::int64_t steps = (o.target_events + per_step - 1) / per_step;

  store::Writer w(path);
  write_dictionary(w, o.workers);
  w.put_meta(meta_key::kClockOriginNs, std::to_string(o.start_ns - 1'000'000));
  w.put_meta(meta_key::kEngineModel, "synthetic");
  w.put_meta(meta_key::kEngineBackend, "synthetic");
  w.put_meta(meta_key::kEngineDevice, "synthetic GPU");
  w.put_meta(meta_key::kEngineBatch, std::to_string(o.batch));
  w.put_meta(meta_key::kPipelineParallel, std::to_string(o.workers));
  w.put_meta(meta_key::kPipelinePrefetch, std::to_string(o.prefetch));
  w.put_meta(meta_key::kPipelineCache, "none");
  w.put_meta(meta_key::kDroppedEvents, "0");
  Generator g(o, w);
  SynthResult r = g.run(steps);
  r.events = g.events();
  w.put_meta(meta_key::kFitSteps, std::to_string(steps));
  w.finish();
  return r;
}

}  // namespace ts::synth
