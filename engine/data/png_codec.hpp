// PNG half of image_codec.hpp (libpng). Internal to ts_data: use image_codec.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/data/image_codec.hpp"

namespace ts::png_codec {

// Header only; see probe_image.
ImageInfo probe(const unsigned char* data, std::size_t size, const std::string& path);
// pixels [height, width, decoded] u8 where decoded = channels (1 or 3), except that a colour
// image asked for as grey comes back as RGB (decoded = 3): decode_image converts it.
ImageInfo decode(const unsigned char* data, std::size_t size, int channels, const std::string& path,
                 std::vector<unsigned char>& pixels, int& decoded);
// pixels [height, width, channels] with bit_depth 8 (u8) or 16 (u16, host order), channels 1-4.
std::vector<unsigned char> encode(const void* pixels, std::int64_t height, std::int64_t width,
                                  int channels, int bit_depth);

}  // namespace ts::png_codec
