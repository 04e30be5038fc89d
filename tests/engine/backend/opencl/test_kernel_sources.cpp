// The kernels/*.cl files embedded at build time, and the TRAINSCOPE_KERNEL_DIR override.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kernels/kernel_sources.hpp"

#ifndef TS_KERNEL_SOURCE_DIR
#error "TS_KERNEL_SOURCE_DIR must name the kernels/ source directory"
#endif

namespace ts::kernels {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Sets TRAINSCOPE_KERNEL_DIR for the scope of one test.
class KernelDirOverride {
 public:
  explicit KernelDirOverride(const std::string& dir) {
    setenv("TRAINSCOPE_KERNEL_DIR", dir.c_str(), 1);
  }
  ~KernelDirOverride() { unsetenv("TRAINSCOPE_KERNEL_DIR"); }
};

TEST(KernelSources, EmbeddedFilesEqualTheFilesOnDisk) {
  std::vector<std::string> on_disk;
  for (const auto& entry : fs::directory_iterator(TS_KERNEL_SOURCE_DIR))
    if (entry.path().extension() == ".cl") on_disk.push_back(entry.path().filename().string());
  std::sort(on_disk.begin(), on_disk.end());
  ASSERT_FALSE(on_disk.empty());
  EXPECT_EQ(kernel_file_names(), on_disk);
  for (const auto& name : on_disk) {
    SCOPED_TRACE(name);
    EXPECT_EQ(embedded_kernel_source(name), read_file(fs::path(TS_KERNEL_SOURCE_DIR) / name));
    EXPECT_EQ(kernel_source(name), embedded_kernel_source(name));
  }
}

TEST(KernelSources, EveryFamilyIsEmbedded) {
  const auto names = kernel_file_names();
  for (const char* family : {"common.cl", "convert.cl", "elementwise.cl", "softmax_xent.cl",
                             "reduce.cl", "conv.cl", "pool.cl", "dropout.cl", "optimizer.cl"})
    EXPECT_NE(std::find(names.begin(), names.end(), family), names.end()) << family;
}

TEST(KernelSources, UnknownEmbeddedFileThrows) {
  EXPECT_THROW(embedded_kernel_source("nope.cl"), KernelSourceError);
}

TEST(KernelSources, OverrideDirectoryIsReadInstead) {
  const fs::path dir = fs::temp_directory_path() / "ts_kernel_override_test";
  fs::create_directories(dir);
  std::ofstream(dir / "elementwise.cl") << "// edited copy\n";
  KernelDirOverride override(dir.string());
  EXPECT_EQ(kernel_source_override_dir(), dir.string());
  EXPECT_EQ(kernel_source("elementwise.cl"), "// edited copy\n");
  fs::remove_all(dir);
}

TEST(KernelSources, MissingOverrideFileGivesAClearError) {
  const fs::path dir = fs::temp_directory_path() / "ts_kernel_override_empty";
  fs::create_directories(dir);
  KernelDirOverride override(dir.string());
  try {
    kernel_source("pool.cl");
    FAIL() << "expected KernelSourceError";
  } catch (const KernelSourceError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("pool.cl"), std::string::npos) << message;
    EXPECT_NE(message.find("TRAINSCOPE_KERNEL_DIR"), std::string::npos) << message;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ts::kernels
