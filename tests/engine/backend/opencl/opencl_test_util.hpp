// Shared by the OpenCL backend tests: one OpenCL and one CPU backend per test process, tensors
// mirrored in both, and comparisons of their contents.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/backend/backend.hpp"
#include "engine/core/rng.hpp"

namespace ts::test {

// The OpenCL backend on device 0, created on first use; nullptr when there is no OpenCL device.
Backend* opencl_backend();
// The CPU backend (the reference), created on first use.
Backend& cpu_backend();

// Skips the test when there is no OpenCL device (e.g. OCL_ICD_VENDORS=/nonexistent).
#define TS_REQUIRE_OPENCL()                                                                \
  do {                                                                                     \
    if (!::ts::test::opencl_backend())                                                     \
      GTEST_SKIP() << "no OpenCL device: list_opencl_devices() is empty, nothing to test"; \
  } while (0)

// A tensor with the same contents in both backends. It is a view `offset` elements into a
// larger buffer whose other elements (guard) hold a sentinel, to catch reads/writes outside it.
struct Mirrored {
  Tensor cpu, ocl;
  Tensor cpu_base, ocl_base;  // the whole buffers
};

// values are rounded to dtype (F16) or truncated (I32). guard elements before and after.
Mirrored mirror(const Shape& shape, DType dtype, const std::vector<float>& values,
                std::size_t offset = 3, std::size_t guard_after = 5);
// Uninitialised contents (filled with the sentinel in both).
Mirrored mirror_empty(const Shape& shape, DType dtype, std::size_t offset = 3,
                      std::size_t guard_after = 5);

// Contents as floats (F16 widened, I32 converted).
std::vector<float> read(Backend& backend, const Tensor& t);

std::vector<float> random_values(std::size_t n, std::uint64_t seed, float lo = -1.0f,
                                 float hi = 1.0f);
std::vector<float> random_labels(std::size_t n, int classes, std::uint64_t seed);

// Expects the OpenCL tensor to match the CPU one element by element within
// atol + rtol * |cpu|, and the guard elements of both buffers to be untouched.
void expect_close(const Mirrored& t, double rtol, double atol, const std::string& what);
// Bit-exact (NaN equals NaN).
void expect_equal(const Mirrored& t, const std::string& what);

// Tolerances for a result stored as dtype and computed in f32.
inline double storage_rtol(DType t, double f32_rtol) {
  return t == DType::F16 ? 2e-3 : f32_rtol;
}

std::string dtype_label(DType t);

}  // namespace ts::test
