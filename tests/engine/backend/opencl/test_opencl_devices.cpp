// Device enumeration, backend identity and creation errors.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "engine/backend/opencl/opencl_backend.hpp"

namespace ts {
namespace {

TEST(OpenClDevices, ListIsNumberedAndDescribed) {
  const auto devices = list_opencl_devices();
  if (devices.empty()) GTEST_SKIP() << "no OpenCL device: list_opencl_devices() is empty";
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const DeviceInfo& d = devices[i];
    EXPECT_EQ(d.index, static_cast<int>(i));
    EXPECT_FALSE(d.platform.empty());
    EXPECT_FALSE(d.name.empty());
    EXPECT_EQ(d.version.rfind("OpenCL ", 0), 0u) << d.version;
    EXPECT_TRUE(d.type == "gpu" || d.type == "cpu" || d.type == "accelerator" || d.type == "custom")
        << d.type;
    EXPECT_GT(d.global_memory_bytes, 0u);
    EXPECT_GT(d.compute_units, 0);
  }
}

TEST(OpenClDevices, PoclCpuDeviceHasNoFp16) {
  bool found = false;
  for (const DeviceInfo& d : list_opencl_devices()) {
    if (d.platform.find("Portable Computing Language") == std::string::npos) continue;
    found = true;
    EXPECT_EQ(d.type, "cpu");
    EXPECT_FALSE(d.fp16) << d.name;  // PoCL's CPU device lacks cl_khr_fp16
    EXPECT_GE(d.compute_units, 1);
  }
  if (!found) GTEST_SKIP() << "no PoCL device here";
}

TEST(OpenClDevices, MissingDeviceThrowsBackendError) {
  EXPECT_THROW(make_opencl_backend(99), BackendError);
  EXPECT_THROW(make_opencl_backend(-1), BackendError);
  try {
    make_opencl_backend(99);
  } catch (const BackendError& e) {
    EXPECT_NE(std::string(e.what()).find("99"), std::string::npos) << e.what();
  }
}

TEST(OpenClDevices, BackendIdentityMatchesTheDevice) {
  const auto devices = list_opencl_devices();
  if (devices.empty()) GTEST_SKIP() << "no OpenCL device: list_opencl_devices() is empty";
  const auto start = std::chrono::steady_clock::now();
  auto backend = make_opencl_backend(0);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("make_opencl_backend(0) with CLBlast warm-up: %.3f s\n", seconds);
  EXPECT_EQ(backend->kind(), "opencl");
  EXPECT_EQ(backend->device_name(), devices[0].name);
  EXPECT_EQ(backend->native_fp16(), devices[0].fp16);
}

TEST(OpenClDevices, TwoBackendsCoexist) {
  if (list_opencl_devices().empty()) GTEST_SKIP() << "no OpenCL device";
  auto first = make_opencl_backend(0);
  auto second = make_opencl_backend(0);
  Tensor a = first->alloc(Shape{3}, DType::F32);
  Tensor b = second->alloc(Shape{3}, DType::F32);
  const float values[3] = {1.0f, -2.0f, 3.0f};
  first->upload(a, values);
  second->upload(b, values);
  first->relu(a, a);
  EXPECT_THROW(second->relu(a, b), BackendError);  // a belongs to the first backend
  float out[3];
  first->download(a, out);
  EXPECT_EQ(out[1], 0.0f);
  // Buffers may outlive their backend.
  first.reset();
  a = Tensor{};
}

}  // namespace
}  // namespace ts
