// Builds small traces with the store writer directly (no capture) for the store tests.
#pragma once

#include <string>
#include <vector>

#include "profiler/store/writer.hpp"

namespace ts::test {

// Labels 1..3: "fwd" host_compute, "gemm" kernel, "step" step. Tracks 1 (thread "main"),
// 2 (device queue "gpu0"), 3 (counter "fill").
inline void write_dictionary(store::Writer& w) {
  w.put_string(1, "fwd");
  w.put_string(2, "gemm");
  w.put_string(3, "step");
  w.put_string(4, "model.cpp");
  w.put_label(1, 1, trace::Category::host_compute, 4, 12);
  w.put_label(2, 2, trace::Category::kernel);
  w.put_label(3, 3, trace::Category::step);
  w.put_track(1, "main", trace::TrackKind::thread, 4242);
  w.put_track(2, "gpu0", trace::TrackKind::device_queue);
  w.put_track(3, "fill", trace::TrackKind::counter);
  w.put_meta("clock.origin_ns", "1000000000");
}

// `steps` steps of 1 ms from t = 1 s; in each: a step event on track 1, five 100 us "fwd"
// zones on track 1 and five 50 us "gemm" kernels (work size 64, correlation = step) on track 2.
inline std::vector<store::EventRow> step_rows(int steps) {
  std::vector<store::EventRow> rows;
  const std::int64_t t0 = 1'000'000'000;
  for (int s = 0; s < steps; ++s) {
    const std::int64_t base = t0 + std::int64_t{s} * 1'000'000;
    rows.push_back({base, 1'000'000, 1, 3, s});
    for (int k = 0; k < 5; ++k) {
      rows.push_back({base + 10'000 + k * 150'000, 100'000, 1, 1, s, 1024});
      rows.push_back({base + 20'000 + k * 150'000, 50'000, 2, 2, s, store::kNull, 64, s});
    }
  }
  return rows;
}

}  // namespace ts::test
