// A capture still running, for the live benchmarks: a staged writer recording synthetic steps,
// and what the benchmarks share (flags, timing, a temporary trace).
#pragma once

#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "profiler/store/file_header.hpp"
#include "profiler/store/writer.hpp"

namespace ts::bench {

using store::EventRow;

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The live benchmarks' flags, --events N and --repeat K (N, K > 0); false on anything else, after
// printing `name`'s usage.
inline bool parse_live_flags(int argc, char** argv, const char* name, long long& events,
                             long long& repeat) {
  const auto parse = [](std::string_view s, long long& out) {
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size() && out > 0;
  };
  bool ok = argc % 2 == 1;
  for (int i = 1; ok && i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    ok = flag == "--events" ? parse(argv[i + 1], events)
                            : flag == "--repeat" && parse(argv[i + 1], repeat);
  }
  if (!ok) std::fprintf(stderr, "usage: %s [--events N] [--repeat K]\n", name);
  return ok;
}

// A file in the temporary directory named after `name` and this process; remove_trace() deletes
// it with the files SQLite keeps beside it.
inline std::string temp_trace(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          (name + "_" + std::to_string(::getpid()) + ".db"))
      .string();
}
inline void remove_trace(const std::string& path) {
  ts::store::discard_trace_files(path);
}

// Steps of 100 us on a trainer thread, each with a step zone and nine 8 us zones and kernels on
// the trainer and a device queue, committed every `commit` events as a capture does.
class LiveCapture {
 public:
  explicit LiveCapture(const std::string& path) : writer_(path, staged()) {
    writer_.put_string(1, "fwd");
    writer_.put_string(2, "gemm");
    writer_.put_string(3, "step");
    writer_.put_label(1, 1, trace::Category::host_compute);
    writer_.put_label(2, 2, trace::Category::kernel);
    writer_.put_label(3, 3, trace::Category::step);
    writer_.put_track(1, "trainer", trace::TrackKind::thread, 1);
    writer_.put_track(2, "gpu0", trace::TrackKind::device_queue);
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
  static store::WriterOptions staged() {
    store::WriterOptions o;
    o.staged = true;
    return o;
  }
  void flush(std::vector<EventRow>& rows) {
    writer_.append(std::span<const EventRow>(rows));
    writer_.commit();
    rows.clear();
  }

  store::Writer writer_;
  std::int64_t now_ = 1'000'000'000;
  std::int64_t step_ = 0;
};

}  // namespace ts::bench
