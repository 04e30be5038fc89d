// JPEG half of image_codec.hpp (libjpeg-turbo). Internal to ts_data: use image_codec.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/data/image_codec.hpp"

namespace ts::jpeg_codec {

// Header only; see probe_image.
ImageInfo probe(const unsigned char* data, std::size_t size, const std::string& path);
// pixels [height, width, decoded] u8 where decoded = channels (1 or 3), except that a CMYK image
// asked for as grey comes back as RGB (decoded = 3): decode_image converts it.
ImageInfo decode(const unsigned char* data, std::size_t size, int channels, const std::string& path,
                 std::vector<unsigned char>& pixels, int& decoded);
// pixels [height, width, channels] u8, channels 1 or 3, quality 1-100.
std::vector<unsigned char> encode(const unsigned char* pixels, std::int64_t height,
                                  std::int64_t width, int channels, int quality);

}  // namespace ts::jpeg_codec
