// `trainscope train` with the input-pipeline flags: presets, overrides, image folders, bad
// samples, and Ctrl-C.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "child_process.hpp"
#include "digits_folder.hpp"
#include "run_command.hpp"

namespace ts {
namespace {

using test::run_trainscope;
namespace fs = std::filesystem;

class TrainPipeline : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { data_ = new test::DigitsFolder("ts_train_pipe", 300); }
  static void TearDownTestSuite() {
    delete data_;
    data_ = nullptr;
  }
  static std::string digits() { return data_->digits(); }
  static test::DigitsFolder* data_;
};
test::DigitsFolder* TrainPipeline::data_ = nullptr;

TEST_F(TrainPipeline, NaiveAndTunedTrainTheSameModelOnAnImageFolder) {
  const std::string base = "train --backend cpu --epochs 2 --dataset images:" + digits();
  const std::string naive_json = data_->file("naive.json");
  const std::string tuned_json = data_->file("tuned.json");
  const auto naive = run_trainscope(base + " --pipeline naive --summary-json " + naive_json);
  ASSERT_EQ(naive.status, 0) << naive.err;
  EXPECT_NE(naive.out.find("Pipeline: naive (parallel 0, prefetch 0, cache none"),
            std::string::npos)
      << naive.out;
  const auto tuned = run_trainscope(base + " --pipeline tuned --summary-json " + tuned_json);
  ASSERT_EQ(tuned.status, 0) << tuned.err;
  EXPECT_NE(tuned.out.find("parallel auto, prefetch auto, cache memory"), std::string::npos);
  const std::string a = test::read_file(naive_json), b = test::read_file(tuned_json);
  // Same seed, same batches: the same losses, whatever the pipeline.
  const auto losses = [](const std::string& json) {
    std::string out;  // every "loss":X and "accuracy":X, in order
    for (const char* key : {"\"loss\":", "\"accuracy\":"})
      for (auto p = json.find(key); p != std::string::npos; p = json.find(key, p + 1))
        out += json.substr(p, json.find_first_of(",}", p) - p) + ";";
    return out;
  };
  const std::string la = losses(a);
  EXPECT_EQ(la, losses(b));
  EXPECT_EQ(std::count(la.begin(), la.end(), ';'), 4) << la;
  EXPECT_NE(b.find("\"cache\":\"memory\""), std::string::npos) << b;
  EXPECT_NE(b.find("\"cache_hits\":300"), std::string::npos) << b;      // epoch 2 from the cache
  EXPECT_NE(a.find("\"samples_loaded\":600"), std::string::npos) << a;  // decoded twice
}

TEST_F(TrainPipeline, FlagsOverrideThePreset) {
  const auto r = run_trainscope(
      "train --backend cpu --epochs 1 --quiet --dataset synthetic:64 "
      "--pipeline tuned --parallel 0 --prefetch 3 --cache none "
      "--shuffle 16 --prefetch-to-device off --summary-json " +
      data_->file("o.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string json = test::read_file(data_->file("o.json"));
  EXPECT_NE(json.find("parallel 0, prefetch 3, cache none, shuffle 16\""), std::string::npos)
      << json;
  EXPECT_NE(json.find("\"prefetch_to_device\":false"), std::string::npos) << json;
}

TEST_F(TrainPipeline, BadPipelineFlagsExitTwoWithOneLine) {
  for (const char* flags : {"--parallel many", "--prefetch -1", "--cache disk", "--shuffle x",
                            "--pipeline fast", "--augment twirl", "--prefetch-to-device maybe"}) {
    const auto r = run_trainscope(std::string("train --epochs 1 --dataset synthetic:64 ") + flags);
    EXPECT_EQ(r.status, 2) << flags;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << flags << ": " << r.err;
  }
}

TEST_F(TrainPipeline, UnwritableTraceOrCacheFileFailsAtStartNamingIt) {
  const std::string missing = (data_->dir() / "no" / "such" / "dir").string();
  for (const std::string& flag :
       {"--trace " + missing + "/run.db", "--cache file:" + missing + "/samples.cache"}) {
    const auto r = run_trainscope("train --backend cpu --epochs 1 --dataset synthetic:64 " + flag);
    EXPECT_EQ(r.status, 2) << flag;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("Epoch"), std::string::npos) << "trained although " << flag << " failed";
  }
}

TEST_F(TrainPipeline, ACorruptImageNamesTheFileOrIsSkippedWithSkipBad) {
  const fs::path bad_dir = data_->dir() / "with_bad";
  fs::copy(digits(), bad_dir, fs::copy_options::recursive);
  const fs::path victim = bad_dir / "3" / "broken.png";
  std::ofstream(victim) << "\x89PNG\r\n\x1a\n this is not really a png";
  const std::string base = "train --backend cpu --epochs 2 --dataset images:" + bad_dir.string();
  const auto fails = run_trainscope(base + " --pipeline tuned");
  EXPECT_EQ(fails.status, 2);
  EXPECT_NE(fails.err.find("broken.png"), std::string::npos) << fails.err;
  EXPECT_NE(fails.err.find("sample "), std::string::npos) << fails.err;
  const auto skips = run_trainscope(base + " --pipeline tuned --skip-bad");
  ASSERT_EQ(skips.status, 0) << skips.err;
  EXPECT_NE(skips.out.find("1 bad sample(s) skipped"), std::string::npos) << skips.out;
}

TEST_F(TrainPipeline, CtrlCStopsAfterTheCurrentStepWithNoHungThread) {
  test::Child child({"train", "--backend", "cpu", "--epochs", "1000", "--dataset",
                     "images:" + digits(), "--pipeline", "tuned", "--summary-json",
                     data_->file("int.json")});
  ASSERT_TRUE(child.started());
  ASSERT_TRUE(child.read_until("Epoch 3/", std::chrono::seconds(60)));
  child.signal(SIGINT);
  const int status = child.wait(std::chrono::seconds(30));
  EXPECT_FALSE(child.timed_out()) << "the process hung after Ctrl-C";
  EXPECT_EQ(status, 130);
  const std::string json = test::read_file(data_->file("int.json"));
  EXPECT_NE(json.find("\"stopped_early\":true"), std::string::npos) << json;
}

}  // namespace
}  // namespace ts
