// PNG/JPEG decoding and encoding: exact round trips, every colour conversion against a reference
// written here (or libpng's own writer), and hostile input that must give a DatasetError naming
// the file — never a crash (this binary also runs under ASan/UBSan).
#include <gtest/gtest.h>
#include <png.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/data/image_codec.hpp"

namespace ts {
namespace {

using Bytes = std::vector<unsigned char>;
const std::string kPath = "data/some class/img_042.png";

// Deterministic varied bytes [n].
Bytes pattern(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  Bytes b(n);
  for (auto& v : b) v = static_cast<unsigned char>(gen() & 0xff);
  return b;
}

// A smooth image [h, w, c] (JPEG-friendly): gradients plus a soft blob.
Bytes smooth(int h, int w, int c) {
  Bytes b(static_cast<std::size_t>(h * w * c));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int ch = 0; ch < c; ++ch) {
        const double blob =
            80.0 *
            std::exp(-((x - w / 2.0) * (x - w / 2.0) + (y - h / 3.0) * (y - h / 3.0)) / 40.0);
        const double v = 30.0 + 120.0 * x / w + 60.0 * y / h + blob - 25.0 * ch;
        b[static_cast<std::size_t>((y * w + x) * c + ch)] =
            static_cast<unsigned char>(std::clamp(v, 0.0, 255.0));
      }
  return b;
}

Bytes decode(const Bytes& file, int channels, ImageInfo* info = nullptr) {
  Bytes pixels;
  const ImageInfo i = decode_image(file.data(), file.size(), channels, kPath, pixels);
  if (info) *info = i;
  return pixels;
}

// The error message of decoding `file`, or "" when it decodes. Fails the test on any other
// exception type.
std::string decode_error(const Bytes& file, int channels = 3) {
  try {
    Bytes pixels;
    decode_image(file.data(), file.size(), channels, kPath, pixels);
  } catch (const DatasetError& e) {
    return e.what();
  }
  return "";
}

// --- A reference PNG writer: libpng's classic API with any colour type, depth, palette and
// interlacing. rows are already in PNG's packed, big-endian layout.
struct RawPng {
  png_uint_32 width = 0, height = 0;
  int color_type = PNG_COLOR_TYPE_GRAY, bit_depth = 8, interlace = PNG_INTERLACE_NONE;
  std::vector<png_color> palette;
  std::vector<Bytes> rows;
};

void append_bytes(png_structp png, png_bytep data, png_size_t n) {
  auto* out = static_cast<Bytes*>(png_get_io_ptr(png));
  out->insert(out->end(), data, data + n);
}

bool write_raw_png_impl(png_structp png, png_infop info, const RawPng& raw, Bytes& out,
                        std::vector<png_bytep>& rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_write_fn(png, &out, append_bytes, nullptr);
  png_set_IHDR(png, info, raw.width, raw.height, raw.bit_depth, raw.color_type, raw.interlace,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (!raw.palette.empty())
    png_set_PLTE(png, info, raw.palette.data(), static_cast<int>(raw.palette.size()));
  png_set_rows(png, info, rows.data());
  png_write_png(png, info, PNG_TRANSFORM_IDENTITY, nullptr);
  return true;
}

Bytes write_raw_png(const RawPng& raw) {
  Bytes out;
  std::vector<png_bytep> rows;
  for (const auto& r : raw.rows) rows.push_back(const_cast<png_bytep>(r.data()));
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  const bool ok = write_raw_png_impl(png, info, raw, out, rows);
  png_destroy_write_struct(&png, &info);
  EXPECT_TRUE(ok) << "reference PNG writer failed";
  return out;
}

// Rewrites every chunk's CRC so corrupt chunk data reaches the decoder instead of failing the
// CRC check. Stops at the first chunk that does not fit.
void fix_png_crcs(Bytes& png) {
  std::size_t at = 8;
  while (at + 12 <= png.size()) {
    const std::uint32_t len = std::uint32_t{png[at]} << 24 | std::uint32_t{png[at + 1]} << 16 |
                              std::uint32_t{png[at + 2]} << 8 | png[at + 3];
    if (len > png.size() - at - 12) return;
    const uLong crc = crc32(0, png.data() + at + 4, len + 4);
    for (int i = 0; i < 4; ++i)
      png[at + 8 + len + i] = static_cast<unsigned char>(crc >> (24 - 8 * i));
    at += 12 + len;
  }
}

TEST(ImageCodec, DetectsFormatByMagicBytes) {
  const Bytes png = encode_png(pattern(12, 1).data(), 3, 4, 1);
  const Bytes jpeg = encode_jpeg(smooth(8, 8, 3).data(), 8, 8, 3);
  EXPECT_EQ(detect_image_format(png.data(), png.size()), ImageFormat::png);
  EXPECT_EQ(detect_image_format(jpeg.data(), jpeg.size()), ImageFormat::jpeg);
  const Bytes text = {'G', 'I', 'F', '8', '9', 'a'};
  EXPECT_EQ(detect_image_format(text.data(), text.size()), ImageFormat::unknown);
  EXPECT_EQ(detect_image_format(png.data(), 7), ImageFormat::unknown);  // magic cut short
  // The path's extension plays no part: a PNG named .jpg decodes as a PNG.
  Bytes pixels;
  decode_image(png.data(), png.size(), 1, "photo.jpg", pixels);
  EXPECT_EQ(pixels, pattern(12, 1));
}

TEST(ImageCodec, PngRoundTripIsExactForGreyAndRgb) {
  for (const int c : {1, 3}) {
    const int h = 7, w = 5;
    const Bytes original = pattern(static_cast<std::size_t>(h * w * c), 10u + c);
    const Bytes file = encode_png(original.data(), h, w, c);
    ImageInfo info;
    EXPECT_EQ(decode(file, c, &info), original) << "channels " << c;
    EXPECT_EQ(info.height, h);
    EXPECT_EQ(info.width, w);
    EXPECT_EQ(info.file_channels, c);
    const ImageInfo probed = probe_image(file.data(), file.size(), kPath);
    EXPECT_EQ(probed.height, h);
    EXPECT_EQ(probed.width, w);
    EXPECT_EQ(probed.file_channels, c);
  }
}

TEST(ImageCodec, PngGreyToRgbRepeatsAndRgbToGreyIsLuma) {
  const int h = 4, w = 6;
  const Bytes grey = pattern(h * w, 3);
  const Bytes as_rgb = decode(encode_png(grey.data(), h, w, 1), 3);
  ASSERT_EQ(as_rgb.size(), grey.size() * 3);
  for (std::size_t i = 0; i < grey.size(); ++i)
    for (int ch = 0; ch < 3; ++ch) EXPECT_EQ(as_rgb[3 * i + ch], grey[i]);

  const Bytes rgb = pattern(h * w * 3, 4);
  const Bytes as_grey = decode(encode_png(rgb.data(), h, w, 3), 1);
  ASSERT_EQ(as_grey.size(), grey.size());
  for (std::size_t i = 0; i < as_grey.size(); ++i) {
    const double luma = 0.299 * rgb[3 * i] + 0.587 * rgb[3 * i + 1] + 0.114 * rgb[3 * i + 2];
    EXPECT_NEAR(as_grey[i], luma, 0.5 + 1e-3) << i;
  }
}

TEST(ImageCodec, PngAlphaIsDropped) {
  const int h = 3, w = 5;
  const Bytes rgba = pattern(h * w * 4, 5);
  const Bytes rgb = decode(encode_png(rgba.data(), h, w, 4), 3);
  ASSERT_EQ(rgb.size(), static_cast<std::size_t>(h * w * 3));
  for (int p = 0; p < h * w; ++p)
    for (int ch = 0; ch < 3; ++ch) EXPECT_EQ(rgb[p * 3 + ch], rgba[p * 4 + ch]);

  const Bytes grey_alpha = pattern(h * w * 2, 6);
  const Bytes grey = decode(encode_png(grey_alpha.data(), h, w, 2), 1);
  ASSERT_EQ(grey.size(), static_cast<std::size_t>(h * w));
  for (int p = 0; p < h * w; ++p) EXPECT_EQ(grey[p], grey_alpha[p * 2]);
}

TEST(ImageCodec, Png16BitIsScaledToRoundedEightBits) {
  const int h = 3, w = 4;
  for (const int c : {1, 3}) {
    std::vector<std::uint16_t> wide(static_cast<std::size_t>(h * w * c));
    std::mt19937 gen(7);
    for (auto& v : wide) v = static_cast<std::uint16_t>(gen());
    wide[0] = 0;
    wide[1] = 65535;
    wide[2] = 257 * 100 + 128;  // just below 100.5 * 257
    wide[3] = 257 * 100 + 129;  // just above
    const Bytes got = decode(encode_png16(wide.data(), h, w, c), c);
    ASSERT_EQ(got.size(), wide.size());
    for (std::size_t i = 0; i < wide.size(); ++i)
      EXPECT_EQ(got[i], static_cast<int>(std::lround(wide[i] / 257.0))) << "value " << wide[i];
  }
}

TEST(ImageCodec, PngPaletteAndLowBitDepthsAreExpanded) {
  const std::vector<png_color> palette = {{10, 20, 30}, {200, 100, 0}, {0, 255, 7}, {9, 9, 9}};
  for (const int depth : {8, 2}) {
    RawPng raw;
    raw.width = 5;
    raw.height = 2;
    raw.color_type = PNG_COLOR_TYPE_PALETTE;
    raw.bit_depth = depth;
    raw.palette = palette;
    const std::vector<int> index = {0, 1, 2, 3, 1, 3, 2, 1, 0, 0};  // [2, 5]
    for (int y = 0; y < 2; ++y) {
      Bytes row((5 * depth + 7) / 8, 0);
      for (int x = 0; x < 5; ++x) {
        const int v = index[y * 5 + x];
        if (depth == 8)
          row[x] = static_cast<unsigned char>(v);
        else
          row[x / 4] |= static_cast<unsigned char>(v << (6 - 2 * (x % 4)));  // MSB first
      }
      raw.rows.push_back(row);
    }
    const Bytes file = write_raw_png(raw);
    ImageInfo info;
    const Bytes rgb = decode(file, 3, &info);
    EXPECT_EQ(info.file_channels, 3);
    ASSERT_EQ(rgb.size(), 30u);
    for (int p = 0; p < 10; ++p) {
      const png_color& col = palette[static_cast<std::size_t>(index[p])];
      EXPECT_EQ(rgb[p * 3], col.red) << "depth " << depth << " pixel " << p;
      EXPECT_EQ(rgb[p * 3 + 1], col.green);
      EXPECT_EQ(rgb[p * 3 + 2], col.blue);
    }
    const Bytes grey = decode(file, 1);
    ASSERT_EQ(grey.size(), 10u);
    for (int p = 0; p < 10; ++p) {
      const png_color& col = palette[static_cast<std::size_t>(index[p])];
      EXPECT_NEAR(grey[p], 0.299 * col.red + 0.587 * col.green + 0.114 * col.blue, 0.501);
    }
  }

  // 1-bit grey: 0 -> 0, 1 -> 255.
  RawPng bits;
  bits.width = 10;
  bits.height = 1;
  bits.bit_depth = 1;
  bits.rows = {{0b10110000, 0b01000000}};
  const Bytes grey = decode(write_raw_png(bits), 1);
  const Bytes expected = {255, 0, 255, 255, 0, 0, 0, 0, 0, 255};
  EXPECT_EQ(grey, expected);
}

TEST(ImageCodec, PngInterlacedDecodesLikeNonInterlaced) {
  const int h = 11, w = 13;
  const Bytes rgb = pattern(h * w * 3, 8);
  RawPng raw;
  raw.width = w;
  raw.height = h;
  raw.color_type = PNG_COLOR_TYPE_RGB;
  raw.interlace = PNG_INTERLACE_ADAM7;
  for (int y = 0; y < h; ++y)
    raw.rows.emplace_back(rgb.begin() + y * w * 3, rgb.begin() + (y + 1) * w * 3);
  EXPECT_EQ(decode(write_raw_png(raw), 3), rgb);
}

TEST(ImageCodec, JpegRoundTripIsCloseAndConvertsChannels) {
  const int h = 24, w = 32;
  const Bytes rgb = smooth(h, w, 3);
  const Bytes file = encode_jpeg(rgb.data(), h, w, 3, 95);
  ImageInfo info;
  const Bytes back = decode(file, 3, &info);
  EXPECT_EQ(info.height, h);
  EXPECT_EQ(info.width, w);
  EXPECT_EQ(info.file_channels, 3);
  ASSERT_EQ(back.size(), rgb.size());
  double total = 0;
  int worst = 0;
  for (std::size_t i = 0; i < rgb.size(); ++i) {
    const int d = std::abs(back[i] - rgb[i]);
    total += d;
    worst = std::max(worst, d);
  }
  EXPECT_LT(total / static_cast<double>(rgb.size()), 2.0);
  EXPECT_LE(worst, 16);

  // Colour JPEG asked for as grey: the luma of the colour decode.
  const Bytes grey = decode(file, 1);
  ASSERT_EQ(grey.size(), static_cast<std::size_t>(h * w));
  for (int p = 0; p < h * w; ++p) {
    const double luma = 0.299 * back[p * 3] + 0.587 * back[p * 3 + 1] + 0.114 * back[p * 3 + 2];
    EXPECT_NEAR(grey[p], luma, 2.0) << p;
  }

  // Grey JPEG: close to the original; asked for as RGB, three equal channels.
  const Bytes grey_original = smooth(h, w, 1);
  const Bytes grey_file = encode_jpeg(grey_original.data(), h, w, 1, 95);
  EXPECT_EQ(probe_image(grey_file.data(), grey_file.size(), kPath).file_channels, 1);
  const Bytes grey_back = decode(grey_file, 1);
  ASSERT_EQ(grey_back.size(), grey_original.size());
  for (std::size_t i = 0; i < grey_back.size(); ++i)
    EXPECT_NEAR(grey_back[i], grey_original[i], 8) << i;
  const Bytes grey_rgb = decode(grey_file, 3);
  for (std::size_t i = 0; i < grey_back.size(); ++i)
    for (int ch = 0; ch < 3; ++ch) EXPECT_EQ(grey_rgb[i * 3 + ch], grey_back[i]);
}

TEST(ImageCodec, NotAnImageNamesTheFile) {
  const Bytes empty;
  EXPECT_NE(decode_error(empty).find(kPath), std::string::npos);
  EXPECT_NE(decode_error(empty).find("empty"), std::string::npos);
  const std::string text = "hello, this is text";
  const std::string err = decode_error(Bytes(text.begin(), text.end()));
  EXPECT_NE(err.find(kPath), std::string::npos) << err;
  EXPECT_NE(err.find("not a PNG or JPEG"), std::string::npos) << err;
  EXPECT_NE(err.find("68 65 6c 6c"), std::string::npos) << err;  // "hell"
  EXPECT_THROW(probe_image(empty.data(), 0, kPath), DatasetError);
  EXPECT_THROW(decode(encode_png(pattern(4, 1).data(), 2, 2, 1), 2), std::invalid_argument);
}

TEST(ImageCodec, TruncatedFilesNameTheFile) {
  const Bytes png = encode_png(pattern(6 * 7 * 3, 9).data(), 6, 7, 3);
  for (std::size_t len = 0; len < png.size(); ++len) {
    const std::string err = decode_error(Bytes(png.begin(), png.begin() + len));
    EXPECT_NE(err.find(kPath), std::string::npos) << "PNG cut to " << len << ": '" << err << "'";
  }
  const Bytes jpeg = encode_jpeg(smooth(16, 16, 3).data(), 16, 16, 3);
  for (std::size_t len = 0; len < jpeg.size(); ++len) {
    const std::string err = decode_error(Bytes(jpeg.begin(), jpeg.begin() + len));
    EXPECT_NE(err.find(kPath), std::string::npos) << "JPEG cut to " << len << ": '" << err << "'";
  }
}

TEST(ImageCodec, CorruptFilesNameTheFile) {
  Bytes png = encode_png(pattern(8 * 8, 2).data(), 8, 8, 1);
  png[png.size() - 20] ^= 0x55;  // inside IDAT: its CRC no longer matches
  std::string err = decode_error(png);
  EXPECT_NE(err.find("PNG file '" + kPath + "' is corrupt"), std::string::npos) << err;

  Bytes jpeg = encode_jpeg(smooth(8, 8, 1).data(), 8, 8, 1);
  for (std::size_t i = 3; i < 40; ++i) jpeg[i] = static_cast<unsigned char>(i * 37);
  err = decode_error(jpeg);
  EXPECT_NE(err.find("JPEG file '" + kPath + "' is corrupt"), std::string::npos) << err;
}

TEST(ImageCodec, HugeDeclaredSizeIsRefusedBeforeAllocating) {
  // PNG: rewrite IHDR's width and height (bytes 16-23) and its CRC.
  Bytes png = encode_png(pattern(4, 3).data(), 2, 2, 1);
  for (const std::uint32_t side : {100000u, static_cast<std::uint32_t>(kMaxImageSide) + 1}) {
    for (int i = 0; i < 4; ++i) {
      png[16 + i] = static_cast<unsigned char>(side >> (24 - 8 * i));
      png[20 + i] = static_cast<unsigned char>(side >> (24 - 8 * i));
    }
    fix_png_crcs(png);
    const std::string err = decode_error(png);
    EXPECT_NE(err.find(kPath), std::string::npos) << err;
    EXPECT_NE(err.find(std::to_string(side) + "x" + std::to_string(side)), std::string::npos)
        << err;
    EXPECT_THROW(probe_image(png.data(), png.size(), kPath), DatasetError);
  }
  // JPEG: rewrite the SOF0 frame's height and width to 60000.
  Bytes jpeg = encode_jpeg(smooth(8, 8, 3).data(), 8, 8, 3);
  std::size_t sof = 2;
  while (sof + 9 < jpeg.size() && !(jpeg[sof] == 0xff && jpeg[sof + 1] == 0xc0)) ++sof;
  ASSERT_LT(sof + 9, jpeg.size());
  for (const std::size_t at : {sof + 5, sof + 7}) {
    jpeg[at] = 60000 >> 8;
    jpeg[at + 1] = 60000 & 0xff;
  }
  const std::string err = decode_error(jpeg);
  EXPECT_NE(err.find(kPath), std::string::npos) << err;
  EXPECT_NE(err.find("60000x60000"), std::string::npos) << err;
}

// Random byte changes and truncations of valid files: each either decodes to a consistent
// buffer or throws a DatasetError naming the file. Run under ASan, this is a small fuzzer.
TEST(ImageCodec, MutatedFilesNeverCrash) {
  std::mt19937 gen(1234);
  const Bytes png = encode_png(smooth(20, 17, 3).data(), 20, 17, 3);
  const Bytes jpeg = encode_jpeg(smooth(20, 17, 3).data(), 20, 17, 3, 80);
  int decoded = 0, rejected = 0;
  for (int round = 0; round < 1500; ++round) {
    const bool is_png = round % 2 == 0;
    Bytes file = is_png ? png : jpeg;
    const int changes = 1 + static_cast<int>(gen() % 6);
    for (int i = 0; i < changes; ++i)
      file[8 + gen() % (file.size() - 8)] = static_cast<unsigned char>(gen());
    if (gen() % 4 == 0) file.resize(8 + gen() % (file.size() - 8));
    if (is_png && gen() % 2 == 0) fix_png_crcs(file);
    for (const int channels : {1, 3}) {
      Bytes pixels;
      try {
        const ImageInfo info = decode_image(file.data(), file.size(), channels, kPath, pixels);
        EXPECT_EQ(pixels.size(), static_cast<std::size_t>(info.height * info.width * channels));
        ++decoded;
      } catch (const DatasetError& e) {
        EXPECT_NE(std::string(e.what()).find(kPath), std::string::npos) << e.what();
        ++rejected;
      }
    }
  }
  EXPECT_GT(rejected, 0);
  EXPECT_GT(decoded, 0);
}

}  // namespace
}  // namespace ts
