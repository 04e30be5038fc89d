// libpng reports errors by calling an error function that must not return; ours records the
// message and longjmps back to the setjmp in run_read / run_write. Those two functions hold only
// trivially destructible locals (longjmp skips destructors) and touch C++ containers only through
// pointers owned by their callers, which destroy the libpng structures on every path.
#include "engine/data/png_codec.hpp"

#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>

namespace ts::png_codec {
namespace {

struct ReadJob {
  const unsigned char* data = nullptr;
  std::size_t size = 0, pos = 0;
  int channels = 0;                              // wanted: 1 or 3, or 0 for the header only
  std::vector<unsigned char>* pixels = nullptr;  // [height, width, decoded]
  ImageInfo info;
  int decoded = 0;
  bool too_large = false, out_of_memory = false;
  char message[256] = {};
};

struct WriteJob {
  std::vector<unsigned char>* out = nullptr;
  const unsigned char* pixels = nullptr;  // [height, width, channels] of bit_depth bits
  png_uint_32 height = 0, width = 0;
  int channels = 0, bit_depth = 0;
  bool out_of_memory = false;
  char message[256] = {};
};

template <typename Job>
[[noreturn]] void on_error(png_structp png, png_const_charp message) {
  auto* job = static_cast<Job*>(png_get_error_ptr(png));
  std::snprintf(job->message, sizeof job->message, "%s", message ? message : "unknown error");
  png_longjmp(png, 1);
}

// Warnings concern ancillary chunks libpng skips (bad CRC, bad gamma, ...): the pixels are fine.
void on_warning(png_structp, png_const_charp) {}

void on_read(png_structp png, png_bytep out, png_size_t bytes) {
  auto* job = static_cast<ReadJob*>(png_get_io_ptr(png));
  if (bytes > job->size - job->pos) png_error(png, "unexpected end of file");
  std::memcpy(out, job->data + job->pos, bytes);
  job->pos += bytes;
}

void on_write(png_structp png, png_bytep data, png_size_t bytes) {
  auto* job = static_cast<WriteJob*>(png_get_io_ptr(png));
  try {
    job->out->insert(job->out->end(), data, data + bytes);
  } catch (const std::bad_alloc&) {
    job->out_of_memory = true;
  }
  if (job->out_of_memory) png_error(png, "out of memory");
}

void on_flush(png_structp) {}

// Everything that may longjmp. Returns false with job.message set on a libpng error.
bool run_read(png_structp png, png_infop info, ReadJob& job) {
  if (setjmp(png_jmpbuf(png))) return false;
  // Our own size check below gives the clearer message; libpng's default limit is 1000000.
  png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
  png_read_info(png, info);
  const png_uint_32 width = png_get_image_width(png, info);
  const png_uint_32 height = png_get_image_height(png, info);
  const int color = png_get_color_type(png, info);
  const int depth = png_get_bit_depth(png, info);
  job.info.height = height;
  job.info.width = width;
  job.info.file_channels = (color & PNG_COLOR_MASK_COLOR) ? 3 : 1;
  if (width > kMaxImageSide || height > kMaxImageSide) {
    job.too_large = true;
    return true;
  }
  if (job.channels == 0) return true;

  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);  // ignores tRNS
  if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (depth == 16) png_set_scale_16(png);  // round(v / 257)
  if (color & PNG_COLOR_MASK_ALPHA) png_set_strip_alpha(png);
  const bool colour = job.info.file_channels == 3;
  if (!colour && job.channels == 3) png_set_gray_to_rgb(png);
  job.decoded = colour ? 3 : job.channels;
  const int passes = png_set_interlace_handling(png);
  png_read_update_info(png, info);
  const std::size_t row_bytes = std::size_t{width} * static_cast<std::size_t>(job.decoded);
  if (png_get_rowbytes(png, info) != row_bytes)
    png_error(png, "unsupported combination of colour type and bit depth");

  try {
    job.pixels->resize(row_bytes * height);
  } catch (const std::bad_alloc&) {
    job.out_of_memory = true;
  }
  if (job.out_of_memory) png_error(png, "out of memory");
  unsigned char* const rows = job.pixels->data();
  // Interlaced images: each pass refines the rows written by the previous ones.
  for (int pass = 0; pass < passes; ++pass)
    for (png_uint_32 y = 0; y < height; ++y) png_read_row(png, rows + row_bytes * y, nullptr);
  png_read_end(png, nullptr);
  return true;
}

bool run_write(png_structp png, png_infop info, WriteJob& job) {
  if (setjmp(png_jmpbuf(png))) return false;
  static constexpr int kColorTypes[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                        PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
  png_set_write_fn(png, &job, on_write, on_flush);
  png_set_IHDR(png, info, job.width, job.height, job.bit_depth, kColorTypes[job.channels - 1],
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  if (job.bit_depth == 16) {
    const std::uint16_t probe = 1;
    unsigned char first;
    std::memcpy(&first, &probe, 1);
    if (first == 1) png_set_swap(png);  // little-endian host: PNG stores big-endian
  }
  const std::size_t row_bytes =
      std::size_t{job.width} * static_cast<std::size_t>(job.channels * job.bit_depth / 8);
  for (png_uint_32 y = 0; y < job.height; ++y) png_write_row(png, job.pixels + row_bytes * y);
  png_write_end(png, nullptr);
  return true;
}

// Owns the libpng read structures for the life of one probe or decode.
class Reader {
 public:
  explicit Reader(ReadJob& job) {
    png_ = png_create_read_struct(PNG_LIBPNG_VER_STRING, &job, on_error<ReadJob>, on_warning);
    if (png_) info_ = png_create_info_struct(png_);
    if (!png_ || !info_) {
      png_destroy_read_struct(&png_, nullptr, nullptr);
      throw std::bad_alloc();
    }
    png_set_read_fn(png_, &job, on_read);
  }
  ~Reader() { png_destroy_read_struct(&png_, info_ ? &info_ : nullptr, nullptr); }
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;
  png_structp png() const { return png_; }
  png_infop info() const { return info_; }

 private:
  png_structp png_ = nullptr;
  png_infop info_ = nullptr;
};

ImageInfo read(ReadJob& job, const std::string& path) {
  bool ok;
  {
    Reader reader(job);
    ok = run_read(reader.png(), reader.info(), job);
  }
  if (!ok) {
    throw DatasetError("PNG file '" + path + "' is corrupt or truncated (libpng: " + job.message +
                       ")");
  }
  if (job.too_large) throw image_too_large("PNG", path, job.info.width, job.info.height);
  return job.info;
}

}  // namespace

ImageInfo probe(const unsigned char* data, std::size_t size, const std::string& path) {
  ReadJob job;
  job.data = data;
  job.size = size;
  return read(job, path);
}

ImageInfo decode(const unsigned char* data, std::size_t size, int channels, const std::string& path,
                 std::vector<unsigned char>& pixels, int& decoded) {
  ReadJob job;
  job.data = data;
  job.size = size;
  job.channels = channels;
  job.pixels = &pixels;
  const ImageInfo info = read(job, path);
  decoded = job.decoded;
  return info;
}

std::vector<unsigned char> encode(const void* pixels, std::int64_t height, std::int64_t width,
                                  int channels, int bit_depth) {
  if (height < 1 || width < 1 || height > kMaxImageSide || width > kMaxImageSide || channels < 1 ||
      channels > 4 || (bit_depth != 8 && bit_depth != 16)) {
    throw std::invalid_argument("encode_png: bad image shape [" + std::to_string(height) + ", " +
                                std::to_string(width) + ", " + std::to_string(channels) +
                                "] or bit depth " + std::to_string(bit_depth));
  }
  std::vector<unsigned char> out;
  WriteJob job;
  job.out = &out;
  job.pixels = static_cast<const unsigned char*>(pixels);
  job.height = static_cast<png_uint_32>(height);
  job.width = static_cast<png_uint_32>(width);
  job.channels = channels;
  job.bit_depth = bit_depth;
  png_structp png =
      png_create_write_struct(PNG_LIBPNG_VER_STRING, &job, on_error<WriteJob>, on_warning);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  const bool ok = png && info && run_write(png, info, job);
  png_destroy_write_struct(&png, info ? &info : nullptr);
  if (!ok) {
    throw std::runtime_error(std::string("encode_png failed (libpng: ") +
                             (job.message[0] ? job.message : "out of memory") + ")");
  }
  return out;
}

}  // namespace ts::png_codec
