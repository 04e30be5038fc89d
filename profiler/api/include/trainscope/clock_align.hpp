// Device-to-host clock alignment. A backend measures pairs (device_ns, host_ns) — the device's
// timestamp of a marker and ts::trace::now_ns() around the moment it was taken — at several
// points (at start, then every few seconds in long runs), and converts device timestamps with a
// least-squares line: host = host_ref + slope * (device - device_ref). slope - 1 is the drift.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trainscope/trace.hpp"

namespace ts::trace {

struct ClockFit {
  std::int64_t device_ref = 0;  // a device time near the middle of the pairs
  std::int64_t host_ref = 0;    // the host time it maps to
  double slope = 1.0;           // host nanoseconds per device nanosecond
  double max_residual_ns = 0;   // worst |measured host - fitted host| over the pairs
  int pairs = 0;

  std::int64_t to_host(std::int64_t device_ns) const {
    const double d = static_cast<double>(device_ns - device_ref);
    return host_ref + std::llround(slope * d);
  }
  // host - device at device_ref: the offset to add to a device time (before drift).
  std::int64_t offset_ns() const { return host_ref - device_ref; }
  double drift_ppm() const { return (slope - 1.0) * 1e6; }
};

// Keeps the last `window` pairs, so a re-fit during a long run follows the current drift.
class ClockAligner {
 public:
  explicit ClockAligner(std::size_t window = 64) : window_(window == 0 ? 1 : window) {}

  void add(std::int64_t device_ns, std::int64_t host_ns) {
    if (pairs_.size() == window_) pairs_.erase(pairs_.begin());
    pairs_.push_back({device_ns, host_ns});
  }
  std::size_t size() const { return pairs_.size(); }

  // With one pair: a pure offset. With more: the least-squares line through them. Differences
  // are taken from the first pair before going to double, so 64-bit epoch-based device clocks
  // keep nanosecond precision.
  ClockFit fit() const {
    ClockFit f;
    f.pairs = static_cast<int>(pairs_.size());
    if (pairs_.empty()) return f;
    const Pair& p0 = pairs_.front();
    double mx = 0, my = 0;
    for (const Pair& p : pairs_) {
      mx += static_cast<double>(p.device - p0.device);
      my += static_cast<double>(p.host - p0.host);
    }
    const double n = static_cast<double>(pairs_.size());
    mx /= n;
    my /= n;
    double sxx = 0, sxy = 0;
    for (const Pair& p : pairs_) {
      const double dx = static_cast<double>(p.device - p0.device) - mx;
      const double dy = static_cast<double>(p.host - p0.host) - my;
      sxx += dx * dx;
      sxy += dx * dy;
    }
    f.slope = sxx > 0 ? sxy / sxx : 1.0;
    const std::int64_t rx = std::llround(mx);
    f.device_ref = p0.device + rx;
    f.host_ref = p0.host + std::llround(my + f.slope * (static_cast<double>(rx) - mx));
    for (const Pair& p : pairs_) {
      const double r = std::fabs(static_cast<double>(p.host - f.to_host(p.device)));
      if (r > f.max_residual_ns) f.max_residual_ns = r;
    }
    return f;
  }

 private:
  struct Pair {
    std::int64_t device;
    std::int64_t host;
  };
  std::size_t window_;
  std::vector<Pair> pairs_;
};

// Stores a device's calibration in the trace's meta table under clock.device.<name>.*.
inline void record_clock_alignment(std::string_view device, const ClockFit& fit) {
  const std::string k = "clock.device." + std::string(device) + ".";
  set_meta(k + "offset_ns", std::to_string(fit.offset_ns()));
  set_meta(k + "drift_ppm", std::to_string(fit.drift_ppm()));
  set_meta(k + "device_ref_ns", std::to_string(fit.device_ref));
  set_meta(k + "host_ref_ns", std::to_string(fit.host_ref));
  set_meta(k + "max_residual_ns", std::to_string(fit.max_residual_ns));
  set_meta(k + "pairs", std::to_string(fit.pairs));
}

}  // namespace ts::trace
