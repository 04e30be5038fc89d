// Following a running capture: Reader::refresh (only the blocks committed since) against opening
// a new Reader (every staged block indexed again), on a capture of N staged events that then
// commits 1 % more, in one process. Prints both times and their ratio.
//
//   bench_refresh [--events N] [--repeat K]
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "profiler/store/reader.hpp"
#include "profiler/store/writer.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using ts::store::EventRow;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Steps of 100 us on a trainer thread, each with a step zone and nine 8 us zones and kernels on
// the trainer and a device queue, committed every `commit` events as a capture does.
class LiveCapture {
 public:
  explicit LiveCapture(const std::string& path) : writer_(path, staged()) {
    writer_.put_string(1, "fwd");
    writer_.put_string(2, "gemm");
    writer_.put_string(3, "step");
    writer_.put_label(1, 1, ts::trace::Category::host_compute);
    writer_.put_label(2, 2, ts::trace::Category::kernel);
    writer_.put_label(3, 3, ts::trace::Category::step);
    writer_.put_track(1, "trainer", ts::trace::TrackKind::thread, 1);
    writer_.put_track(2, "gpu0", ts::trace::TrackKind::device_queue);
    writer_.put_meta("clock.origin_ns", "1000000000");
  }

  void record(long long events, long long commit) {
    std::vector<EventRow> rows;
    for (long long i = 0; i < events; i += 10, ++step_) {
      rows.push_back({now_, 100'000, 1, 3, step_});
      for (int k = 0; k < 9; ++k)
        rows.push_back({now_ + 1'000 + k * 10'000, 8'000, static_cast<std::uint32_t>(1 + k % 2),
                        static_cast<std::uint32_t>(1 + k % 2), step_});
      now_ += 100'000;
      if (static_cast<long long>(rows.size()) >= commit) flush(rows);
    }
    flush(rows);
  }

 private:
  static ts::store::WriterOptions staged() {
    ts::store::WriterOptions o;
    o.staged = true;
    return o;
  }
  void flush(std::vector<EventRow>& rows) {
    writer_.append(std::span<const EventRow>(rows));
    writer_.commit();
    rows.clear();
  }

  ts::store::Writer writer_;
  std::int64_t now_ = 1'000'000'000;
  std::int64_t step_ = 0;
};

bool parse(std::string_view s, long long& out) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size() && out > 0;
}

}  // namespace

int main(int argc, char** argv) {
  long long events = 2'000'000, repeat = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (!(flag == "--events" ? parse(argv[i + 1], events)
                             : flag == "--repeat" && parse(argv[i + 1], repeat))) {
      std::fprintf(stderr, "usage: bench_refresh [--events N] [--repeat K]\n");
      return 2;
    }
  }
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("bench_refresh_" + std::to_string(::getpid()) + ".db"))
                               .string();
  double best_refresh = 1e9, best_open = 1e9;
  {
    LiveCapture capture(path);
    capture.record(events, 10'000);
    ts::store::Reader follower(path);
    for (long long k = 0; k < repeat; ++k) {
      capture.record(events / 100, 10'000);
      auto t0 = Clock::now();
      const auto result = follower.refresh();
      best_refresh = std::min(best_refresh, seconds_since(t0));
      if (result != ts::store::Reader::Refresh::appended) {
        std::fprintf(stderr, "bench_refresh: the refresh took nothing in\n");
        return 1;
      }
      t0 = Clock::now();
      const ts::store::Reader reopened(path);
      best_open = std::min(best_open, seconds_since(t0));
    }
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  std::printf(
      "live capture of %lld staged events, 1 %% more committed: refresh best %.1f ms, new reader "
      "best %.1f ms (%.0fx)\n",
      events, best_refresh * 1e3, best_open * 1e3, best_open / best_refresh);
  return 0;
}
