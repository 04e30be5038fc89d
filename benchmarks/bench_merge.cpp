// Merging a data-parallel job's per-rank parts into one trace (profiler/store/merge.hpp):
//
//   build/benchmarks/bench_merge [--parts N] [--events-per-part N] [--dir DIR]
//
// Generates N realistic parts (profiler/synth, a different seed per rank; kept in DIR and reused),
// then merges them and reports the wall time, events/s, the merged file's size and the peak RSS
// of the merge (the k-way merge streams: memory grows with the parts, not their events).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "profiler/store/merge.hpp"
#include "profiler/synth/synth.hpp"

namespace {

long rss_kib(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field, 0) == 0) return std::atol(line.c_str() + std::string(field).size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int parts = 8;
  std::int64_t events = 500'000;
  std::string dir = "/tmp/ts_bench_merge";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--parts")
      parts = std::atoi(argv[i + 1]);
    else if (k == "--events-per-part")
      events = std::atoll(argv[i + 1]);
    else if (k == "--dir")
      dir = argv[i + 1];
    else {
      std::fprintf(stderr, "bench_merge: unknown option %s\n", k.c_str());
      return 2;
    }
  }
  std::filesystem::create_directories(dir);
  std::vector<ts::store::MergePart> list;
  std::int64_t total = 0;
  for (int r = 0; r < parts; ++r) {
    const std::string path =
        dir + "/part" + std::to_string(r) + "_" + std::to_string(events) + ".db";
    ts::synth::SynthOptions o;
    o.target_events = events;
    o.seed = static_cast<std::uint64_t>(r + 1);
    if (!std::filesystem::exists(path)) {
      std::printf("generating %s\n", path.c_str());
      total += ts::synth::write_synthetic_trace(path, o).events;
    } else {
      total += (events + ts::synth::events_per_step(o) - 1) / ts::synth::events_per_step(o) *
               ts::synth::events_per_step(o);
    }
    ts::store::MergePart p;
    p.path = path;
    p.name = "rank " + std::to_string(r);
    p.rank = r;
    p.meta_prefix = "rank." + std::to_string(r) + ".";
    list.push_back(p);
  }
  std::ofstream("/proc/self/clear_refs") << "5";  // the peak RSS from here on
  const long rss_before = rss_kib("VmRSS:");
  const std::string out = dir + "/merged.db";
  const auto t0 = std::chrono::steady_clock::now();
  const ts::store::MergeResult r = ts::store::merge_traces(list, out);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "merged %d parts, %llu events (%lld expected) in %.2f s: %.2f M events/s; "
      "%.1f MiB out; peak RSS %.1f MiB (%.1f MiB before the merge)\n",
      parts, static_cast<unsigned long long>(r.events), static_cast<long long>(total), s,
      static_cast<double>(r.events) / s / 1e6,
      static_cast<double>(std::filesystem::file_size(out)) / (1 << 20),
      static_cast<double>(rss_kib("VmHWM:")) / 1024, static_cast<double>(rss_before) / 1024);
  std::filesystem::remove(out);
  return 0;
}
