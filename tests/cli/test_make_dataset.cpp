// trainscope make-dataset as a user runs it: the folder it writes, reading it back, bad input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/data/idx.hpp"
#include "engine/data/image_folder.hpp"
#include "engine/data/synthetic.hpp"
#include "run_command.hpp"

namespace ts::test {
namespace {

namespace fs = std::filesystem;

// A fresh path under /tmp (not created), removed with everything in it afterwards.
class TempPath {
 public:
  explicit TempPath(const std::string& name)
      : path_("/tmp/ts_cli_make_dataset_" + std::to_string(getpid()) + "_" + name) {
    fs::remove_all(path_);
  }
  ~TempPath() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempPath(const TempPath&) = delete;
  TempPath& operator=(const TempPath&) = delete;
  const std::string& str() const { return path_; }

 private:
  std::string path_;
};

std::int64_t count_files(const std::string& dir) {
  std::int64_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) n += e.is_regular_file();
  return n;
}

void expect_one_line_error(const std::string& args, const std::string& needle) {
  const auto r = run_trainscope(args);
  EXPECT_EQ(r.status, 2) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\n" << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(MakeDatasetCommand, WritesSyntheticDigitsThatReadBackWithTheirLabels) {
  for (const std::int64_t seed : {1, 3}) {
    TempPath dir("synthetic_" + std::to_string(seed));
    const std::string seed_flag = seed == 1 ? "" : " --seed " + std::to_string(seed);
    const auto r =
        run_trainscope("make-dataset --from synthetic:60 --to images:" + dir.str() + seed_flag);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "wrote 60 images in 10 classes to " + dir.str() + "\n");
    EXPECT_EQ(count_files(dir.str()), 60);

    // Same data as `train --dataset synthetic:60 --seed N`: each file's folder is its label.
    const Dataset ds = make_synthetic_digits(60, static_cast<std::uint64_t>(seed));
    const ImageFolderSource source(dir.str());
    ASSERT_EQ(source.count(), 60);
    EXPECT_EQ(source.shape().classes, 10);
    for (std::int64_t i = 0; i < source.count(); ++i) {
      const std::int64_t original = std::stoll(fs::path(source.describe(i)).stem().string());
      EXPECT_EQ(source.label(i), ds.labels[static_cast<std::size_t>(original)]) << i;
    }
  }
}

TEST(MakeDatasetCommand, ConvertsIdxFilesKeepingPixels) {
  TempPath idx("idx");
  fs::create_directories(idx.str());
  Dataset ds;
  ds.count = 6;
  ds.height = 3;
  ds.width = 2;
  ds.channels = 3;
  ds.classes = 10;
  for (int i = 0; i < 6 * 3 * 2 * 3; ++i)
    ds.images.push_back(static_cast<float>(i * 7 % 256) / 255);
  ds.labels = {4, 1, 4, 9, 0, 1};
  write_idx(ds, idx.str() + "/i.gz", idx.str() + "/l.gz", true);

  TempPath dir("from_idx");
  const auto r = run_trainscope("make-dataset --from idx:" + idx.str() + "/i.gz," + idx.str() +
                                "/l.gz --to=images:" + dir.str());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "wrote 6 images in 10 classes to " + dir.str() + "\n");
  const ImageFolderSource source(dir.str());
  EXPECT_EQ(source.shape().channels, 3);
  SourceScratch scratch;
  std::vector<float> got(18);
  for (std::int64_t i = 0; i < source.count(); ++i) {
    const auto original = std::stoll(fs::path(source.describe(i)).stem().string());
    EXPECT_EQ(source.label(i), ds.labels[static_cast<std::size_t>(original)]);
    source.load(i, scratch, got.data());
    for (int p = 0; p < 18; ++p) EXPECT_EQ(got[p], ds.images[original * 18 + p]);
  }
}

TEST(MakeDatasetCommand, RefusesANonEmptyTarget) {
  TempPath dir("occupied");
  fs::create_directories(dir.str());
  { std::ofstream(dir.str() + "/mine.txt") << "keep me"; }
  expect_one_line_error("make-dataset --from synthetic:10 --to images:" + dir.str(),
                        "'" + dir.str() + "' already exists and is not empty");
  EXPECT_EQ(count_files(dir.str()), 1);
}

TEST(MakeDatasetCommand, BadFlagsAreOneLineAndExit2) {
  TempPath dir("bad_flags");
  const std::string to = " --to images:" + dir.str();
  expect_one_line_error("make-dataset" + to, "needs --from");
  expect_one_line_error("make-dataset --from synthetic:10", "needs --to images:DIR");
  expect_one_line_error("make-dataset --from synthetic:10 --to " + dir.str(),
                        "--to must be images:DIR");
  expect_one_line_error("make-dataset --from synthetic:10 --to images:", "--to must be images:DIR");
  expect_one_line_error("make-dataset --from synthetic:10 --bogus" + to, "--bogus");
  expect_one_line_error("make-dataset --from synthetic:10 --seed abc" + to, "--seed");
  expect_one_line_error("make-dataset --from nope" + to, "nope");
  expect_one_line_error("make-dataset --from synthetic:0" + to, "synthetic:0");
  expect_one_line_error("make-dataset --from idx:/nonexistent/a,/nonexistent/b" + to,
                        "/nonexistent/a");
  EXPECT_FALSE(fs::exists(dir.str()));

  const auto help = run_trainscope("make-dataset --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--from SPEC"), std::string::npos) << help.out;
  const auto usage = run_trainscope("--help");
  EXPECT_NE(usage.out.find("make-dataset"), std::string::npos) << usage.out;
}

// An installed trainscope (PREFIX/bin) runs the MNIST fetch script installed with it
// (PREFIX/share/trainscope), not one in the source tree it was built from.
TEST(MakeDatasetCommand, InstalledProgramRunsTheFetchScriptInstalledBesideIt) {
  TempPath prefix("prefix");
  fs::create_directories(prefix.str() + "/bin");
  fs::create_directories(prefix.str() + "/share/trainscope");
  fs::copy_file(TRAINSCOPE_BIN, prefix.str() + "/bin/trainscope");
  const std::string script = prefix.str() + "/share/trainscope/fetch-mnist.sh";
  std::ofstream(script) << "echo \"installed fetch into $1\"; exit 1\n";
  const std::string mnist = prefix.str() + "/mnist";
  const auto r = run_shell(
      "env -u TRAINSCOPE_FETCH_MNIST -u TRAINSCOPE_NO_FETCH "
      "TRAINSCOPE_DATA_DIR=" +
      prefix.str() + " " + prefix.str() +
      "/bin/trainscope make-dataset --from mnist --to images:" + prefix.str() + "/out");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("installed fetch into " + mnist), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fetch them with: bash " + script + " " + mnist), std::string::npos)
      << r.err;
}

// A mistyped --from mnist:DIR is one error naming the folder: nothing is fetched and neither
// that folder nor the output is created (only the default folder is fetched into).
TEST(MakeDatasetCommand, AMistypedMnistFolderIsOneErrorAndFetchesNothing) {
  TempPath scratch("typo");
  fs::create_directories(scratch.str());
  const std::string script = scratch.str() + "/fetch.sh";
  std::ofstream(script) << "mkdir -p \"$1\"; echo the fetch script ran\n";
  const std::string typo = scratch.str() + "/typo/path";
  const std::string out = scratch.str() + "/out";
  const std::string env = "env -u TRAINSCOPE_NO_FETCH TRAINSCOPE_FETCH_MNIST=" + script + " ";
  for (const std::string& command :
       {"make-dataset --from mnist:" + typo + " --to images:" + out,
        "train --dataset mnist:" + typo + " --epochs 1 --backend cpu --quiet"}) {
    const auto r = run_shell(env + TRAINSCOPE_BIN + " " + command);
    EXPECT_EQ(r.status, 2) << command << "\n" << r.err;
    EXPECT_NE(r.err.find("MNIST folder '" + typo + "' does not exist"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
    EXPECT_EQ(r.err.find("the fetch script ran"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(scratch.str() + "/typo"));
    EXPECT_FALSE(fs::exists(out));
  }
}

}  // namespace
}  // namespace ts::test
