#include "profiler/capture/core/ring.hpp"

#include <bit>

namespace ts::trace::core {

namespace {
std::uint64_t ring_size(std::uint32_t requested) {
  const std::uint64_t n = requested < 8 ? 8 : requested;
  return std::bit_ceil(n);
}
}  // namespace

SpscRing::SpscRing(std::uint32_t capacity)
    : mask_(ring_size(capacity) - 1), slots_(new Event[ring_size(capacity)]) {}

}  // namespace ts::trace::core
