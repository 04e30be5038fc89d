#include "engine/data/idx.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "engine/data/gz_file.hpp"

namespace ts {
namespace {

constexpr std::uint32_t kImagesMagic3 = 0x00000803;  // u8 [n, rows, cols]
constexpr std::uint32_t kImagesMagic4 = 0x00000804;  // u8 [n, rows, cols, channels]
constexpr std::uint32_t kLabelsMagic = 0x00000801;   // u8 [n]

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

std::string dims_str(const std::vector<std::uint32_t>& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

std::uint32_t read_be32(GzReader& in, const char* what) {
  unsigned char b[4];
  const std::size_t got = in.read(b, 4);
  if (got != 4) {
    throw DatasetError("IDX file '" + in.path() + "' is truncated: it ends inside the header (" +
                       what + ")");
  }
  return std::uint32_t{b[0]} << 24 | std::uint32_t{b[1]} << 16 | std::uint32_t{b[2]} << 8 | b[3];
}

void put_be32(std::vector<unsigned char>& out, std::uint64_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<unsigned char>(v >> shift));
}

// Reads the header of an IDX file whose magic must be one of `accepted`; returns its dims after
// checking none is zero and that their product stays within kIdxMaxBytes.
std::vector<std::uint32_t> read_header(GzReader& in, const char* role,
                                       std::initializer_list<std::uint32_t> accepted,
                                       const char* expected) {
  const std::uint32_t magic = read_be32(in, "magic number");
  if (std::find(accepted.begin(), accepted.end(), magic) == accepted.end()) {
    std::string hint;
    if (magic == kLabelsMagic) hint = "; it looks like a label file: are the paths swapped?";
    if (magic == kImagesMagic3 || magic == kImagesMagic4)
      hint = "; it looks like an image file: are the paths swapped?";
    if ((magic >> 16) == 0x1f8b) hint = "; it is gzip-compressed twice";
    throw DatasetError("'" + in.path() + "' is not an IDX " + role + " file: magic " +
                       hex32(magic) + ", expected " + expected + hint);
  }
  std::vector<std::uint32_t> dims(magic & 0xff);
  std::uint64_t bytes = 1;
  for (auto& d : dims) d = read_be32(in, "dimensions");
  for (const auto d : dims) {
    if (d == 0) {
      throw DatasetError("IDX " + std::string(role) + " file '" + in.path() +
                         "' has a zero dimension in its header " + dims_str(dims));
    }
    bytes *= d;  // cannot overflow: bytes <= 2^31 before, d < 2^32
    if (bytes > kIdxMaxBytes) {
      throw DatasetError("IDX " + std::string(role) + " file '" + in.path() + "' header " +
                         dims_str(dims) + " promises more than 2 GiB of data (corrupt header?)");
    }
  }
  return dims;
}

// Streams `bytes` u8 values from `in` through `convert` into out (appending), growing out only as
// data actually arrives, then checks nothing follows.
template <typename T, typename Convert>
void read_payload(GzReader& in, const char* role, std::uint64_t bytes, std::vector<T>& out,
                  Convert convert) {
  out.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(bytes, 1u << 24)));
  std::vector<unsigned char> chunk(1u << 20);
  std::uint64_t done = 0;
  while (done < bytes) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), bytes - done));
    const std::size_t got = in.read(chunk.data(), want);
    const std::size_t at = out.size();
    out.resize(at + got);
    std::transform(chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(got),
                   out.begin() + static_cast<std::ptrdiff_t>(at), convert);
    done += got;
    if (got < want) {
      throw DatasetError("IDX " + std::string(role) + " file '" + in.path() +
                         "' is truncated: its header promises " + std::to_string(bytes) +
                         " data bytes but it holds " + std::to_string(done));
    }
  }
  unsigned char extra;
  if (in.read(&extra, 1) != 0) {
    throw DatasetError("IDX " + std::string(role) + " file '" + in.path() +
                       "' has data after the " + std::to_string(bytes) +
                       " bytes its header promises (wrong header?)");
  }
}

}  // namespace

Dataset read_idx(const std::string& images_path, const std::string& labels_path, int classes) {
  Dataset ds;
  GzReader images(images_path);
  const auto idims = read_header(images, "images", {kImagesMagic3, kImagesMagic4},
                                 "0x00000803 (u8 images [n, rows, cols])");
  GzReader labels(labels_path);
  const auto ldims = read_header(labels, "labels", {kLabelsMagic}, "0x00000801 (u8 labels [n])");
  if (ldims[0] != idims[0]) {
    throw DatasetError("IDX labels file '" + labels_path + "' holds " + std::to_string(ldims[0]) +
                       " labels but images file '" + images_path + "' holds " +
                       std::to_string(idims[0]) + " images");
  }
  ds.count = idims[0];
  ds.height = idims[1];
  ds.width = idims[2];
  ds.channels = idims.size() == 4 ? idims[3] : 1;

  std::array<float, 256> scale;
  for (int i = 0; i < 256; ++i) scale[i] = static_cast<float>(i) / 255.0f;
  read_payload(images, "images", static_cast<std::uint64_t>(ds.count) * ds.sample_size(), ds.images,
               [&](unsigned char b) { return scale[b]; });
  read_payload(labels, "labels", static_cast<std::uint64_t>(ds.count), ds.labels,
               [](unsigned char b) { return static_cast<std::int32_t>(b); });

  const auto max_it = std::max_element(ds.labels.begin(), ds.labels.end());
  if (classes > 0) {
    if (*max_it >= classes) {
      throw DatasetError("IDX labels file '" + labels_path + "' has label " +
                         std::to_string(*max_it) + " at index " +
                         std::to_string(max_it - ds.labels.begin()) + ", out of range for " +
                         std::to_string(classes) + " classes");
    }
    ds.classes = classes;
  } else {
    ds.classes = std::max(10, *max_it + 1);
  }
  ds.source = "IDX (" + std::to_string(ds.count) + " images " + std::to_string(ds.height) + "x" +
              std::to_string(ds.width) + "x" + std::to_string(ds.channels) + ", " + images_path +
              ", " + labels_path + ")";
  return ds;
}

void write_idx(const Dataset& ds, const std::string& images_path, const std::string& labels_path,
               bool gzip) {
  // Each dimension must fit the header's u32 and their product the pixel vector.
  std::uint64_t pixel_count = 1;
  bool consistent = ds.labels.size() == static_cast<std::size_t>(ds.count);
  for (const std::int64_t d : {ds.count, ds.height, ds.width, ds.channels}) {
    consistent = consistent && d > 0 && d <= 0xffffffffll &&
                 !__builtin_mul_overflow(pixel_count, static_cast<std::uint64_t>(d), &pixel_count);
  }
  if (!consistent || pixel_count != ds.images.size()) {
    throw DatasetError("cannot write IDX file '" + images_path + "': the dataset's shape [" +
                       std::to_string(ds.count) + ", " + std::to_string(ds.height) + ", " +
                       std::to_string(ds.width) + ", " + std::to_string(ds.channels) +
                       "] does not match its " + std::to_string(ds.images.size()) + " pixels and " +
                       std::to_string(ds.labels.size()) + " labels");
  }
  std::vector<unsigned char> labels(ds.labels.size());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (ds.labels[i] < 0 || ds.labels[i] > 255) {
      throw DatasetError("cannot write IDX labels file '" + labels_path + "': label " +
                         std::to_string(ds.labels[i]) + " at index " + std::to_string(i) +
                         " does not fit in a byte");
    }
    labels[i] = static_cast<unsigned char>(ds.labels[i]);
  }
  std::vector<unsigned char> header;
  put_be32(header, ds.channels == 1 ? kImagesMagic3 : kImagesMagic4);
  put_be32(header, static_cast<std::uint64_t>(ds.count));
  put_be32(header, static_cast<std::uint64_t>(ds.height));
  put_be32(header, static_cast<std::uint64_t>(ds.width));
  if (ds.channels != 1) put_be32(header, static_cast<std::uint64_t>(ds.channels));

  std::vector<unsigned char> pixels(ds.images.size());
  for (std::size_t i = 0; i < pixels.size(); ++i) {
    const float v = ds.images[i];
    // NaN and below 0 -> 0, above 1 -> 255.
    pixels[i] = v > 0.0f ? static_cast<unsigned char>(std::lround(std::min(v, 1.0f) * 255.0f)) : 0;
  }
  GzWriter images(images_path, gzip);
  images.write(header.data(), header.size());
  images.write(pixels.data(), pixels.size());
  images.close();

  header.clear();
  put_be32(header, kLabelsMagic);
  put_be32(header, static_cast<std::uint64_t>(ds.count));
  GzWriter out(labels_path, gzip);
  out.write(header.data(), header.size());
  out.write(labels.data(), labels.size());
  out.close();
}

}  // namespace ts
