// TRAINSCOPE_KERNEL_DIR with the OpenCL backend: edited kernels are used, a missing file or a
// kernel that does not compile gives a BackendError that says so.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/backend/opencl/opencl_backend.hpp"
#include "kernels/kernel_sources.hpp"

namespace ts {
namespace {

namespace fs = std::filesystem;

class OpenClKernelDir : public ::testing::Test {
 protected:
  void SetUp() override {
    if (list_opencl_devices().empty())
      GTEST_SKIP() << "no OpenCL device: list_opencl_devices() is empty";
    dir_ = fs::temp_directory_path() /
           ("ts_opencl_kernel_dir_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    for (const auto& name : kernels::kernel_file_names())
      std::ofstream(dir_ / name, std::ios::binary) << kernels::embedded_kernel_source(name);
    setenv("TRAINSCOPE_KERNEL_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("TRAINSCOPE_KERNEL_DIR");
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  void replace_in(const std::string& file, const std::string& from, const std::string& to) {
    std::string text = kernels::embedded_kernel_source(file);
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    std::ofstream(dir_ / file, std::ios::binary) << text;
  }
  fs::path dir_;
};

TEST_F(OpenClKernelDir, EditedKernelIsUsed) {
  replace_in("elementwise.cl", "v > 0.0f ? v : 0.0f", "v > 0.0f ? v : 7.0f");
  auto backend = make_opencl_backend(0);
  Tensor x = backend->alloc(Shape{2}, DType::F32);
  const float in[2] = {-1.0f, 2.0f};
  backend->upload(x, in);
  backend->relu(x, x);
  float out[2];
  backend->download(x, out);
  EXPECT_EQ(out[0], 7.0f);
  EXPECT_EQ(out[1], 2.0f);
}

TEST_F(OpenClKernelDir, MissingFileIsABackendError) {
  fs::remove(dir_ / "pool.cl");
  try {
    make_opencl_backend(0);  // every family is built when the backend is created
    FAIL() << "expected BackendError";
  } catch (const BackendError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("pool.cl"), std::string::npos) << message;
    EXPECT_NE(message.find("TRAINSCOPE_KERNEL_DIR"), std::string::npos) << message;
  }
}

TEST_F(OpenClKernelDir, BuildErrorCarriesTheBuildLog) {
  replace_in("dropout.cl", "const float m =", "const float m = undefined_name +");
  try {
    make_opencl_backend(0);
    FAIL() << "expected BackendError";
  } catch (const BackendError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("dropout.cl"), std::string::npos) << message;
    EXPECT_NE(message.find("undefined_name"), std::string::npos) << message;  // from the log
  }
}

TEST_F(OpenClKernelDir, HalfVariantBuildErrorSurfacesOnFirstUse) {
  // Only the f16 variant is broken: creation succeeds, the first f16 relu reports the log.
  replace_in("elementwise.cl", "const float v = LOAD_X(x, x_off + i);",
             "const float v = LOAD_X(x, x_off + i);\n#if X_TYPE == TS_F16\n  broken_f16;\n#endif");
  auto backend = make_opencl_backend(0);
  Tensor x = backend->alloc(Shape{4}, DType::F16);
  backend->fill(x, 1.0f);
  try {
    backend->relu(x, x);
    FAIL() << "expected BackendError";
  } catch (const BackendError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("elementwise.cl"), std::string::npos) << message;
    EXPECT_NE(message.find("X_TYPE=1"), std::string::npos) << message;
    EXPECT_NE(message.find("broken_f16"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace ts
