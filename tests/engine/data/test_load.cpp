#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "engine/data/idx.hpp"
#include "engine/data/load.hpp"
#include "engine/data/mnist_fetch.hpp"
#include "engine/data/synthetic.hpp"
#include "temp_dir.hpp"

namespace ts {
namespace {

using test::TempDir;

// Sets an environment variable for the lifetime of the guard, then restores it.
class EnvGuard {
 public:
  EnvGuard(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~EnvGuard() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

std::string error_of(const std::string& spec) {
  try {
    load_dataset(spec, 1);
  } catch (const DatasetError& e) {
    return e.what();
  }
  return "";
}

TEST(LoadDataset, SyntheticSpecs) {
  const Dataset ds = load_dataset("synthetic:500", 3);
  EXPECT_EQ(ds.count, 500);
  EXPECT_EQ(ds.images, make_synthetic_digits(500, 3).images);
  EXPECT_EQ(load_dataset("synthetic", 3).count, kSyntheticDefaultCount);
}

TEST(LoadDataset, BadSpecsListTheAcceptedForms) {
  for (const char* spec : {"synthetic:abc", "synthetic:0", "synthetic:", "synthetic:-3",
                           "synthetic:12x", "synthetic:1000001", "bogus", "", "idx:onlyone",
                           "idx:,labels", "idx:images,", "mnist:", "images:photos", "Synthetic"}) {
    const std::string msg = error_of(spec);
    EXPECT_NE(msg.find("accepted forms"), std::string::npos) << spec << ": " << msg;
    EXPECT_NE(msg.find("synthetic:N"), std::string::npos) << spec << ": " << msg;
    EXPECT_NE(msg.find("idx:IMAGES,LABELS"), std::string::npos) << spec << ": " << msg;
    const std::string quoted = std::string(1, '\'').append(spec).append(1, '\'');
    EXPECT_NE(msg.find(quoted), std::string::npos) << spec << ": " << msg;
  }
}

TEST(LoadDataset, IdxSpecReadsBothFiles) {
  TempDir dir;
  const Dataset ds = make_synthetic_digits(30, 5);
  write_idx(ds, dir.file("im.gz"), dir.file("lb.gz"), true);
  const Dataset back = load_dataset("idx:" + dir.file("im.gz") + "," + dir.file("lb.gz"), 0);
  EXPECT_EQ(back.count, 30);
  EXPECT_EQ(back.labels, ds.labels);
  const std::string msg = error_of("idx:" + dir.file("missing") + "," + dir.file("lb.gz"));
  EXPECT_NE(msg.find(dir.file("missing")), std::string::npos) << msg;
}

TEST(LoadDataset, MnistSpecReadsTheTrainingFilesOfADirectory) {
  TempDir dir;
  const Dataset ds = make_synthetic_digits(40, 6);
  write_idx(ds, dir.file(kMnistImagesFile), dir.file(kMnistLabelsFile), true);
  const Dataset back = load_dataset("mnist:" + dir.path().string(), 0);
  EXPECT_EQ(back.count, 40);
  EXPECT_EQ(back.labels, ds.labels);
  EXPECT_EQ(back.source.rfind("MNIST IDX", 0), 0u) << back.source;

  const EnvGuard data_dir("TRAINSCOPE_DATA_DIR", dir.path().string().c_str());
  std::filesystem::create_directory(dir.path() / "mnist");
  write_idx(ds, dir.file("mnist/" + std::string(kMnistImagesFile)),
            dir.file("mnist/" + std::string(kMnistLabelsFile)), true);
  EXPECT_EQ(load_dataset("mnist", 0).count, 40);
}

TEST(LoadDataset, MissingMnistNamesTheFetchCommand) {
  TempDir dir;
  const EnvGuard no_fetch("TRAINSCOPE_NO_FETCH", "1");  // never touch the network in tests
  const std::string missing = dir.file("nothing-here");
  const std::string msg = error_of("mnist:" + missing);
  EXPECT_NE(msg.find(missing), std::string::npos) << msg;
  EXPECT_NE(msg.find("scripts/fetch-mnist.sh " + missing), std::string::npos) << msg;
  EXPECT_FALSE(std::filesystem::exists(missing));
}

// Only the default folder is fetched into: an explicit mnist:DIR without the files (a typo) is
// one error naming the folder; the fetch script is not run and the folder not created.
TEST(LoadDataset, AnExplicitMnistFolderIsNeverFetchedInto) {
  TempDir dir;
  const std::string script = dir.file("fetch.sh");
  const std::string log = dir.file("ran");
  std::ofstream(script) << "mkdir -p \"$1\"; printf '%s' \"$1\" > '" << log << "'\n";
  const EnvGuard fetch("TRAINSCOPE_FETCH_MNIST", script.c_str());
  const EnvGuard allow("TRAINSCOPE_NO_FETCH", nullptr);
  const EnvGuard data_dir("TRAINSCOPE_DATA_DIR", dir.path().string().c_str());
  const std::string typo = dir.file("mnsit");
  const std::string msg = error_of("mnist:" + typo);
  EXPECT_NE(msg.find("MNIST folder '" + typo + "' does not exist"), std::string::npos) << msg;
  EXPECT_NE(msg.find("fetch.sh " + typo + ")"), std::string::npos) << msg;  // how to, if meant
  EXPECT_FALSE(std::filesystem::exists(typo));
  EXPECT_FALSE(std::filesystem::exists(log));

  std::filesystem::create_directory(typo);  // a folder that exists but holds other files
  EXPECT_NE(error_of("mnist:" + typo).find("does not hold " + std::string(kMnistImagesFile)),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(log));

  // The default folder, spelled out or not, is fetched into (the script here fetches nothing).
  const std::string fallback = dir.file("mnist");
  EXPECT_NE(error_of("mnist:" + fallback).find("are missing"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(log));
  std::filesystem::remove(log);
  EXPECT_NE(error_of("mnist").find("are missing"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(log));
}

// An installed program finds the script in <prefix>/share/trainscope, whatever the prefix.
TEST(MnistFetch, ScriptBesideTheProgramInTheInstalledLayout) {
  EXPECT_EQ(mnist_fetch_script_beside("/opt/ts/bin/trainscope"),
            std::filesystem::path("/opt/ts/share/trainscope/fetch-mnist.sh"));
  EXPECT_EQ(mnist_fetch_script_beside("/usr/bin/trainscope"),
            std::filesystem::path("/usr/share/trainscope/fetch-mnist.sh"));
}

// Without an installed copy or an override, an uninstalled build uses its source tree's script.
TEST(MnistFetch, UninstalledBuildUsesTheSourceTree) {
  const EnvGuard unset("TRAINSCOPE_FETCH_MNIST", nullptr);
  const std::string script = find_mnist_fetch_script();
  EXPECT_EQ(std::filesystem::path(script).filename(), "fetch-mnist.sh") << script;
  EXPECT_TRUE(std::filesystem::equivalent(script, "scripts/fetch-mnist.sh")) << script;
}

// TRAINSCOPE_FETCH_MNIST names the script to run, and nothing else is tried when it is wrong.
TEST(MnistFetch, TheEnvironmentOverridesTheScript) {
  TempDir dir;
  const std::string script = dir.file("my fetch.sh");
  const std::string log = dir.file("ran");
  std::ofstream(script) << "printf '%s' \"$1\" > '" << log << "'\n";
  const EnvGuard fetch("TRAINSCOPE_FETCH_MNIST", script.c_str());
  const EnvGuard allow("TRAINSCOPE_NO_FETCH", nullptr);
  EXPECT_EQ(find_mnist_fetch_script(), script);
  EXPECT_NE(mnist_fetch_command("d").find("'" + script + "' d"), std::string::npos);
  EXPECT_TRUE(run_mnist_fetch(dir.file("target")));
  const std::vector<unsigned char> ran = test::read_bytes(log);
  EXPECT_EQ(std::string(ran.begin(), ran.end()), dir.file("target"));

  const EnvGuard wrong("TRAINSCOPE_FETCH_MNIST", dir.file("missing.sh").c_str());
  EXPECT_EQ(find_mnist_fetch_script(), "");
  EXPECT_FALSE(run_mnist_fetch(dir.file("target2")));
}

TEST(LoadDataset, CorruptMnistSaysHowToFetchAgain) {
  TempDir dir;
  test::write_bytes(dir.file(kMnistImagesFile), {1, 2, 3, 4, 5});
  test::write_bytes(dir.file(kMnistLabelsFile), {1, 2, 3, 4, 5});
  const std::string msg = error_of("mnist:" + dir.path().string());
  EXPECT_NE(msg.find(dir.file(kMnistImagesFile)), std::string::npos) << msg;
  EXPECT_NE(msg.find("fetch-mnist.sh"), std::string::npos) << msg;
}

TEST(LoadDataset, DefaultMnistDirFollowsTheEnvironment) {
  {
    const EnvGuard unset("TRAINSCOPE_DATA_DIR", nullptr);
    EXPECT_EQ(default_mnist_dir(), "data/mnist");
  }
  {
    const EnvGuard empty("TRAINSCOPE_DATA_DIR", "");
    EXPECT_EQ(default_mnist_dir(), "data/mnist");
  }
  const EnvGuard set("TRAINSCOPE_DATA_DIR", "/srv/datasets");
  EXPECT_EQ(default_mnist_dir(), "/srv/datasets/mnist");
}

// The real digits that scripts/fetch-mnist.sh writes (tests run in the source directory).
TEST(LoadDataset, RealMnistWhenFetched) {
  const std::filesystem::path dir = "data/mnist";
  if (!std::filesystem::exists(dir / kMnistImagesFile) ||
      !std::filesystem::exists(dir / kMnistLabelsFile))
    GTEST_SKIP() << "no MNIST in data/mnist; run scripts/fetch-mnist.sh to test it";
  const Dataset ds = load_dataset("mnist:data/mnist", 0);
  EXPECT_GE(ds.count, 10000);
  EXPECT_EQ(ds.height, 28);
  EXPECT_EQ(ds.width, 28);
  EXPECT_EQ(ds.channels, 1);
  EXPECT_EQ(ds.classes, 10);
  std::array<std::int64_t, 10> counts{};
  for (const auto l : ds.labels) ++counts[static_cast<std::size_t>(l)];
  for (int d = 0; d < 10; ++d) {
    EXPECT_GT(counts[d], ds.count / 10 * 7 / 10) << "digit " << d;
    EXPECT_LT(counts[d], ds.count / 10 * 13 / 10) << "digit " << d;
  }
  double sum = 0;
  for (const float v : ds.images) sum += v;
  const double mean = sum / static_cast<double>(ds.images.size());
  RecordProperty("mnist_pixel_mean", std::to_string(mean));
  EXPECT_GT(mean, 0.11);  // MNIST's is 0.1307 (training set)
  EXPECT_LT(mean, 0.15);
}

}  // namespace
}  // namespace ts
