#include "engine/data/image_codec.hpp"

#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "engine/data/jpeg_codec.hpp"
#include "engine/data/png_codec.hpp"

namespace ts {
namespace {

constexpr unsigned char kPngMagic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
constexpr unsigned char kJpegMagic[3] = {0xff, 0xd8, 0xff};

// "89 50 4e 47" — the first few bytes, for an error message.
std::string leading_bytes(const unsigned char* data, std::size_t size) {
  std::string s;
  for (std::size_t i = 0; i < size && i < 8; ++i) {
    char buf[4];
    std::snprintf(buf, sizeof buf, "%s%02x", i ? " " : "", data[i]);
    s += buf;
  }
  return s;
}

[[noreturn]] void not_an_image(const unsigned char* data, std::size_t size,
                               const std::string& path) {
  if (size == 0) throw DatasetError("image file '" + path + "' is empty");
  throw DatasetError("file '" + path + "' is not a PNG or JPEG image (it starts with bytes " +
                     leading_bytes(data, size) + ")");
}

// pixels [count, 3] -> [count, 1] in place, libjpeg's integer luma:
// (19595 R + 38470 G + 7471 B + 32768) >> 16, the coefficients 0.299, 0.587, 0.114 in 16.16.
void rgb_to_gray(std::vector<unsigned char>& pixels) {
  const std::size_t count = pixels.size() / 3;
  unsigned char* p = pixels.data();
  for (std::size_t i = 0; i < count; ++i) {
    const unsigned r = p[3 * i], g = p[3 * i + 1], b = p[3 * i + 2];
    p[i] = static_cast<unsigned char>((19595u * r + 38470u * g + 7471u * b + 32768u) >> 16);
  }
  pixels.resize(count);
}

}  // namespace

DatasetError image_too_large(const char* format, const std::string& path, std::int64_t width,
                             std::int64_t height) {
  return DatasetError(std::string(format) + " file '" + path + "' is " + std::to_string(width) +
                      "x" + std::to_string(height) + " pixels, larger than the " +
                      std::to_string(kMaxImageSide) + "x" + std::to_string(kMaxImageSide) +
                      " this reader accepts (corrupt or hostile header?)");
}

ImageFormat detect_image_format(const unsigned char* data, std::size_t size) {
  if (size >= sizeof kPngMagic && std::memcmp(data, kPngMagic, sizeof kPngMagic) == 0)
    return ImageFormat::png;
  if (size >= sizeof kJpegMagic && std::memcmp(data, kJpegMagic, sizeof kJpegMagic) == 0)
    return ImageFormat::jpeg;
  return ImageFormat::unknown;
}

ImageInfo probe_image(const unsigned char* data, std::size_t size, const std::string& path) {
  switch (detect_image_format(data, size)) {
    case ImageFormat::png:
      return png_codec::probe(data, size, path);
    case ImageFormat::jpeg:
      return jpeg_codec::probe(data, size, path);
    case ImageFormat::unknown:
      break;
  }
  not_an_image(data, size, path);
}

ImageInfo decode_image(const unsigned char* data, std::size_t size, int channels,
                       const std::string& path, std::vector<unsigned char>& pixels) {
  if (channels != 1 && channels != 3)
    throw std::invalid_argument("decode_image: channels must be 1 or 3, not " +
                                std::to_string(channels));
  int decoded = 0;
  ImageInfo info;
  switch (detect_image_format(data, size)) {
    case ImageFormat::png:
      info = png_codec::decode(data, size, channels, path, pixels, decoded);
      break;
    case ImageFormat::jpeg:
      info = jpeg_codec::decode(data, size, channels, path, pixels, decoded);
      break;
    case ImageFormat::unknown:
      not_an_image(data, size, path);
  }
  if (decoded == 3 && channels == 1) rgb_to_gray(pixels);
  return info;
}

std::vector<unsigned char> encode_png(const unsigned char* pixels, std::int64_t height,
                                      std::int64_t width, int channels) {
  return png_codec::encode(pixels, height, width, channels, 8);
}

std::vector<unsigned char> encode_png16(const std::uint16_t* pixels, std::int64_t height,
                                        std::int64_t width, int channels) {
  return png_codec::encode(pixels, height, width, channels, 16);
}

std::vector<unsigned char> encode_jpeg(const unsigned char* pixels, std::int64_t height,
                                       std::int64_t width, int channels, int quality) {
  return jpeg_codec::encode(pixels, height, width, channels, quality);
}

}  // namespace ts
