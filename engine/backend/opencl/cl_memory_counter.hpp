// Device memory held by one backend (its tensors and scratch buffers), sampled into the trace
// as the counter track "device memory <device name>" whenever it changes while recording.
// Buffers share ownership of the counter: a tensor may outlive its backend, and may be freed
// on another thread than the one running the backend.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "trainscope/trace.hpp"

namespace ts::ocl {

class DeviceMemoryCounter {
 public:
  explicit DeviceMemoryCounter(std::string_view device_name)
      : track_(ts::trace::register_track("device memory " + std::string(device_name),
                                         ts::trace::TrackKind::counter)) {}

  // bytes > 0 on allocation, < 0 on release.
  void add(std::int64_t bytes) noexcept {
    const std::int64_t now = bytes_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    ts::trace::counter(track_, static_cast<double>(now));
  }
  // One sample of the current value (when a session starts, so the track has a start value).
  void sample() noexcept {
    ts::trace::counter(track_, static_cast<double>(bytes_.load(std::memory_order_relaxed)));
  }
  std::int64_t bytes() const noexcept { return bytes_.load(std::memory_order_relaxed); }
  std::uint32_t track() const noexcept { return track_; }

 private:
  std::uint32_t track_;
  std::atomic<std::int64_t> bytes_{0};
};

}  // namespace ts::ocl
