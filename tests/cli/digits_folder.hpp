// A temporary folder holding the built-in digits written as an image folder (`trainscope
// make-dataset`), shared by a test suite's runs of `trainscope train`.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "run_command.hpp"

namespace ts::test {

class DigitsFolder {
 public:
  // A folder named after `tag` and this process, holding `samples` digits in `digits/`.
  DigitsFolder(const std::string& tag, int samples)
      : dir_(std::filesystem::temp_directory_path() / (tag + "_" + std::to_string(getpid()))) {
    std::filesystem::remove_all(dir_);
    const CommandResult r = run_trainscope(
        "make-dataset --from synthetic:" + std::to_string(samples) + " --to images:" + digits());
    EXPECT_EQ(r.status, 0) << r.err;
  }
  ~DigitsFolder() { std::filesystem::remove_all(dir_); }
  DigitsFolder(const DigitsFolder&) = delete;
  DigitsFolder& operator=(const DigitsFolder&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  std::string digits() const { return (dir_ / "digits").string(); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

 private:
  std::filesystem::path dir_;
};

}  // namespace ts::test
