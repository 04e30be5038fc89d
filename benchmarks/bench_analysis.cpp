// Analysis of a 10 M-event trace (target ≤ 2 s): generates a synthetic trace
// once (cached in the working directory as bench_analysis_<N>_events.db), then times analyse() —
// opening the Reader included — a few times and prints the best and median wall times; then the
// same report kept in the trace (kept_report.hpp) read back, against analysing it.
//
//   bench_analysis [--events N] [--repeat K] [--threads T] [--print] [--json]
//   bench_analysis --trace FILE ...    an existing trace, never written to
//
// --threads sets AnalysisOptions::threads (0: automatic). --print / --json also write the text
// or JSON report of the last run, to check the figures make sense.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profiler/analysis/kept_report.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/store/error.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/synth/synth.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// CPU time of the process (all threads): on a shared machine the wall time of a
// single-threaded run inflates with the load, its CPU time does not.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

bool parse_int(std::string_view s, long long& out) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size() && out >= 0;
}

int usage() {
  std::fprintf(stderr,
               "usage: bench_analysis [--events N | --trace FILE] [--repeat K] [--threads T] "
               "[--print] [--json]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  long long events = 10'000'000, repeat = 3, threads = 0;
  std::string path;
  bool print = false, json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--events" && has_value) {
      if (!parse_int(argv[++i], events) || events == 0) return usage();
    } else if (a == "--repeat" && has_value) {
      if (!parse_int(argv[++i], repeat) || repeat == 0) return usage();
    } else if (a == "--trace" && has_value) {
      path = argv[++i];
    } else if (a == "--threads" && has_value) {
      if (!parse_int(argv[++i], threads)) return usage();
    } else if (a == "--print") {
      print = true;
    } else if (a == "--json") {
      json = true;
    } else {
      return usage();
    }
  }
  const bool generated = path.empty();
  if (generated) path = "bench_analysis_" + std::to_string(events) + "_events.db";

  try {
    // Reuse the cached trace when it holds what we would generate (an interrupted generation
    // leaves fewer events).
    if (generated &&
        (!std::filesystem::exists(path) || ts::store::Reader(path).event_count() < events)) {
      ts::synth::SynthOptions o;
      o.target_events = events;
      const auto t0 = Clock::now();
      const auto r = ts::synth::write_synthetic_trace(path, o);
      std::printf("generated %s: %lld events, %lld steps in %.2f s\n", path.c_str(),
                  static_cast<long long>(r.events), static_cast<long long>(r.steps),
                  seconds_since(t0));
    }

    std::vector<double> times, cpu;
    ts::analysis::Report report;
    ts::analysis::AnalysisOptions options;
    options.threads = static_cast<int>(threads);
    options.keep_gaps = false;  // as `report` analyses: the gaps counted, not listed
    for (long long i = 0; i < repeat; ++i) {
      const auto t0 = Clock::now();
      const double c0 = cpu_seconds();
      ts::store::Reader reader(path);
      report = ts::analysis::analyse(reader, options);
      times.push_back(seconds_since(t0));
      cpu.push_back(cpu_seconds() - c0);
    }
    std::sort(times.begin(), times.end());
    std::sort(cpu.begin(), cpu.end());
    const std::string threads_text = threads == 0 ? "auto" : std::to_string(threads);
    std::printf(
        "analyse %s (threads %s): %lld events, %lld steps; wall best %.3f s, median %.3f s; "
        "CPU best %.3f s (%.1f M events/s; target <= 2 s for 10 M events)\n",
        path.c_str(), threads_text.c_str(), static_cast<long long>(report.events),
        static_cast<long long>(report.steps), times.front(), times[times.size() / 2], cpu.front(),
        static_cast<double>(report.events) / times.front() / 1e6);
    // The same report kept in the trace and read back, as the next `report` or viewer of the
    // trace does (a generated trace keeps it; a --trace FILE only when it already does).
    if (generated) {
      const ts::store::Reader reader(path);
      if (!ts::analysis::kept_report(reader, options))
        ts::analysis::keep_report(reader, report, options);
    }
    std::vector<double> kept;
    for (long long i = 0; i < repeat; ++i) {
      const auto t0 = Clock::now();
      const ts::store::Reader reader(path);
      const std::optional<ts::analysis::Report> back = ts::analysis::kept_report(reader, options);
      if (!back || ts::analysis::to_json(*back) != ts::analysis::to_json(report)) break;
      kept.push_back(seconds_since(t0));
    }
    std::sort(kept.begin(), kept.end());
    if (!kept.empty())
      std::printf(
          "kept report read back (the same report): best %.3f s, %.1fx faster than analysing\n",
          kept.front(), times.front() / kept.front());
    if (print) std::fputs(ts::analysis::to_text(report).c_str(), stdout);
    if (json) std::fputs(ts::analysis::to_json(report).c_str(), stdout);
  } catch (const ts::store::Error& e) {
    std::fprintf(stderr, "bench_analysis: %s\n", e.what());
    return 2;
  }
  return 0;
}
