#include "engine/backend/cpu/cpu_buffer.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

#include "engine/backend/cpu/cpu_memory_counter.hpp"

namespace ts::cpu {

std::byte* aligned_bytes(std::size_t bytes) {
  // std::aligned_alloc needs a size that is a multiple of the alignment; never ask for 0.
  const std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* p = std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
  if (!p) throw std::bad_alloc();
  return static_cast<std::byte*>(p);
}

void free_aligned(std::byte* p) {
  std::free(p);
}

CpuBuffer::CpuBuffer(std::size_t bytes, const void* owner)
    : Buffer(bytes), data_(aligned_bytes(bytes)), owner_(owner) {
  count_tensor_bytes(static_cast<std::int64_t>(bytes));  // counted once allocated
#ifndef NDEBUG
  // Debug builds: all-ones bytes read as NaN (f32, f16) or -1 (i32), so reads of memory that
  // was never written show up quickly.
  std::memset(data_, 0xff, bytes);
#endif
}

CpuBuffer::~CpuBuffer() {
  free_aligned(data_);
  count_tensor_bytes(-static_cast<std::int64_t>(bytes()));
}

void Scratch::grow(std::size_t n) {
  std::byte* fresh = aligned_bytes(n * sizeof(float));
  free_aligned(reinterpret_cast<std::byte*>(data_));
  data_ = reinterpret_cast<float*>(fresh);
  size_ = n;
}

}  // namespace ts::cpu
