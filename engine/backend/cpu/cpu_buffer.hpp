// Host memory for the CPU backend: 64-byte aligned buffers and growable scratch arrays.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/core/tensor.hpp"

namespace ts::cpu {

constexpr std::size_t kAlignment = 64;

// Aligned allocation of at least `bytes` bytes (never null; throws std::bad_alloc).
std::byte* aligned_bytes(std::size_t bytes);
void free_aligned(std::byte* p);

// A backend buffer: `bytes` bytes of 64-byte aligned host memory, tagged with the backend that
// made it so that tensors from another backend instance are rejected.
// Counted in the "host memory (tensors)" counter (cpu_memory_counter.hpp) while it lives.
class CpuBuffer final : public Buffer {
 public:
  CpuBuffer(std::size_t bytes, const void* owner);
  ~CpuBuffer() override;
  std::byte* data() const { return data_; }
  const void* owner() const { return owner_; }

 private:
  std::byte* data_;
  const void* owner_;
};

// A float array that only ever grows: reused scratch, so that hot paths do not allocate after
// the first call with a given size.
class Scratch {
 public:
  Scratch() = default;
  ~Scratch() { free_aligned(reinterpret_cast<std::byte*>(data_)); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  Scratch(Scratch&& o) noexcept : data_(o.data_), size_(o.size_) { o.data_ = nullptr, o.size_ = 0; }

  // At least n floats; contents are unspecified after growth.
  float* get(std::size_t n) {
    if (n > size_) grow(n);
    return data_;
  }

 private:
  void grow(std::size_t n);
  float* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace ts::cpu
