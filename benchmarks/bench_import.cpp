// Imports trace files with ts::import (what `trainscope import` does) and prints the figures of
// the importer's speed and memory targets: MB/s of JSON, events/s, peak RSS and its ratio to the
// JSON size. benchmarks/import/bench_import.sh runs it on a ~350 MB real-shaped trace.
//
//   bench_import [--threads N] [--repeat N] OUT.db FILE_OR_DIR...
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "profiler/import/import.hpp"

int main(int argc, char** argv) {
  ts::import::ImportOptions options;
  int repeat = 1;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--threads" && i + 1 < argc) {
      options.threads = std::atoi(argv[++i]);
    } else if (a == "--repeat" && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--step-marker" && i + 1 < argc) {
      options.step_marker = argv[++i];
    } else {
      args.push_back(a);
    }
  }
  if (args.size() < 2) {
    std::fprintf(stderr, "usage: bench_import [--threads N] [--repeat N] OUT.db FILE_OR_DIR...\n");
    return 2;
  }
  const std::string out = args[0];
  const std::vector<std::string> sources(args.begin() + 1, args.end());
  double best = 1e100;
  ts::import::ImportStats stats;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    try {
      stats = ts::import::import_traces(sources, out, options);
    } catch (const ts::import::ImportError& e) {
      std::fprintf(stderr, "bench_import: %s\n", e.what());
      return 2;
    }
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double rss_mb = static_cast<double>(ru.ru_maxrss) / 1024.0;  // Linux: KiB
  const double json_mb = static_cast<double>(stats.bytes) / 1e6;
  std::printf(
      "imported %.1f MB of JSON (%llu events read, %llu written) in %.3f s: %.0f MB/s, "
      "%.2f M events/s; peak RSS %.1f MB = %.2f x the JSON\n",
      json_mb, static_cast<unsigned long long>(stats.events_read),
      static_cast<unsigned long long>(stats.events_written), best, json_mb / best,
      static_cast<double>(stats.events_read) / best / 1e6, rss_mb, rss_mb * 1.048576 / json_mb);
  std::printf("steps: %s\n", stats.steps_source.c_str());
  for (const auto& [reason, n] : stats.skipped)
    std::printf("skipped %s: %llu\n", reason.c_str(), static_cast<unsigned long long>(n));
  std::printf(
      "{\"seconds\": %.4f, \"mb_per_s\": %.1f, \"events_per_s\": %.0f, \"peak_rss_mb\": %.1f, "
      "\"rss_ratio\": %.3f, \"json_bytes\": %llu}\n",
      best, json_mb / best, static_cast<double>(stats.events_read) / best, rss_mb,
      rss_mb * 1.048576 / json_mb, static_cast<unsigned long long>(stats.bytes));
  return 0;
}
