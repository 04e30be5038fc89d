// libjpeg reports errors through error_exit, which must not return; ours formats the message and
// longjmps back to the setjmp in run_read / run_write. Those functions hold only trivially
// destructible locals (longjmp skips destructors), reach C++ containers only through pointers
// owned by their callers, and destroy the libjpeg object on every path. Warnings (premature end
// of data, corrupt entropy-coded data) are errors too: libjpeg would otherwise fill in grey.
#include "engine/data/jpeg_codec.hpp"

// jpeglib.h needs FILE and size_t declared first.
#include <cstdio>
#include <cstdlib>
// clang-format off
#include <jpeglib.h>
#include <jerror.h>
// clang-format on

#include <csetjmp>
#include <memory>
#include <new>
#include <stdexcept>

namespace ts::jpeg_codec {
namespace {

// Progressive files may hold any number of scans, each costing a pass over the whole image; real
// encoders write about ten. More than this is a hostile file meant to burn CPU.
constexpr int kMaxScans = 1000;
// libjpeg's own allocations (progressive coefficient buffers) are capped at this many bytes.
constexpr long kMaxLibjpegMemory = 1L << 30;

struct ErrorManager {
  jpeg_error_mgr pub;  // first: libjpeg sees a jpeg_error_mgr*
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

struct ReadJob {
  const unsigned char* data = nullptr;
  std::size_t size = 0;
  int channels = 0;                              // wanted: 1 or 3, or 0 for the header only
  std::vector<unsigned char>* pixels = nullptr;  // [height, width, decoded]
  ImageInfo info;
  int decoded = 0;
  bool too_large = false, out_of_memory = false;
  jpeg_decompress_struct cinfo;
  ErrorManager err;
  jpeg_progress_mgr progress;
};

struct WriteJob {
  const unsigned char* pixels = nullptr;  // [height, width, channels] u8
  JDIMENSION height = 0, width = 0;
  int channels = 0, quality = 0;
  unsigned char* buffer = nullptr;  // malloc'ed by jpeg_mem_dest; the caller frees it
  unsigned long buffer_size = 0;
  jpeg_compress_struct cinfo;
  ErrorManager err;
};

[[noreturn]] void on_error_exit(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

// level -1: a warning about corrupt data; >= 0: trace messages, ignored. Stray bytes between
// markers are common in files from cameras and harmless.
void on_emit_message(j_common_ptr cinfo, int level) {
  if (level < 0 && cinfo->err->msg_code != JWRN_EXTRANEOUS_DATA) on_error_exit(cinfo);
}

void on_progress(j_common_ptr cinfo) {
  if (!cinfo->is_decompressor) return;
  if (reinterpret_cast<j_decompress_ptr>(cinfo)->input_scan_number > kMaxScans) {
    auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
    std::snprintf(err->message, sizeof err->message, "more than %d progressive scans", kMaxScans);
    std::longjmp(err->jump, 1);
  }
}

void install_error_manager(ErrorManager& err) {
  jpeg_std_error(&err.pub);
  err.pub.error_exit = on_error_exit;
  err.pub.emit_message = on_emit_message;
  err.message[0] = '\0';
}

// Everything that may longjmp. Returns false with job.err.message set on a libjpeg error.
bool run_read(ReadJob& job) {
  jpeg_decompress_struct& cinfo = job.cinfo;
  cinfo.err = &job.err.pub;
  cinfo.mem = nullptr;  // jpeg_destroy_decompress is then safe before jpeg_create_decompress
  if (setjmp(job.err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  cinfo.progress = &job.progress;
  jpeg_mem_src(&cinfo, job.data, static_cast<unsigned long>(job.size));
  jpeg_read_header(&cinfo, TRUE);
  job.info.height = cinfo.image_height;
  job.info.width = cinfo.image_width;
  job.info.file_channels = cinfo.num_components == 1 ? 1 : 3;
  if (cinfo.image_width > kMaxImageSide || cinfo.image_height > kMaxImageSide) {
    job.too_large = true;
  }
  if (job.too_large || job.channels == 0) {
    jpeg_destroy_decompress(&cinfo);
    return true;
  }

  const bool cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
  cinfo.out_color_space = cmyk ? JCS_CMYK : job.channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  cinfo.mem->max_memory_to_use = kMaxLibjpegMemory;
  jpeg_start_decompress(&cinfo);
  const int components = cinfo.output_components;
  if (components != (cmyk ? 4 : job.channels) || cinfo.output_width != cinfo.image_width ||
      cinfo.output_height != cinfo.image_height) {
    ERREXIT(&cinfo, JERR_CONVERSION_NOTIMPL);
  }
  const std::size_t row_bytes = std::size_t{cinfo.output_width} * static_cast<unsigned>(components);
  try {
    job.pixels->resize(row_bytes * cinfo.output_height);
  } catch (const std::bad_alloc&) {
    job.out_of_memory = true;
  }
  if (job.out_of_memory) ERREXIT1(&cinfo, JERR_OUT_OF_MEMORY, 0);
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = job.pixels->data() + row_bytes * cinfo.output_scanline;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  if (cmyk) {
    // Adobe writes inverted CMYK (255 = no ink): R = C * K / 255. Others: (255 - C)(255 - K).
    unsigned char* p = job.pixels->data();
    const std::size_t count = std::size_t{cinfo.output_width} * cinfo.output_height;
    const bool inverted = cinfo.saw_Adobe_marker;
    for (std::size_t i = 0; i < count; ++i) {
      unsigned k = p[4 * i + 3];
      if (!inverted) k = 255 - k;
      for (int ch = 0; ch < 3; ++ch) {
        const unsigned v = inverted ? p[4 * i + ch] : 255u - p[4 * i + ch];
        p[3 * i + ch] = static_cast<unsigned char>((v * k + 127) / 255);
      }
    }
    job.pixels->resize(count * 3);
  }
  job.decoded = cmyk ? 3 : job.channels;
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return true;
}

bool run_write(WriteJob& job) {
  jpeg_compress_struct& cinfo = job.cinfo;
  cinfo.err = &job.err.pub;
  cinfo.mem = nullptr;
  if (setjmp(job.err.jump)) {
    jpeg_destroy_compress(&cinfo);
    return false;
  }
  jpeg_create_compress(&cinfo);
  jpeg_mem_dest(&cinfo, &job.buffer, &job.buffer_size);
  cinfo.image_width = job.width;
  cinfo.image_height = job.height;
  cinfo.input_components = job.channels;
  cinfo.in_color_space = job.channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, job.quality, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  const std::size_t row_bytes = std::size_t{job.width} * static_cast<unsigned>(job.channels);
  while (cinfo.next_scanline < cinfo.image_height) {
    // libjpeg's API takes non-const rows but only reads them.
    JSAMPROW row = const_cast<unsigned char*>(job.pixels) + row_bytes * cinfo.next_scanline;
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  return true;
}

ImageInfo read(ReadJob& job, const std::string& path) {
  install_error_manager(job.err);
  job.progress = {};
  job.progress.progress_monitor = on_progress;
  if (!run_read(job)) {
    if (job.out_of_memory) throw std::bad_alloc();
    throw DatasetError("JPEG file '" + path +
                       "' is corrupt or truncated (libjpeg: " + job.err.message + ")");
  }
  if (job.too_large) throw image_too_large("JPEG", path, job.info.width, job.info.height);
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

std::vector<unsigned char> encode(const unsigned char* pixels, std::int64_t height,
                                  std::int64_t width, int channels, int quality) {
  if (height < 1 || width < 1 || height > kMaxImageSide || width > kMaxImageSide ||
      (channels != 1 && channels != 3) || quality < 1 || quality > 100) {
    throw std::invalid_argument("encode_jpeg: bad image shape [" + std::to_string(height) + ", " +
                                std::to_string(width) + ", " + std::to_string(channels) +
                                "] or quality " + std::to_string(quality));
  }
  WriteJob job;
  job.pixels = pixels;
  job.height = static_cast<JDIMENSION>(height);
  job.width = static_cast<JDIMENSION>(width);
  job.channels = channels;
  job.quality = quality;
  install_error_manager(job.err);
  const bool ok = run_write(job);
  const std::unique_ptr<unsigned char, decltype(&std::free)> owned(job.buffer, &std::free);
  if (!ok)
    throw std::runtime_error(std::string("encode_jpeg failed (libjpeg: ") + job.err.message + ")");
  return std::vector<unsigned char>(job.buffer, job.buffer + job.buffer_size);
}

}  // namespace ts::jpeg_codec
