// A large real-shaped TensorFlow profile for the importer's benchmark: every line of every plane
// of IN repeated N times, each copy shifted after the previous one (the profile's span later), so
// the steps, threads, tf.data stages and ops of a real capture recur N times.
//
//   make_large_xplane IN.xplane.pb OUT.xplane.pb N
//   build/benchmarks/bench_import --repeat 3 /tmp/x.db OUT.xplane.pb
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "profiler/import/xplane/xplane.pb.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: make_large_xplane IN.xplane.pb OUT.xplane.pb N\n");
    return 2;
  }
  const int n = std::max(1, std::atoi(argv[3]));
  std::ifstream in(argv[1], std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  tensorflow::profiler::XSpace space;
  if (!space.ParseFromString(bytes)) {
    std::fprintf(stderr, "%s is not an XSpace\n", argv[1]);
    return 1;
  }
  // The span of the profile: the latest event end of any line, in ps from its line's start.
  std::int64_t span_ps = 0;
  for (const auto& plane : space.planes())
    for (const auto& line : plane.lines())
      for (const auto& e : line.events())
        span_ps = std::max(span_ps, e.offset_ps() + e.duration_ps());
  span_ps += 1000000;  // 1 us between copies
  for (auto& plane : *space.mutable_planes())
    for (auto& line : *plane.mutable_lines()) {
      const auto original = line.events();
      for (int k = 1; k < n; ++k)
        for (const auto& e : original) {
          auto* copy = line.add_events();
          *copy = e;
          copy->set_offset_ps(e.offset_ps() + k * span_ps);
        }
    }
  std::string out;
  if (!space.SerializeToString(&out)) {
    std::fprintf(stderr, "the result is too large for one protobuf message (2 GiB)\n");
    return 1;
  }
  std::ofstream(argv[2], std::ios::binary) << out;
  std::printf("%s: %zu bytes, %d copies of %s\n", argv[2], out.size(), n, argv[1]);
  return 0;
}
