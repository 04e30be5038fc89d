// The trainscope binary as a user runs it: results, summary JSON, and bad input.
#include <gtest/gtest.h>

#include "run_command.hpp"

namespace ts::test {
namespace {

TEST(TrainCommand, TrainsAndWritesSummaryJson) {
  const std::string summary = "/tmp/ts_cli_summary_" + std::to_string(getpid()) + ".json";
  const auto r = run_trainscope(
      "train --dataset synthetic:1200 --epochs 2 --backend cpu "
      "--summary-json " +
      summary);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Epoch 2/2"), std::string::npos) << r.out;
  const std::string json = read_file(summary);
  std::remove(summary.c_str());
  EXPECT_EQ(json.rfind("{\"epochs\":[{\"loss\":", 0), 0u) << json;
  EXPECT_NE(json.find("\"samples_per_s\":"), std::string::npos);
  EXPECT_NE(json.find("\"backend\":\"cpu\""), std::string::npos);
  EXPECT_NE(json.find("\"device\":\""), std::string::npos);
  EXPECT_EQ(std::count(json.begin(), json.end(), '}'), 4);  // two epochs, the pipeline, the whole
  EXPECT_NE(json.find("\"pipeline\":{\"preset\":\"tuned\""), std::string::npos) << json;
}

TEST(TrainCommand, QuietPrintsNothing) {
  const auto r = run_trainscope("train --dataset synthetic:100 --epochs 1 --backend cpu --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
}

void expect_usage_error(const std::string& args, const std::string& needle,
                        const std::string& env = "") {
  const auto r = run_trainscope(args, env);
  EXPECT_EQ(r.status, 2) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\n" << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
}

TEST(TrainCommand, BadInputIsOneClearLineAndExit2) {
  expect_usage_error("train --bogus", "--bogus");
  expect_usage_error("train --epochs zero", "--epochs");
  expect_usage_error("train --model resnet", "--model");
  expect_usage_error("train --dataset nope", "nope");
  expect_usage_error("train --dataset idx:/nonexistent/a,/nonexistent/b --backend cpu",
                     "/nonexistent/a");
  expect_usage_error("train --dataset synthetic:0", "synthetic");
  expect_usage_error("frobnicate", "unknown command");
  expect_usage_error("synth --kineto-job job --steps 2 --rank-mb 1", "not both");
  expect_usage_error("synth --kineto-job job --ranks 0", "--ranks");
}

TEST(TrainCommand, CorruptIdxIsRejected) {
  const std::string images = "/tmp/ts_cli_corrupt_" + std::to_string(getpid());
  { std::ofstream(images) << "this is not an IDX file"; }
  expect_usage_error("train --dataset idx:" + images + "," + images + " --backend cpu", images);
  std::remove(images.c_str());
}

TEST(TrainCommand, OpenClWithoutDeviceFailsAndAutoFallsBack) {
  const std::string no_device = "OCL_ICD_VENDORS=/nonexistent-icd-dir";
  expect_usage_error("train --backend opencl --dataset synthetic:64 --epochs 1", "OpenCL",
                     no_device);
  const auto r =
      run_trainscope("train --backend auto --dataset synthetic:64 --epochs 1", no_device);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("using the CPU backend"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("Backend: cpu"), std::string::npos) << r.out;
}

TEST(DevicesCommand, ListsOrSaysNone) {
  const auto none = run_trainscope("devices", "OCL_ICD_VENDORS=/nonexistent-icd-dir");
  EXPECT_EQ(none.status, 0);
  EXPECT_NE(none.out.find("No OpenCL device"), std::string::npos) << none.out;
  const auto any = run_trainscope("devices");
  EXPECT_EQ(any.status, 0);
  EXPECT_TRUE(any.out.find("[0] ") != std::string::npos ||
              any.out.find("No OpenCL device") != std::string::npos)
      << any.out;
}

}  // namespace
}  // namespace ts::test
