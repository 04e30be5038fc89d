// Following a running capture: Reader::refresh (only the blocks committed since) against opening
// a new Reader (every staged block indexed again), on a capture of N staged events that then
// commits 1 % more, in one process. Prints both times and their ratio.
//
//   bench_refresh [--events N] [--repeat K]
#include <algorithm>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "benchmarks/live_capture.hpp"
#include "profiler/store/reader.hpp"

using ts::bench::Clock;
using ts::bench::seconds_since;

int main(int argc, char** argv) {
  long long events = 2'000'000, repeat = 3;
  if (!ts::bench::parse_live_flags(argc, argv, "bench_refresh", events, repeat)) return 2;
  const std::string path = ts::bench::temp_trace("bench_refresh");
  double best_refresh = 1e9, best_open = 1e9;
  {
    ts::bench::LiveCapture capture(path);
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
  ts::bench::remove_trace(path);
  std::printf(
      "live capture of %lld staged events, 1 %% more committed: refresh best %.1f ms, new reader "
      "best %.1f ms (%.0fx)\n",
      events, best_refresh * 1e3, best_open * 1e3, best_open / best_refresh);
  return 0;
}
