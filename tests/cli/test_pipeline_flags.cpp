// The input-pipeline flags: the text of --pipeline, --parallel, --prefetch, --cache, --shuffle,
// --prefetch-to-device, --skip-bad and --augment into the engine's typed options.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/pipeline_flags.hpp"

namespace ts::cli {
namespace {

PipelineFlags parse(std::vector<std::string> words) {
  Args args("train", std::move(words));
  PipelineFlags f = parse_pipeline_flags(args, 64, 9);
  args.finish();
  return f;
}

TEST(PipelineFlags, PresetThenOverrides) {
  const PipelineFlags tuned = parse({});
  EXPECT_EQ(tuned.preset, "tuned");
  EXPECT_EQ(tuned.options.parallel, kAutotune);
  EXPECT_EQ(tuned.options.prefetch, kAutotune);
  EXPECT_EQ(tuned.options.cache, CacheMode::memory);
  EXPECT_TRUE(tuned.options.prefetch_to_device);
  EXPECT_EQ(tuned.options.batch_size, 64);
  EXPECT_EQ(tuned.options.seed, 9u);
  EXPECT_FALSE(tuned.augment.any());

  const PipelineFlags f =
      parse({"--pipeline", "naive", "--parallel", "3", "--prefetch=auto", "--cache",
             "file:/tmp/x.cache", "--shuffle", "16", "--prefetch-to-device", "on", "--skip-bad",
             "--augment", " noise:0.05 , flip,shift:3, crop:2"});
  EXPECT_EQ(f.preset, "naive");
  EXPECT_EQ(f.options.parallel, 3);
  EXPECT_EQ(f.options.prefetch, kAutotune);
  EXPECT_EQ(f.options.cache, CacheMode::file);
  EXPECT_EQ(f.options.cache_path, "/tmp/x.cache");
  EXPECT_EQ(f.options.shuffle_buffer, 16);
  EXPECT_TRUE(f.options.prefetch_to_device);
  EXPECT_TRUE(f.options.skip_bad);
  EXPECT_EQ(f.augment, (Augmentation{2, 3, true, 0.05f}));  // any order, spaces
  EXPECT_EQ(parse({"--shuffle", "full"}).options.shuffle_buffer, kFullShuffle);
  EXPECT_EQ(parse({"--shuffle", "0"}).options.shuffle_buffer, 0);
}

TEST(PipelineFlags, BadValuesNameTheFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--parallel", "-1"}, "--parallel"},
      {{"--parallel", "2x"}, "--parallel"},
      {{"--parallel", "257"}, "--parallel"},
      {{"--prefetch", ""}, "--prefetch"},
      {{"--cache", "disk"}, "--cache"},
      {{"--cache", "file:"}, "--cache"},
      {{"--shuffle", "x"}, "--shuffle"},
      {{"--shuffle", "-3"}, "--shuffle"},
      {{"--pipeline", "fast"}, "--pipeline"},
      {{"--prefetch-to-device", "maybe"}, "--prefetch-to-device"},
      {{"--augment", "twirl"}, "--augment"}};
  for (const auto& [words, flag] : cases) {
    try {
      parse(words);
      ADD_FAILURE() << "accepted " << words[0] << " '" << words[1] << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(flag), std::string::npos) << e.what();
    }
  }
}

TEST(PipelineFlags, Augmentation) {
  EXPECT_FALSE(parse_augmentation("").any());
  EXPECT_FALSE(parse_augmentation("none").any());
  const Augmentation a = parse_augmentation("crop:2,shift:3,flip,noise:0.05");
  EXPECT_EQ(a.crop_pad, 2);
  EXPECT_EQ(a.max_shift, 3);
  EXPECT_TRUE(a.flip);
  EXPECT_FLOAT_EQ(a.noise_stddev, 0.05f);
  EXPECT_EQ(a.to_string(), "crop:2,shift:3,flip,noise:0.05");
  EXPECT_EQ(parse_augmentation(a.to_string()), a);  // the canonical text reads back
  EXPECT_EQ(parse_augmentation("flip").to_string(), "flip");

  for (const std::string bad : {"crop", "crop:0", "crop:-1", "crop:x", "crop:257", "crop:2.5",
                                "shift:", "flip:1", "noise", "noise:0", "noise:1.5", "noise:abc",
                                "rotate:10", "flip,flip", "crop:1,,flip", "flip,", "FLIP"}) {
    try {
      parse_augmentation(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("--augment '" + bad + "'"), std::string::npos) << msg;
      EXPECT_NE(msg.find("crop:P"), std::string::npos) << msg;
      EXPECT_NE(msg.find("noise:SIGMA"), std::string::npos) << msg;
    }
  }
}

}  // namespace
}  // namespace ts::cli
