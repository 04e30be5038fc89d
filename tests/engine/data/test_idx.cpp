#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "engine/data/gz_file.hpp"
#include "engine/data/idx.hpp"
#include "temp_dir.hpp"

namespace ts {
namespace {

using test::read_bytes;
using test::TempDir;
using test::write_bytes;
using Bytes = std::vector<unsigned char>;

void put32(Bytes& b, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<unsigned char>(v >> s));
}

// An IDX header: magic then dims, big-endian.
Bytes header(std::uint32_t magic, std::initializer_list<std::uint32_t> dims) {
  Bytes b;
  put32(b, magic);
  for (auto d : dims) put32(b, d);
  return b;
}

Bytes concat(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

void write_gzip(const std::string& path, const Bytes& bytes) {
  GzWriter out(path, true);
  out.write(bytes.data(), bytes.size());
  out.close();
}

// images [n, h, w, c] with pixel values k/255 for varying k; labels i % 10.
Dataset tiny_dataset(std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c) {
  Dataset ds;
  ds.count = n;
  ds.height = h;
  ds.width = w;
  ds.channels = c;
  ds.classes = 10;
  for (std::int64_t i = 0; i < n * h * w * c; ++i)
    ds.images.push_back(static_cast<float>((i * 37) % 256) / 255.0f);
  for (std::int64_t i = 0; i < n; ++i) ds.labels.push_back(static_cast<std::int32_t>(i % 10));
  return ds;
}

// The error message of fn(), or "" when it does not throw a DatasetError.
template <typename Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const DatasetError& e) {
    return e.what();
  }
  return "";
}

TEST(Idx, RoundTripRawAndGzip) {
  TempDir dir;
  const Dataset ds = tiny_dataset(7, 3, 5, 1);
  for (const bool gzip : {false, true}) {
    const std::string images = dir.file(gzip ? "i.gz" : "i.raw");
    const std::string labels = dir.file(gzip ? "l.gz" : "l.raw");
    write_idx(ds, images, labels, gzip);
    const Bytes head = read_bytes(images);
    if (gzip) {
      EXPECT_EQ(head[0], 0x1f);
      EXPECT_EQ(head[1], 0x8b);
    } else {
      EXPECT_EQ(head.size(), 16u + 7 * 15);
      EXPECT_EQ(Bytes(head.begin(), head.begin() + 4), (Bytes{0, 0, 8, 3}));
      EXPECT_EQ(read_bytes(labels).size(), 8u + 7);
    }
    const Dataset back = read_idx(images, labels);
    EXPECT_EQ(back.count, 7);
    EXPECT_EQ(back.height, 3);
    EXPECT_EQ(back.width, 5);
    EXPECT_EQ(back.channels, 1);
    EXPECT_EQ(back.classes, 10);
    EXPECT_EQ(back.images, ds.images);  // k/255 survives the u8 round trip exactly
    EXPECT_EQ(back.labels, ds.labels);
    EXPECT_NE(back.source.find(images), std::string::npos);
  }
}

TEST(Idx, RoundTripRank4WithChannels) {
  TempDir dir;
  const Dataset ds = tiny_dataset(4, 2, 3, 3);
  write_idx(ds, dir.file("i"), dir.file("l"), false);
  const Bytes file = read_bytes(dir.file("i"));
  EXPECT_EQ(Bytes(file.begin(), file.begin() + 4), (Bytes{0, 0, 8, 4}));
  const Dataset back = read_idx(dir.file("i"), dir.file("l"));
  EXPECT_EQ(back.channels, 3);
  EXPECT_EQ(back.images, ds.images);
}

TEST(Idx, WriteRoundsAndClampsPixels) {
  TempDir dir;
  Dataset ds = tiny_dataset(1, 1, 5, 1);
  ds.images = {-0.5f, 0.5f, 1.5f, 0.1f, std::numeric_limits<float>::quiet_NaN()};
  write_idx(ds, dir.file("i"), dir.file("l"), false);
  const Bytes b = read_bytes(dir.file("i"));
  EXPECT_EQ(Bytes(b.begin() + 16, b.end()), (Bytes{0, 128, 255, 26, 0}));
}

TEST(Idx, ReadsHandBuiltFilesWithKnownBytes) {
  TempDir dir;
  write_bytes(dir.file("i"), concat(header(0x803, {2, 2, 3}), {0, 255, 51, 102, 1, 2,  //
                                                               3, 4, 5, 6, 7, 254}));
  write_bytes(dir.file("l"), concat(header(0x801, {2}), {7, 3}));
  const Dataset ds = read_idx(dir.file("i"), dir.file("l"));
  ASSERT_EQ(ds.count, 2);
  EXPECT_EQ(ds.height, 2);
  EXPECT_EQ(ds.width, 3);
  EXPECT_EQ(ds.channels, 1);
  ASSERT_EQ(ds.images.size(), 12u);
  EXPECT_FLOAT_EQ(ds.images[0], 0.0f);
  EXPECT_FLOAT_EQ(ds.images[1], 1.0f);
  EXPECT_FLOAT_EQ(ds.images[2], 0.2f);
  EXPECT_FLOAT_EQ(ds.images[3], 0.4f);
  EXPECT_FLOAT_EQ(ds.images[11], 254.0f / 255.0f);
  EXPECT_EQ(ds.labels, (std::vector<std::int32_t>{7, 3}));
  EXPECT_EQ(ds.classes, 10);
}

TEST(Idx, ClassCountGrowsWithLargeLabelsOrIsChecked) {
  TempDir dir;
  write_bytes(dir.file("i"), concat(header(0x803, {2, 1, 1}), {9, 9}));
  write_bytes(dir.file("l"), concat(header(0x801, {2}), {12, 3}));
  EXPECT_EQ(read_idx(dir.file("i"), dir.file("l")).classes, 13);
  EXPECT_EQ(read_idx(dir.file("i"), dir.file("l"), 20).classes, 20);
  const std::string msg = error_of([&] { read_idx(dir.file("i"), dir.file("l"), 10); });
  EXPECT_NE(msg.find(dir.file("l")), std::string::npos) << msg;
  EXPECT_NE(msg.find("label 12 at index 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("10 classes"), std::string::npos) << msg;
}

TEST(Idx, NonGzipFileNamedGzIsReadByMagicAndGzipWithoutSuffix) {
  TempDir dir;
  write_bytes(dir.file("images.gz"), concat(header(0x803, {1, 1, 2}), {0, 255}));
  write_gzip(dir.file("labels.raw"), concat(header(0x801, {1}), {4}));
  ASSERT_EQ(read_bytes(dir.file("labels.raw"))[0], 0x1f);
  const Dataset ds = read_idx(dir.file("images.gz"), dir.file("labels.raw"));
  EXPECT_EQ(ds.images, (std::vector<float>{0.0f, 1.0f}));
  EXPECT_EQ(ds.labels, (std::vector<std::int32_t>{4}));
}

TEST(Idx, TruncatedImagesNameTheFile) {
  TempDir dir;
  write_bytes(dir.file("l"), concat(header(0x801, {2}), {1, 2}));
  write_bytes(dir.file("i"), concat(header(0x803, {2, 2, 3}), Bytes(11, 7)));
  std::string msg = error_of([&] { read_idx(dir.file("i"), dir.file("l")); });
  EXPECT_NE(msg.find(dir.file("i")), std::string::npos) << msg;
  EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
  EXPECT_NE(msg.find("promises 12"), std::string::npos) << msg;

  write_bytes(dir.file("i"), Bytes{0, 0, 8, 3, 0, 0});  // ends inside the header
  msg = error_of([&] { read_idx(dir.file("i"), dir.file("l")); });
  EXPECT_NE(msg.find(dir.file("i")), std::string::npos) << msg;
  EXPECT_NE(msg.find("header"), std::string::npos) << msg;

  write_bytes(dir.file("i"), Bytes{});  // empty
  EXPECT_NE(error_of([&] { read_idx(dir.file("i"), dir.file("l")); }), "");
}

TEST(Idx, TruncatedLabelsNameTheFile) {
  TempDir dir;
  write_bytes(dir.file("i"), concat(header(0x803, {3, 1, 1}), {1, 2, 3}));
  write_bytes(dir.file("l"), concat(header(0x801, {3}), {1, 2}));
  const std::string msg = error_of([&] { read_idx(dir.file("i"), dir.file("l")); });
  EXPECT_NE(msg.find(dir.file("l")), std::string::npos) << msg;
  EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
}

TEST(Idx, TruncatedGzipStreamIsAnError) {
  TempDir dir;
  const Dataset ds = tiny_dataset(200, 28, 28, 1);
  write_idx(ds, dir.file("i.gz"), dir.file("l.gz"), true);
  Bytes gz = read_bytes(dir.file("i.gz"));
  gz.resize(gz.size() / 2);
  write_bytes(dir.file("i.gz"), gz);
  const std::string msg = error_of([&] { read_idx(dir.file("i.gz"), dir.file("l.gz")); });
  EXPECT_NE(msg.find(dir.file("i.gz")), std::string::npos) << msg;
}

TEST(Idx, CorruptGzipStreamIsAnError) {
  TempDir dir;
  const Dataset ds = tiny_dataset(50, 28, 28, 1);
  write_idx(ds, dir.file("i.gz"), dir.file("l.gz"), true);
  Bytes gz = read_bytes(dir.file("i.gz"));
  for (std::size_t i = 20; i < gz.size() - 8; i += 7) gz[i] ^= 0x5a;
  write_bytes(dir.file("i.gz"), gz);
  const std::string msg = error_of([&] { read_idx(dir.file("i.gz"), dir.file("l.gz")); });
  EXPECT_NE(msg.find(dir.file("i.gz")), std::string::npos) << msg;
}

TEST(Idx, TrailingDataIsAnError) {
  TempDir dir;
  write_bytes(dir.file("i"), concat(header(0x803, {1, 1, 2}), {1, 2, 3}));
  write_bytes(dir.file("l"), concat(header(0x801, {1}), {1}));
  const std::string msg = error_of([&] { read_idx(dir.file("i"), dir.file("l")); });
  EXPECT_NE(msg.find(dir.file("i")), std::string::npos) << msg;
  EXPECT_NE(msg.find("after"), std::string::npos) << msg;
}

TEST(Idx, WrongMagicNamesTheFileAndSpotsSwappedPaths) {
  TempDir dir;
  write_bytes(dir.file("i"), concat(header(0x803, {1, 1, 1}), {1}));
  write_bytes(dir.file("l"), concat(header(0x801, {1}), {1}));
  std::string msg = error_of([&] { read_idx(dir.file("l"), dir.file("i")); });
  EXPECT_NE(msg.find(dir.file("l")), std::string::npos) << msg;
  EXPECT_NE(msg.find("0x00000801"), std::string::npos) << msg;
  EXPECT_NE(msg.find("swapped"), std::string::npos) << msg;

  write_bytes(dir.file("x"), concat(header(0x0d0c0b0a, {1, 1, 1}), {1}));
  msg = error_of([&] { read_idx(dir.file("x"), dir.file("l")); });
  EXPECT_NE(msg.find("not an IDX images file"), std::string::npos) << msg;
  msg = error_of([&] { read_idx(dir.file("i"), dir.file("x")); });
  EXPECT_NE(msg.find("not an IDX labels file"), std::string::npos) << msg;
  EXPECT_NE(msg.find(dir.file("x")), std::string::npos) << msg;

  write_bytes(dir.file("f32"), concat(header(0x0d03, {1, 1, 1}), {0, 0, 0, 0}));  // f32 images
  EXPECT_NE(error_of([&] { read_idx(dir.file("f32"), dir.file("l")); }), "");
}

TEST(Idx, CountMismatchNamesBothFiles) {
  TempDir dir;
  write_bytes(dir.file("i"), concat(header(0x803, {3, 1, 1}), {1, 2, 3}));
  write_bytes(dir.file("l"), concat(header(0x801, {2}), {1, 2}));
  const std::string msg = error_of([&] { read_idx(dir.file("i"), dir.file("l")); });
  EXPECT_NE(msg.find(dir.file("i")), std::string::npos) << msg;
  EXPECT_NE(msg.find(dir.file("l")), std::string::npos) << msg;
  EXPECT_NE(msg.find("2 labels"), std::string::npos) << msg;
  EXPECT_NE(msg.find("3 images"), std::string::npos) << msg;
}

TEST(Idx, AbsurdOrZeroDimensionsAreRefusedBeforeAllocating) {
  TempDir dir;
  write_bytes(dir.file("l"), concat(header(0x801, {1}), {1}));
  write_bytes(dir.file("huge"), header(0x803, {0xffffffffu, 0xffffffffu, 0xffffffffu}));
  std::string msg = error_of([&] { read_idx(dir.file("huge"), dir.file("l")); });
  EXPECT_NE(msg.find("2 GiB"), std::string::npos) << msg;
  EXPECT_NE(msg.find(dir.file("huge")), std::string::npos) << msg;

  write_bytes(dir.file("zero"), header(0x803, {5, 0, 28}));
  msg = error_of([&] { read_idx(dir.file("zero"), dir.file("l")); });
  EXPECT_NE(msg.find("zero dimension"), std::string::npos) << msg;

  write_bytes(dir.file("l0"), header(0x801, {0}));
  write_bytes(dir.file("i"), concat(header(0x803, {1, 1, 1}), {1}));
  EXPECT_NE(error_of([&] { read_idx(dir.file("i"), dir.file("l0")); }), "");

  // Within the cap (exactly 2 GiB) but the file holds 10 bytes: fails on truncation, having
  // grown its buffers only as far as the data that exists.
  write_bytes(dir.file("big"), concat(header(0x803, {2048, 1024, 1024}), Bytes(10, 1)));
  write_bytes(dir.file("lbig"), concat(header(0x801, {2048}), Bytes(2048, 1)));
  msg = error_of([&] { read_idx(dir.file("big"), dir.file("lbig")); });
  EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
}

TEST(Idx, MissingFileOrDirectoryNamesThePath) {
  TempDir dir;
  write_bytes(dir.file("l"), concat(header(0x801, {1}), {1}));
  const std::string missing = dir.file("does-not-exist.gz");
  std::string msg = error_of([&] { read_idx(missing, dir.file("l")); });
  EXPECT_NE(msg.find(missing), std::string::npos) << msg;
  EXPECT_NE(msg.find("no such file"), std::string::npos) << msg;
  msg = error_of([&] { read_idx(dir.path().string(), dir.file("l")); });
  EXPECT_NE(msg.find("directory"), std::string::npos) << msg;
}

TEST(Idx, WriteRefusesInconsistentDatasets) {
  TempDir dir;
  Dataset ds = tiny_dataset(3, 2, 2, 1);
  ds.images.pop_back();
  EXPECT_NE(error_of([&] { write_idx(ds, dir.file("i"), dir.file("l"), false); }), "");
  ds = tiny_dataset(3, 2, 2, 1);
  ds.labels[1] = 300;
  const std::string msg = error_of([&] { write_idx(ds, dir.file("i"), dir.file("l"), false); });
  EXPECT_NE(msg.find("300"), std::string::npos) << msg;
  EXPECT_FALSE(std::filesystem::exists(dir.file("i")));  // nothing written
  EXPECT_NE(error_of([&] {
              write_idx(tiny_dataset(1, 1, 1, 1), dir.file("no/such/dir/i"), dir.file("l"), true);
            }),
            "");
}

}  // namespace
}  // namespace ts
