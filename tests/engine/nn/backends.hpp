// Backends shared by the nn tests: the CPU backend always, the OpenCL backend when a device
// exists (created once per test binary: CLBlast's kernel compilation is slow on PoCL).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "engine/backend/cpu/cpu_backend.hpp"
#include "engine/backend/factory.hpp"
#ifdef TRAINSCOPE_WITH_OPENCL
#include "engine/backend/opencl/opencl_backend.hpp"
#endif

namespace ts::test {

// Returns nullptr when the kind is unavailable here.
inline Backend* shared_backend(const std::string& kind) {
  if (kind == "cpu") {
    static auto cpu = make_cpu_backend(0);
    return cpu.get();
  }
#ifdef TRAINSCOPE_WITH_OPENCL
  static std::unique_ptr<Backend> cl = []() -> std::unique_ptr<Backend> {
    if (list_opencl_devices().empty()) return nullptr;
    return make_opencl_backend(0);
  }();
  return cl.get();
#else
  return nullptr;
#endif
}

#define TS_BACKEND_OR_SKIP(var, kind)              \
  Backend* var = ::ts::test::shared_backend(kind); \
  if (!var) GTEST_SKIP() << "no " << (kind) << " backend on this machine"

}  // namespace ts::test
