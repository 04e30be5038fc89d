// The cost of reading every event of a trace, per row: Reader::scan and Reader::scan_with_args
// (events with their arguments in one pass), against SQLite's own scan of the same event table
// (every row stepped and every column read, nothing done with them) in the same process. Prints
// the best of K runs of each and the ratios.
//
//   bench_scan [--events N] [--repeat K]   a synthetic trace, generated once into /tmp
//   bench_scan --trace FILE [--repeat K]   an existing trace (any schema version), only read
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>

#include "profiler/store/error.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/sqlite.hpp"
#include "profiler/synth/synth.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

bool parse_int(std::string_view s, long long& out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && out > 0;
}

// Best wall time of `repeat` runs of fn, which returns the rows it read.
template <class Fn>
double best_of(long long repeat, std::int64_t& rows, Fn&& fn) {
  double best = 1e30;
  for (long long k = 0; k < repeat; ++k) {
    const auto t0 = Clock::now();
    rows = fn();
    best = std::min(best, seconds_since(t0));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  long long events = 10'000'000, repeat = 3;
  std::string trace;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--events" && has_value && parse_int(argv[i + 1], events)) {
      ++i;
    } else if (a == "--repeat" && has_value && parse_int(argv[i + 1], repeat)) {
      ++i;
    } else if (a == "--trace" && has_value) {
      trace = argv[++i];
    } else {
      std::fprintf(stderr, "usage: bench_scan [--events N | --trace FILE] [--repeat K]\n");
      return 2;
    }
  }
  try {
    if (trace.empty()) {
      trace = (std::filesystem::temp_directory_path() /
               ("trainscope_bench_scan_" + std::to_string(events) + "_events.db"))
                  .string();
      if (!std::filesystem::exists(trace)) {
        ts::synth::SynthOptions options;
        options.target_events = events;
        ts::synth::write_synthetic_trace(trace, options);
      }
    }
    const ts::store::Reader reader(trace);
    std::int64_t rows = 0, with_args = 0, bare = 0;
    std::int64_t sink = 0;  // keeps the reads from being optimised away
    const double scan = best_of(repeat, rows, [&] {
      std::int64_t n = 0;
      reader.scan(kMin, kMax, 0, [&](const ts::store::Event& e) {
        sink += e.dur_ns;
        ++n;
      });
      return n;
    });
    const double scan_args = best_of(repeat, with_args, [&] {
      std::int64_t n = 0;
      reader.scan_with_args(kMin, kMax,
                            [&](const ts::store::Event& e, const ts::store::EventArgs& a) {
                              sink += e.dur_ns + a.correlation;
                              ++n;
                            });
      return n;
    });
    ts::store::Db db;
    db.open(trace, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, "cannot open trace");
    ts::store::Stmt all(db, "SELECT * FROM event", "cannot read trace");
    const int columns = sqlite3_column_count(all.get());
    const double sqlite = best_of(repeat, bare, [&] {
      std::int64_t n = 0;
      while (all.step()) {
        for (int c = 0; c < columns; ++c) sink += all.col_int(c);
        ++n;
      }
      all.reset();
      return n;
    });
    const auto per_row = [](double s, std::int64_t n) { return n > 0 ? s * 1e9 / n : 0.0; };
    std::printf("%s: schema version %d, %lld events\n", trace.c_str(), reader.schema_version(),
                static_cast<long long>(rows));
    std::printf("  Reader::scan            %7.1f ns a row (%.3f s)\n", per_row(scan, rows), scan);
    std::printf("  Reader::scan_with_args  %7.1f ns a row (%.3f s)\n",
                per_row(scan_args, with_args), scan_args);
    std::printf("  SQLite's own scan       %7.1f ns a row (%.3f s, %d columns)\n",
                per_row(sqlite, bare), sqlite, columns);
    std::printf("  scan / SQLite %.2fx, scan_with_args / SQLite %.2fx%s\n", scan / sqlite,
                scan_args / sqlite, sink == 42 ? " " : "");
  } catch (const ts::store::Error& e) {
    std::fprintf(stderr, "bench_scan: %s\n", e.what());
    return 1;
  }
  return 0;
}
