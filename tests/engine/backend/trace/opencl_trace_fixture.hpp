// The OpenCL backend the trace tests share (one per process: CLBlast's warm-up is slow on PoCL).
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "engine/backend/opencl/opencl_backend_impl.hpp"

namespace ts::test {

// The backend on device 0, created on first use; nullptr when there is no OpenCL device.
ocl::OpenClBackend* traced_opencl_backend();

#define TS_TRACE_REQUIRE_OPENCL()                                                          \
  do {                                                                                     \
    if (::ts::test::traced_opencl_backend() == nullptr)                                    \
      GTEST_SKIP() << "no OpenCL device: list_opencl_devices() is empty, nothing to test"; \
  } while (0)

// A tensor's contents as floats (F32 only).
std::vector<float> download_f32(Backend& backend, const Tensor& t);

}  // namespace ts::test
