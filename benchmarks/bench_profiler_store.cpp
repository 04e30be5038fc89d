// SQLite ingest rate of the trace store (target: >= 3 M events/s sustained) and the size of a
// stored event, indexes included (<= 32 bytes).
//
// The rows imitate what the capture writer hands the store: eight tracks on one clock, 10 ms
// batches sorted by start, a commit every 100 ms, timestamps ~3 days into the host's uptime
// (8-byte integers), durations of 0.2-20 us, a step number, bytes on a quarter of them.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "profiler/store/writer.hpp"

namespace {

using ts::store::EventRow;
namespace tt = ts::trace;

struct Batch {
  std::vector<EventRow> rows;
};

std::vector<Batch> make_batches(std::int64_t events) {
  std::mt19937_64 rng(42);
  constexpr int kTracks = 8;
  std::int64_t now = 250'000'000'000'000;
  std::int64_t free_at[kTracks];
  std::fill(std::begin(free_at), std::end(free_at), now);
  std::vector<Batch> batches(1);
  std::int64_t batch_end = now + 10'000'000;
  for (std::int64_t i = 0; i < events; ++i) {
    if (now >= batch_end) {
      batches.emplace_back();
      batch_end += 10'000'000;
    }
    const auto track = static_cast<std::uint32_t>(i % kTracks);
    const std::int64_t dur = 200 + static_cast<std::int64_t>(rng() % 20'000);
    const std::int64_t start = std::max(now, free_at[track]);
    free_at[track] = start + dur + 50;
    now += 300;  // ~3.3 M events per second of trace time
    EventRow r{start, dur, track + 1, static_cast<std::uint32_t>(1 + rng() % 40), i / 20000};
    if (i % 4 == 0) r.bytes = 4096 + static_cast<std::int64_t>(rng() % 65536);
    batches.back().rows.push_back(r);
  }
  for (Batch& b : batches)
    std::sort(b.rows.begin(), b.rows.end(), [](const EventRow& a, const EventRow& b) {
      return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.track < b.track;
    });
  return batches;
}

void write_dictionary(ts::store::Writer& w) {
  for (std::uint32_t i = 1; i <= 40; ++i) {
    w.put_string(i, "zone " + std::to_string(i));
    w.put_label(i, i, static_cast<tt::Category>(i % tt::kCategoryCount));
  }
  for (std::uint32_t t = 1; t <= 8; ++t)
    w.put_track(t, "thread " + std::to_string(t), tt::TrackKind::thread);
}

std::string bench_path() {
  return "/tmp/bench_profiler_store_" + std::to_string(::getpid()) + ".db";
}

// Arg: the page size. Each iteration writes a fresh 2 M-event trace.
void BM_StoreIngest(benchmark::State& state) {
  const std::int64_t kEvents = 2'000'000;
  const auto batches = make_batches(kEvents);
  const std::string path = bench_path();
  ts::store::WriterOptions options;
  options.page_size = static_cast<int>(state.range(0));
  double bytes_per_event = 0, schema_bytes = 0;
  for (auto _ : state) {
    {
      ts::store::Writer empty(path, options);
      empty.finish();
      schema_bytes = static_cast<double>(std::filesystem::file_size(path));
    }
    ts::store::Writer w(path, options);
    write_dictionary(w);
    for (std::size_t b = 0; b < batches.size(); ++b) {
      w.append(std::span<const EventRow>(batches[b].rows));
      if (b % 10 == 9) w.commit();
    }
    w.finish();
    bytes_per_event = static_cast<double>(std::filesystem::file_size(path)) / kEvents;
  }
  state.SetItemsProcessed(state.iterations() * kEvents);
  state.counters["bytes_per_event"] = bytes_per_event;
  state.counters["bytes_per_event_without_schema"] =
      bytes_per_event - schema_bytes / static_cast<double>(kEvents);
  std::filesystem::remove(path);
}
BENCHMARK(BM_StoreIngest)
    ->Arg(4096)
    ->Arg(16384)
    ->Arg(65536)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
