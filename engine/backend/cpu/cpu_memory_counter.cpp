#include "engine/backend/cpu/cpu_memory_counter.hpp"

#include <unistd.h>

#include <atomic>
#include <string>

#include "trainscope/trace.hpp"

namespace ts::cpu {

namespace {

std::atomic<std::int64_t> g_tensor_bytes{0};

std::uint32_t host_memory_track() {
  // Registered on first use (register_track takes a lock), then a plain read.
  static const std::uint32_t track =
      ts::trace::register_track(kHostMemoryTrack, ts::trace::TrackKind::counter);
  return track;
}

}  // namespace

void count_tensor_bytes(std::int64_t bytes) noexcept {
  const std::int64_t now = g_tensor_bytes.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  if (ts::trace::recording()) ts::trace::counter(host_memory_track(), static_cast<double>(now));
}

std::int64_t tensor_bytes() noexcept {
  return g_tensor_bytes.load(std::memory_order_relaxed);
}

std::int64_t host_memory_bytes() noexcept {
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_size > 0 ? static_cast<std::int64_t>(pages) * page_size : 0;
}

}  // namespace ts::cpu
