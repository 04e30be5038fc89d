// Helpers for the CPU backend tests: tensors placed at a non-zero offset inside a guarded
// buffer (so every op is exercised on views and out-of-range writes are caught), random data,
// and reading results back as floats.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "engine/backend/backend.hpp"
#include "engine/backend/cpu/cpu_backend.hpp"
#include "engine/core/dtype.hpp"
#include "engine/core/rng.hpp"

namespace ts::test {

constexpr std::uint8_t kGuardByte = 0x5a;
constexpr std::size_t kOffset = 3;  // elements before each test tensor in its buffer

// One backend per test binary, using every core.
inline Backend& cpu() {
  static std::unique_ptr<Backend> backend = make_cpu_backend(0);
  return *backend;
}

// A tensor of `shape` and `dtype` at element `offset` of a buffer whose other bytes are
// kGuardByte; holds `values` (rounded to dtype) when given.
inline Tensor make(Backend& be, const Shape& shape, DType dtype,
                   const std::vector<float>& values = {}, std::size_t offset = kOffset) {
  const std::size_t size = dtype_size(dtype);
  const auto numel = static_cast<std::size_t>(shape.numel());
  const std::size_t words = ((offset + numel + 7) * size + 3) / 4;
  Tensor whole = be.alloc(Shape{static_cast<std::int64_t>(words)}, DType::I32);
  std::vector<std::uint8_t> guard(words * 4, kGuardByte);
  be.upload(whole, guard.data());
  Tensor t = whole;
  t.shape = shape;
  t.dtype = dtype;
  t.offset = offset;
  if (!values.empty()) {
    EXPECT_EQ(values.size(), numel);
    std::vector<std::uint8_t> host(numel * size);
    for (std::size_t i = 0; i < numel; ++i) {
      if (dtype == DType::F32) {
        std::memcpy(&host[i * 4], &values[i], 4);
      } else if (dtype == DType::F16) {
        const std::uint16_t h = float_to_half(values[i]);
        std::memcpy(&host[i * 2], &h, 2);
      } else {
        const auto v = static_cast<std::int32_t>(values[i]);
        std::memcpy(&host[i * 4], &v, 4);
      }
    }
    be.upload(t, host.data());
  }
  return t;
}

inline Tensor make_i32(Backend& be, const Shape& shape, const std::vector<std::int32_t>& values) {
  Tensor t = make(be, shape, DType::I32);
  be.upload(t, values.data());
  return t;
}

// The tensor's elements as floats (F16 widened, I32 converted).
inline std::vector<float> read(Backend& be, const Tensor& t) {
  const auto n = static_cast<std::size_t>(t.numel());
  std::vector<std::uint8_t> host(t.bytes());
  be.download(t, host.data());
  std::vector<float> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (t.dtype == DType::F32) {
      std::memcpy(&out[i], &host[i * 4], 4);
    } else if (t.dtype == DType::F16) {
      std::uint16_t h;
      std::memcpy(&h, &host[i * 2], 2);
      out[i] = half_to_float(h);
    } else {
      std::int32_t v;
      std::memcpy(&v, &host[i * 4], 4);
      out[i] = static_cast<float>(v);
    }
  }
  return out;
}

inline std::vector<std::int32_t> read_i32(Backend& be, const Tensor& t) {
  std::vector<std::int32_t> out(static_cast<std::size_t>(t.numel()));
  be.download(t, out.data());
  return out;
}

// True when every byte of t's buffer outside t itself still holds kGuardByte.
inline bool guards_intact(Backend& be, const Tensor& t) {
  Tensor whole = t;
  whole.dtype = DType::I32;
  whole.offset = 0;
  whole.shape = Shape{static_cast<std::int64_t>(t.buffer->bytes() / 4)};
  std::vector<std::uint8_t> bytes(whole.bytes());
  be.download(whole, bytes.data());
  const std::size_t begin = t.byte_offset(), end = begin + t.bytes();
  for (std::size_t i = 0; i < bytes.size(); ++i)
    if ((i < begin || i >= end) && bytes[i] != kGuardByte) return false;
  return true;
}

inline std::vector<float> random_values(std::size_t n, std::uint64_t seed, float lo = -1.0f,
                                        float hi = 1.0f) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = rng.uniform(lo, hi);
  return v;
}

// Allowed |got - want| for a result stored as dtype: f32 rounding noise, or half an f16 ulp
// plus noise.
inline float tolerance(DType dtype, double want, double f32_tol = 1e-5) {
  const double mag = std::max(1.0, std::fabs(want));
  return static_cast<float>(mag * (dtype == DType::F16 ? 1.5e-3 : f32_tol));
}

inline void expect_near_all(const std::vector<float>& got, const std::vector<double>& want,
                            DType dtype, double f32_tol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tolerance(dtype, want[i], f32_tol)) << "at element " << i;
}

inline const char* dtype_label(DType t) {
  return t == DType::F32 ? "F32" : "F16";
}

}  // namespace ts::test
