// Image folders: scan order and labels, write_image_folder -> ImageFolderSource round trips
// (pixels exact after 8-bit quantisation), resizing and channel conversion, InMemorySource, and
// the errors for bad folders and files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/data/image_codec.hpp"
#include "engine/data/image_folder.hpp"
#include "engine/data/synthetic.hpp"
#include "engine/data/transforms.hpp"
#include "temp_dir.hpp"

namespace ts {
namespace {

namespace fs = std::filesystem;
using test::TempDir;
using test::write_bytes;
using Bytes = std::vector<unsigned char>;

template <typename Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const DatasetError& e) {
    return e.what();
  }
  return "";
}

// What a pixel value becomes after a trip through an 8-bit file.
float quantised(float v) {
  return static_cast<float>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)) / 255.0f;
}

// A PNG [h, w, c] whose every byte is `value`.
Bytes flat_png(int h, int w, int c, unsigned char value) {
  const Bytes pixels(static_cast<std::size_t>(h * w * c), value);
  return encode_png(pixels.data(), h, w, c);
}

std::vector<float> load(const SampleSource& source, std::int64_t i) {
  SourceScratch scratch;
  std::vector<float> out(static_cast<std::size_t>(source.shape().numel()));
  source.load(i, scratch, out.data());
  return out;
}

// images [n, h, w, c] with values k/255-ish but not exactly on the grid; labels i % classes.
Dataset small_dataset(std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c, int classes) {
  Dataset ds;
  ds.count = n;
  ds.height = h;
  ds.width = w;
  ds.channels = c;
  ds.classes = classes;
  for (std::int64_t i = 0; i < n * h * w * c; ++i)
    ds.images.push_back(static_cast<float>((i * 53) % 300) / 290.0f - 0.02f);  // some out of [0,1]
  for (std::int64_t i = 0; i < n; ++i) ds.labels.push_back(static_cast<std::int32_t>(i % classes));
  ds.source = "small";
  return ds;
}

TEST(ImageFolder, ScanSortsClassesAndFilesAndIgnoresOthers) {
  TempDir dir;
  const Bytes png = flat_png(2, 2, 1, 9);
  for (const char* name : {"cat", "ant", "bee", ".hidden_class"})
    fs::create_directory(dir.path() / name);
  fs::create_directory(dir.path() / "bee" / "nested");
  for (const char* file :
       {"cat/b.PNG", "cat/a.jpg", "cat/c.JpEg", "cat/notes.txt", "cat/.x.png", "ant/2.png",
        "ant/10.png", "bee/nested/deep.png", "top.png", ".hidden_class/h.png"})
    write_bytes(dir.file(file), png);

  const ImageFolderIndex index = scan_image_folder(dir.path().string());
  EXPECT_EQ(index.class_names, (std::vector<std::string>{"ant", "bee", "cat"}));
  const std::vector<std::string> expected = {dir.file("ant/10.png"), dir.file("ant/2.png"),
                                             dir.file("cat/a.jpg"), dir.file("cat/b.PNG"),
                                             dir.file("cat/c.JpEg")};
  EXPECT_EQ(index.files, expected);
  EXPECT_EQ(index.labels, (std::vector<std::int32_t>{0, 0, 2, 2, 2}));  // bee: empty, label 1
}

TEST(ImageFolder, ScanErrorsNameTheFolder) {
  TempDir dir;
  const std::string missing = dir.file("missing");
  EXPECT_NE(error_of([&] { scan_image_folder(missing); }).find("'" + missing + "' does not exist"),
            std::string::npos);
  write_bytes(dir.file("plain"), {1, 2, 3});
  EXPECT_NE(error_of([&] { scan_image_folder(dir.file("plain")); }).find("not a directory"),
            std::string::npos);

  fs::create_directory(dir.file("flat"));
  write_bytes(dir.file("flat/a.png"), flat_png(2, 2, 1, 0));
  const std::string no_classes = error_of([&] { scan_image_folder(dir.file("flat")); });
  EXPECT_NE(no_classes.find(dir.file("flat")), std::string::npos);
  EXPECT_NE(no_classes.find("no class sub-folders"), std::string::npos) << no_classes;

  fs::create_directories(dir.file("empty/a"));
  fs::create_directories(dir.file("empty/b"));
  write_bytes(dir.file("empty/a/readme.txt"), {1});
  const std::string no_images = error_of([&] { scan_image_folder(dir.file("empty")); });
  EXPECT_NE(no_images.find(dir.file("empty")), std::string::npos);
  EXPECT_NE(no_images.find("no .png, .jpg or .jpeg files in its 2 class folder"), std::string::npos)
      << no_images;
}

TEST(ImageFolder, SyntheticDigitsRoundTripExactlyAfterQuantisation) {
  TempDir dir;
  const std::string root = dir.file("digits");
  const Dataset ds = make_synthetic_digits(37, 5);
  EXPECT_EQ(write_image_folder(ds, root), 37);
  for (int k = 0; k < 10; ++k) EXPECT_TRUE(fs::is_directory(root + "/" + std::to_string(k)));
  EXPECT_TRUE(fs::exists(root + "/" + std::to_string(ds.labels[36]) + "/00036.png"));

  const ImageFolderSource source(root);
  ASSERT_EQ(source.count(), 37);
  const SampleShape shape = source.shape();
  EXPECT_EQ(shape.height, 28);
  EXPECT_EQ(shape.width, 28);
  EXPECT_EQ(shape.channels, 1);
  EXPECT_EQ(shape.classes, 10);
  EXPECT_FALSE(source.in_memory());
  EXPECT_EQ(source.description(), "image folder " + root + " (37 images, 10 classes, 28x28x1)");

  for (std::int64_t i = 0; i < source.count(); ++i) {
    // The file name is the original sample index; the folder its label.
    const fs::path file = source.describe(i);
    const std::int64_t original = std::stoll(file.stem().string());
    EXPECT_EQ(file.parent_path().filename().string(), std::to_string(ds.labels[original]));
    EXPECT_EQ(source.label(i), ds.labels[original]);
    const std::vector<float> got = load(source, i);
    const float* want = ds.images.data() + original * ds.sample_size();
    for (std::int64_t p = 0; p < ds.sample_size(); ++p)
      ASSERT_EQ(got[p], quantised(want[p])) << "sample " << original << " pixel " << p;
  }
}

TEST(ImageFolder, RgbRoundTripKeepsEmptyClassesAndPadsClassNames) {
  TempDir dir;
  const std::string root = dir.file("rgb");
  Dataset ds = small_dataset(14, 5, 4, 3, 12);  // labels i % 12
  ds.labels[11] = 3;                            // class 11 has no sample left
  EXPECT_EQ(write_image_folder(ds, root), 14);
  EXPECT_TRUE(fs::is_directory(root + "/00"));
  EXPECT_TRUE(fs::is_directory(root + "/11"));
  EXPECT_TRUE(fs::is_empty(root + "/11"));

  const ImageFolderSource source(root);
  EXPECT_EQ(source.shape().channels, 3);
  EXPECT_EQ(source.shape().classes, 12);  // "10" and "11" sort after "09"
  for (std::int64_t i = 0; i < source.count(); ++i) {
    const std::int64_t original = std::stoll(fs::path(source.describe(i)).stem().string());
    EXPECT_EQ(source.label(i), ds.labels[original]);
    const std::vector<float> got = load(source, i);
    for (std::int64_t p = 0; p < ds.sample_size(); ++p)
      ASSERT_EQ(got[p], quantised(ds.images[original * ds.sample_size() + p]));
  }
}

TEST(ImageFolder, ResizesToTheRequestedOrFirstImageSize) {
  TempDir dir;
  const std::string root = dir.file("sizes");
  const Dataset ds = small_dataset(2, 4, 4, 1, 1);
  write_image_folder(ds, root);
  // A larger third image, sorted last.
  Bytes big(8 * 6);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<unsigned char>(i * 5);
  write_bytes(root + "/0/zz_big.png", encode_png(big.data(), 8, 6, 1));

  std::vector<float> first(16);
  for (int p = 0; p < 16; ++p) first[p] = quantised(ds.images[p]);

  // Requested 8x6: the 4x4 images are upscaled, the 8x6 one loads as is.
  const ImageFolderSource sized(root, 8, 6);
  EXPECT_EQ(sized.shape().height, 8);
  EXPECT_EQ(sized.shape().width, 6);
  std::vector<float> expected(48);
  resize_bilinear(first.data(), 4, 4, 1, expected.data(), 8, 6);
  EXPECT_EQ(load(sized, 0), expected);
  std::vector<float> big_f(48);
  for (int p = 0; p < 48; ++p) big_f[p] = static_cast<float>(big[p]) / 255.0f;
  EXPECT_EQ(load(sized, 2), big_f);

  // Default: the first image's size; the big one is downscaled.
  const ImageFolderSource natural(root);
  EXPECT_EQ(natural.shape().height, 4);
  EXPECT_EQ(natural.shape().width, 4);
  EXPECT_EQ(load(natural, 0), first);
  std::vector<float> small(16);
  resize_bilinear(big_f.data(), 8, 6, 1, small.data(), 4, 4);
  EXPECT_EQ(load(natural, 2), small);

  EXPECT_THROW(ImageFolderSource(root, 8, 0), std::invalid_argument);
  EXPECT_THROW(ImageFolderSource(root, 0, 0, 2), std::invalid_argument);
}

TEST(ImageFolder, ChannelsFollowTheFirstImageAndConvert) {
  TempDir dir;
  fs::create_directories(dir.file("mixed/a"));
  write_bytes(dir.file("mixed/a/1.png"), flat_png(3, 3, 1, 51));
  const Bytes rgb = {255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30};  // [2, 2, 3]
  write_bytes(dir.file("mixed/a/2.png"), encode_png(rgb.data(), 2, 2, 3));

  const ImageFolderSource grey(dir.file("mixed"));  // first image grey -> 1 channel
  EXPECT_EQ(grey.shape().channels, 1);
  EXPECT_EQ(load(grey, 0), std::vector<float>(9, 51 / 255.0f));

  const ImageFolderSource colour(dir.file("mixed"), 2, 2, 3);  // grey files become RGB
  const std::vector<float> got = load(colour, 0);
  ASSERT_EQ(got.size(), 12u);
  for (const float v : got) EXPECT_EQ(v, 51 / 255.0f);
  std::vector<float> rgb_f;
  for (const unsigned char b : rgb) rgb_f.push_back(b / 255.0f);
  EXPECT_EQ(load(colour, 1), rgb_f);

  const ImageFolderSource rgb_as_grey(dir.file("mixed"), 2, 2, 1);
  const std::vector<float> luma = load(rgb_as_grey, 1);
  for (int p = 0; p < 4; ++p) {
    const double ref = 0.299 * rgb[p * 3] + 0.587 * rgb[p * 3 + 1] + 0.114 * rgb[p * 3 + 2];
    EXPECT_NEAR(luma[p] * 255.0, ref, 0.51) << p;
  }
}

TEST(ImageFolder, BadFilesNameTheFile) {
  TempDir dir;
  fs::create_directories(dir.file("bad/x"));
  write_bytes(dir.file("bad/x/a.png"), flat_png(2, 2, 1, 1));
  const std::string text_file = dir.file("bad/x/b.jpg");
  write_bytes(text_file, {'n', 'o', 't', ' ', 'j', 'p', 'e', 'g'});
  Bytes cut = flat_png(4, 4, 3, 2);
  cut.resize(cut.size() / 2);
  const std::string truncated = dir.file("bad/x/c.png");
  write_bytes(truncated, cut);

  const ImageFolderSource source(dir.file("bad"));
  EXPECT_EQ(load(source, 0), std::vector<float>(4, 1 / 255.0f));
  const std::string e1 = error_of([&] { load(source, 1); });
  EXPECT_NE(e1.find(text_file), std::string::npos) << e1;
  const std::string e2 = error_of([&] { load(source, 2); });
  EXPECT_NE(e2.find(truncated), std::string::npos) << e2;
  fs::remove(truncated);
  const std::string e3 = error_of([&] { load(source, 2); });
  EXPECT_NE(e3.find("cannot open image file '" + truncated + "'"), std::string::npos) << e3;

  // A corrupt first image fails the constructor.
  fs::create_directories(dir.file("bad_first/x"));
  write_bytes(dir.file("bad_first/x/a.png"), {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0});
  const std::string e4 = error_of([&] { ImageFolderSource s(dir.file("bad_first")); });
  EXPECT_NE(e4.find(dir.file("bad_first/x/a.png")), std::string::npos) << e4;
}

TEST(ImageFolder, WriteRefusesNonEmptyTargetsAndBadDatasets) {
  TempDir dir;
  const Dataset ds = small_dataset(3, 2, 2, 1, 2);
  const std::string occupied = dir.file("occupied");
  fs::create_directory(occupied);
  write_bytes(occupied + "/keep.txt", {1});
  const std::string e1 = error_of([&] { write_image_folder(ds, occupied); });
  EXPECT_NE(e1.find("'" + occupied + "' already exists and is not empty"), std::string::npos) << e1;
  EXPECT_EQ(std::distance(fs::directory_iterator(occupied), fs::directory_iterator()), 1);
  EXPECT_THROW(check_image_folder_target(occupied), DatasetError);
  EXPECT_THROW(write_image_folder(ds, occupied + "/keep.txt"), DatasetError);

  // An existing empty folder is fine.
  fs::create_directory(dir.file("empty"));
  EXPECT_EQ(write_image_folder(ds, dir.file("empty")), 3);

  Dataset two_channels = small_dataset(1, 2, 2, 2, 2);
  EXPECT_NE(error_of([&] { write_image_folder(two_channels, dir.file("c2")); }).find("2 channels"),
            std::string::npos);
  Dataset bad_label = ds;
  bad_label.labels[1] = 2;
  EXPECT_NE(error_of([&] { write_image_folder(bad_label, dir.file("l")); }).find("label 2"),
            std::string::npos);
  Dataset short_images = ds;
  short_images.images.pop_back();
  EXPECT_THROW(write_image_folder(short_images, dir.file("s")), DatasetError);
  EXPECT_FALSE(fs::exists(dir.file("c2")));
  EXPECT_FALSE(fs::exists(dir.file("l")));
}

TEST(InMemorySource, CopiesSamplesOfTheDataset) {
  const Dataset ds = small_dataset(5, 3, 2, 3, 4);
  const InMemorySource borrowed(ds);
  const InMemorySource owned(std::make_shared<const Dataset>(ds));
  for (const SampleSource* source :
       {static_cast<const SampleSource*>(&borrowed), static_cast<const SampleSource*>(&owned)}) {
    EXPECT_TRUE(source->in_memory());
    EXPECT_EQ(source->count(), 5);
    EXPECT_EQ(source->shape().numel(), 18);
    EXPECT_EQ(source->shape().classes, 4);
    EXPECT_EQ(source->describe(3), "sample 3");
    EXPECT_EQ(source->description(), "small");
    for (std::int64_t i = 0; i < 5; ++i) {
      EXPECT_EQ(source->label(i), ds.labels[i]);
      EXPECT_EQ(load(*source, i),
                std::vector<float>(ds.images.begin() + i * 18, ds.images.begin() + (i + 1) * 18));
    }
  }
  Dataset broken = ds;
  broken.labels.pop_back();
  EXPECT_THROW(InMemorySource{broken}, DatasetError);
}

}  // namespace
}  // namespace ts
