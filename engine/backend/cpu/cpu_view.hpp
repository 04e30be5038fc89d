// What the CPU kernels see of a tensor: a checked pointer, its dtype and element count, plus
// helpers that read and write F32/F16 storage in f32 blocks.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "engine/backend/cpu/cpu_half.hpp"
#include "engine/core/dtype.hpp"

namespace ts::cpu {

struct View {
  std::byte* data = nullptr;  // first element of the tensor (buffer start + byte_offset)
  DType dtype = DType::F32;
  std::int64_t numel = 0;

  float* f32() const { return reinterpret_cast<float*>(data); }
  std::uint16_t* f16() const { return reinterpret_cast<std::uint16_t*>(data); }
  std::int32_t* i32() const { return reinterpret_cast<std::int32_t*>(data); }
};

// Elements per block when F16 storage goes through f32 temporaries on the stack.
constexpr std::int64_t kBlock = 1024;

// Elements [begin, begin+len) of F32/F16 storage as f32: a pointer into v itself (F32) or
// into tmp after conversion (F16). len <= kBlock when tmp is a block buffer.
inline const float* load_f32(const View& v, std::int64_t begin, std::int64_t len, float* tmp) {
  if (v.dtype == DType::F32) return v.f32() + begin;
  halves_to_floats(v.f16() + begin, tmp, len);
  return tmp;
}

// Where f32 results for elements starting at begin should be written: v itself (F32) or tmp
// (F16; commit_f32 then rounds them into v).
inline float* out_f32(const View& v, std::int64_t begin, float* tmp) {
  return v.dtype == DType::F32 ? v.f32() + begin : tmp;
}

// Completes a write prepared with out_f32: rounds to f16 when v is F16 (nothing for F32).
inline void commit_f32(const View& v, std::int64_t begin, std::int64_t len, const float* values) {
  if (v.dtype == DType::F16) floats_to_halves(values, v.f16() + begin, len);
}

// Calls f(block_begin, block_len) for consecutive blocks of at most kBlock covering [begin, end).
template <class F>
inline void for_blocks(std::int64_t begin, std::int64_t end, F&& f) {
  for (std::int64_t b = begin; b < end; b += kBlock) f(b, std::min(kBlock, end - b));
}

}  // namespace ts::cpu
