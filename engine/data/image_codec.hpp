// PNG (libpng) and JPEG (libjpeg-turbo) decoding from memory into 8-bit pixels, and encoding for
// writing datasets and tests. The magic bytes decide the format, never the file name. Every
// failure — not an image, truncated or corrupt data, an image larger than kMaxImageSide — is a
// DatasetError naming the path the caller passes in; hostile input never crashes or leaks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/data/dataset.hpp"

namespace ts {

// Images wider or taller than this are refused before any pixel memory is allocated (a small
// corrupt or hostile file must not make the reader allocate gigabytes).
inline constexpr std::int64_t kMaxImageSide = 16384;

enum class ImageFormat { unknown, png, jpeg };

// The error for a header announcing an image larger than kMaxImageSide (format: "PNG", "JPEG").
DatasetError image_too_large(const char* format, const std::string& path, std::int64_t width,
                             std::int64_t height);

// The format the first bytes announce: PNG (89 50 4E 47 0D 0A 1A 0A) or JPEG (FF D8 FF).
ImageFormat detect_image_format(const unsigned char* data, std::size_t size);

struct ImageInfo {
  std::int64_t height = 0, width = 0;
  // 1 when the file holds a grey image (with or without alpha), 3 for colour (RGB, RGBA,
  // palette, YCbCr, CMYK).
  int file_channels = 0;
};

// Reads only the header of a PNG or JPEG held in data[0, size): size and colour kind.
// `path` only names the file in errors.
ImageInfo probe_image(const unsigned char* data, std::size_t size, const std::string& path);

// Decodes a PNG or JPEG into pixels [height, width, channels] u8 (resized to fit, storage reused),
// channels = 1 (grey) or 3 (RGB), converting as needed: grey -> RGB repeats the value, RGB -> grey
// is libjpeg's luma (0.299 R + 0.587 G + 0.114 B, rounded); alpha is dropped (not composited),
// palettes and 1/2/4-bit grey are expanded, 16-bit samples are scaled to 8 bits (round(v / 257)),
// Adam7 interlacing is undone, CMYK JPEGs (Adobe, inverted) become RGB. Returns the header's size
// and colour kind. Throws std::invalid_argument for channels other than 1 or 3.
ImageInfo decode_image(const unsigned char* data, std::size_t size, int channels,
                       const std::string& path, std::vector<unsigned char>& pixels);

// pixels [height, width, channels] u8, channels 1 (grey), 2 (grey + alpha), 3 (RGB) or 4 (RGBA)
// -> a complete 8-bit PNG file. Throws std::invalid_argument on a bad shape.
std::vector<unsigned char> encode_png(const unsigned char* pixels, std::int64_t height,
                                      std::int64_t width, int channels);
// The same with 16-bit samples: pixels [height, width, channels] u16 -> a 16-bit PNG file.
std::vector<unsigned char> encode_png16(const std::uint16_t* pixels, std::int64_t height,
                                        std::int64_t width, int channels);
// pixels [height, width, channels] u8, channels 1 (grey) or 3 (RGB) -> a baseline JPEG file of
// the given quality (1-100). Throws std::invalid_argument on a bad shape or quality.
std::vector<unsigned char> encode_jpeg(const unsigned char* pixels, std::int64_t height,
                                       std::int64_t width, int channels, int quality = 90);

}  // namespace ts
