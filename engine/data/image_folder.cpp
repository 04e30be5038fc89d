#include "engine/data/image_folder.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <trainscope/trace.hpp>

#include "engine/data/image_codec.hpp"
#include "engine/data/transforms.hpp"

namespace ts {
namespace {

namespace fs = std::filesystem;

// Image files larger than this are refused before reading (no dataset image is this big).
constexpr std::int64_t kMaxImageFileBytes = std::int64_t{256} << 20;

std::string errno_text(int err) {
  char buf[128];
  return strerror_r(err, buf, sizeof buf);  // GNU strerror_r: thread-safe, returns the text
}

bool is_image_name(const std::string& name) {
  const auto dot = name.rfind('.');
  if (dot == std::string::npos) return false;
  std::string ext = name.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return ext == "png" || ext == "jpg" || ext == "jpeg";
}

// Owns a file descriptor.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// The whole file into bytes (storage reused).
void read_file(const std::string& path, std::vector<unsigned char>& bytes) {
  TS_ZONE("read image file", input_read);
  const Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0)
    throw DatasetError("cannot open image file '" + path + "': " + errno_text(errno));
  struct stat st;
  if (::fstat(fd.get(), &st) != 0)
    throw DatasetError("cannot read image file '" + path + "': " + errno_text(errno));
  if (!S_ISREG(st.st_mode)) throw DatasetError("image file '" + path + "' is not a regular file");
  if (st.st_size > kMaxImageFileBytes) {
    throw DatasetError("image file '" + path + "' is " + std::to_string(st.st_size >> 20) +
                       " MiB, more than the " + std::to_string(kMaxImageFileBytes >> 20) +
                       " MiB this reader accepts");
  }
  bytes.resize(static_cast<std::size_t>(st.st_size));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t got = ::read(fd.get(), bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw DatasetError("cannot read image file '" + path + "': " + errno_text(errno));
    if (got == 0) break;  // the file shrank since fstat: decode what is there
    done += static_cast<std::size_t>(got);
  }
  bytes.resize(done);
}

// u8 -> f32 in [0, 1], exactly as the IDX reader scales (v / 255).
const std::array<float, 256>& byte_scale() {
  static const std::array<float, 256> table = [] {
    std::array<float, 256> t;
    for (int i = 0; i < 256; ++i) t[static_cast<std::size_t>(i)] = static_cast<float>(i) / 255.0f;
    return t;
  }();
  return table;
}

void check_consistent(const Dataset& ds, const std::string& what) {
  const bool shape_ok = ds.count >= 0 && ds.height > 0 && ds.width > 0 && ds.channels > 0;
  if (!shape_ok || ds.images.size() != static_cast<std::size_t>(ds.count * ds.sample_size()) ||
      ds.labels.size() != static_cast<std::size_t>(ds.count)) {
    throw DatasetError(what + ": the dataset's shape [" + std::to_string(ds.count) + ", " +
                       std::to_string(ds.height) + ", " + std::to_string(ds.width) + ", " +
                       std::to_string(ds.channels) + "] does not match its " +
                       std::to_string(ds.images.size()) + " pixels and " +
                       std::to_string(ds.labels.size()) + " labels");
  }
}

// n as decimal, zero-padded to `digits`.
std::string padded(std::int64_t n, int digits) {
  std::string s = std::to_string(n);
  return std::string(s.size() < static_cast<std::size_t>(digits) ? digits - s.size() : 0, '0') + s;
}

int decimal_digits(std::int64_t n) {
  int d = 1;
  while (n >= 10) n /= 10, ++d;
  return d;
}

void write_file(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw DatasetError("cannot write image file '" + path + "': " + errno_text(errno));
}

}  // namespace

ImageFolderIndex scan_image_folder(const std::string& dir) {
  ImageFolderIndex index;
  index.dir = dir;
  std::error_code ec;
  const fs::path root(dir);
  if (!fs::exists(root, ec)) throw DatasetError("image folder '" + dir + "' does not exist");
  if (!fs::is_directory(root, ec)) throw DatasetError("'" + dir + "' is not a directory");

  // The names of root's entries accepted by `keep`, sorted.
  const auto list = [&](const fs::path& folder, auto keep) {
    std::vector<std::string> names;
    std::error_code list_ec;
    for (fs::directory_iterator it(folder, list_ec), end; !list_ec && it != end;
         it.increment(list_ec)) {
      const std::string name = it->path().filename().string();
      if (!name.empty() && name[0] != '.' && keep(*it, name)) names.push_back(name);
    }
    if (list_ec) {
      throw DatasetError("cannot list image folder '" + folder.string() +
                         "': " + list_ec.message());
    }
    std::sort(names.begin(), names.end());
    return names;
  };
  index.class_names = list(root, [](const fs::directory_entry& e, const std::string&) {
    std::error_code dir_ec;
    return e.is_directory(dir_ec);
  });
  if (index.class_names.empty()) {
    throw DatasetError("image folder '" + dir +
                       "' has no class sub-folders (expected DIR/<class>/<image>.png|.jpg|.jpeg)");
  }
  for (std::size_t k = 0; k < index.class_names.size(); ++k) {
    const fs::path folder = root / index.class_names[k];
    const auto files = list(folder, [](const fs::directory_entry& e, const std::string& name) {
      std::error_code file_ec;
      return is_image_name(name) && e.is_regular_file(file_ec);
    });
    for (const auto& name : files) {
      index.files.push_back((folder / name).string());
      index.labels.push_back(static_cast<std::int32_t>(k));
    }
  }
  if (index.files.empty()) {
    throw DatasetError("image folder '" + dir + "' holds no .png, .jpg or .jpeg files in its " +
                       std::to_string(index.class_names.size()) + " class folder(s)");
  }
  return index;
}

ImageFolderSource::ImageFolderSource(const std::string& dir, std::int64_t height,
                                     std::int64_t width, int channels) {
  if ((height == 0) != (width == 0) || height < 0 || width < 0 || height > kMaxImageSide ||
      width > kMaxImageSide) {
    throw std::invalid_argument("image size " + std::to_string(height) + "x" +
                                std::to_string(width) + " must be 0x0 (the first image's) or " +
                                "between 1 and " + std::to_string(kMaxImageSide) + " on each side");
  }
  if (channels != 0 && channels != 1 && channels != 3)
    throw std::invalid_argument("image channels must be 0 (the first image's), 1 or 3");
  index_ = scan_image_folder(dir);
  if (height == 0 || channels == 0) {
    std::vector<unsigned char> bytes;
    read_file(index_.files[0], bytes);
    const ImageInfo first = probe_image(bytes.data(), bytes.size(), index_.files[0]);
    if (height == 0) {
      height = first.height;
      width = first.width;
    }
    if (channels == 0) channels = first.file_channels;
  }
  shape_.height = height;
  shape_.width = width;
  shape_.channels = channels;
  shape_.classes = static_cast<int>(index_.class_names.size());
}

void ImageFolderSource::load(std::int64_t index, SourceScratch& scratch, float* out) const {
  const std::string& path = index_.files[static_cast<std::size_t>(index)];
  read_file(path, scratch.bytes);
  ImageInfo info;
  {
    TS_ZONE("decode image", input_decode);
    info = decode_image(scratch.bytes.data(), scratch.bytes.size(),
                        static_cast<int>(shape_.channels), path, scratch.pixels);
  }
  const auto& scale = byte_scale();
  const unsigned char* pixels = scratch.pixels.data();
  const std::size_t n = scratch.pixels.size();  // [info.height, info.width, channels]
  if (info.height == shape_.height && info.width == shape_.width) {
    for (std::size_t i = 0; i < n; ++i) out[i] = scale[pixels[i]];
    return;
  }
  scratch.floats.resize(n);
  for (std::size_t i = 0; i < n; ++i) scratch.floats[i] = scale[pixels[i]];
  TS_ZONE("resize", input_map);
  resize_bilinear(scratch.floats.data(), info.height, info.width, shape_.channels, out,
                  shape_.height, shape_.width);
}

std::string ImageFolderSource::description() const {
  return "image folder " + index_.dir + " (" + std::to_string(count()) + " images, " +
         std::to_string(shape_.classes) + " classes, " + std::to_string(shape_.height) + "x" +
         std::to_string(shape_.width) + "x" + std::to_string(shape_.channels) + ")";
}

InMemorySource::InMemorySource(const Dataset& data)
    : InMemorySource(std::shared_ptr<const Dataset>(std::shared_ptr<const Dataset>(), &data)) {}

InMemorySource::InMemorySource(std::shared_ptr<const Dataset> data) : data_(std::move(data)) {
  if (!data_) throw std::invalid_argument("InMemorySource needs a dataset");
  check_consistent(*data_, "dataset '" + data_->source + "'");
}

SampleShape InMemorySource::shape() const {
  return {data_->height, data_->width, data_->channels, data_->classes};
}

void InMemorySource::load(std::int64_t index, SourceScratch&, float* out) const {
  // No zone per sample: a 3 KB copy costs less than recording it; the pipeline records the
  // batch or chunk this copy is part of.
  const std::int64_t n = data_->sample_size();
  const float* src = data_->images.data() + index * n;
  std::copy(src, src + n, out);
}

void check_image_folder_target(const std::string& dir) {
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (!fs::exists(status)) return;
  if (!fs::is_directory(status))
    throw DatasetError("output folder '" + dir + "' exists and is not a directory");
  const bool empty = fs::is_empty(dir, ec);
  if (ec) throw DatasetError("cannot read output folder '" + dir + "': " + ec.message());
  if (!empty) {
    throw DatasetError("output folder '" + dir +
                       "' already exists and is not empty; choose a new folder or delete it");
  }
}

std::int64_t write_image_folder(const Dataset& ds, const std::string& dir) {
  const std::string what = "cannot write image folder '" + dir + "'";
  check_consistent(ds, what);
  if (ds.count == 0) throw DatasetError(what + ": the dataset is empty");
  if (ds.channels != 1 && ds.channels != 3) {
    throw DatasetError(what + ": its images have " + std::to_string(ds.channels) +
                       " channels; PNG files are written for 1 (grey) or 3 (RGB)");
  }
  if (ds.classes < 1) throw DatasetError(what + ": the dataset has no classes");
  for (std::size_t i = 0; i < ds.labels.size(); ++i) {
    if (ds.labels[i] < 0 || ds.labels[i] >= ds.classes) {
      throw DatasetError(what + ": label " + std::to_string(ds.labels[i]) + " of sample " +
                         std::to_string(i) + " is outside [0, " + std::to_string(ds.classes) + ")");
    }
  }
  check_image_folder_target(dir);

  // Zero-padded names sort in numeric order, so scan_image_folder gives back the same labels.
  const int class_digits = decimal_digits(ds.classes - 1);
  const int sample_digits = std::max(5, decimal_digits(ds.count - 1));
  std::vector<std::string> class_dirs;
  for (int k = 0; k < ds.classes; ++k) {
    const fs::path folder = fs::path(dir) / padded(k, class_digits);
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) throw DatasetError("cannot create folder '" + folder.string() + "': " + ec.message());
    class_dirs.push_back(folder.string());
  }
  std::vector<unsigned char> pixels(static_cast<std::size_t>(ds.sample_size()));
  for (std::int64_t i = 0; i < ds.count; ++i) {
    const float* src = ds.images.data() + i * ds.sample_size();
    for (std::size_t p = 0; p < pixels.size(); ++p) {
      const float v = src[p];  // NaN and below 0 -> 0, above 1 -> 255
      pixels[p] =
          v > 0.0f ? static_cast<unsigned char>(std::lround(std::min(v, 1.0f) * 255.0f)) : 0;
    }
    const auto png = encode_png(pixels.data(), ds.height, ds.width, static_cast<int>(ds.channels));
    write_file(class_dirs[static_cast<std::size_t>(ds.labels[static_cast<std::size_t>(i)])] + "/" +
                   padded(i, sample_digits) + ".png",
               png);
  }
  return ds.count;
}

}  // namespace ts
