// Image folders (`images:DIR`): one sub-folder per class holding PNG/JPEG files, as Keras'
// image_dataset_from_directory reads them, and the two SampleSources of the input pipeline:
// ImageFolderSource decodes files on every load, InMemorySource copies from a Dataset.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/data/dataset.hpp"
#include "engine/data/pipeline/sample_source.hpp"

namespace ts {

// The files of an image folder, in sample order.
struct ImageFolderIndex {
  std::string dir;
  std::vector<std::string> class_names;  // [classes]: sub-folder names, sorted
  std::vector<std::string> files;        // [count]: paths, class by class, sorted by name
  std::vector<std::int32_t> labels;      // [count]: index of the file's folder in class_names
};

// Lists DIR like Keras: every sub-folder of DIR is a class (names sorted byte-wise; label = index
// in that order, so a class folder without images still takes its label); inside each, the files
// ending in .png, .jpg or .jpeg (any case) sorted by name. Not recursive: nested folders, other
// files and files in DIR itself are ignored, as are names starting with '.'. Throws DatasetError
// naming DIR when it is missing or not a directory, has no class folders, or holds no images.
ImageFolderIndex scan_image_folder(const std::string& dir);

// Reads an image folder sample by sample, decoding each file on every load() call.
class ImageFolderSource final : public SampleSource {
 public:
  // Scans dir (scan_image_folder) and reads the header of its first image. height, width: the
  // size every sample is resized to (bilinear); 0, 0 (both or neither) = the first image's size.
  // channels: 1 or 3; 0 = 1 when the first image is grey, else 3. Throws DatasetError for a bad
  // folder or first image, std::invalid_argument for bad sizes.
  explicit ImageFolderSource(const std::string& dir, std::int64_t height = 0,
                             std::int64_t width = 0, int channels = 0);

  std::int64_t count() const override { return static_cast<std::int64_t>(index_.files.size()); }
  SampleShape shape() const override { return shape_; }
  std::int32_t label(std::int64_t i) const override {
    return index_.labels[static_cast<std::size_t>(i)];
  }
  // out [height, width, channels] f32 = u8 / 255: reads the file (input_read), decodes it
  // (input_decode), resizes it when its size differs (input_map). Throws DatasetError naming the
  // file when it cannot be read or decoded.
  void load(std::int64_t index, SourceScratch& scratch, float* out) const override;
  bool in_memory() const override { return false; }
  std::string describe(std::int64_t i) const override {
    return index_.files[static_cast<std::size_t>(i)];
  }
  std::string description() const override;

  const ImageFolderIndex& index() const { return index_; }

 private:
  ImageFolderIndex index_;
  SampleShape shape_;
};

// A Dataset already in memory: load() copies one sample.
class InMemorySource final : public SampleSource {
 public:
  // Does not copy: `data` must outlive the source.
  explicit InMemorySource(const Dataset& data);
  // Shares ownership of data.
  explicit InMemorySource(std::shared_ptr<const Dataset> data);

  std::int64_t count() const override { return data_->count; }
  SampleShape shape() const override;
  std::int32_t label(std::int64_t i) const override {
    return data_->labels[static_cast<std::size_t>(i)];
  }
  // out [height, width, channels] f32: a copy of the sample (input_read).
  void load(std::int64_t index, SourceScratch& scratch, float* out) const override;
  bool in_memory() const override { return true; }
  std::string describe(std::int64_t i) const override { return "sample " + std::to_string(i); }
  std::string description() const override { return data_->source; }

 private:
  std::shared_ptr<const Dataset> data_;
};

// Throws DatasetError unless dir is absent or an empty directory (what write_image_folder needs).
void check_image_folder_target(const std::string& dir);

// Writes ds as an image folder: dir/<label>/<sample index>.png, 8-bit grey (channels 1) or RGB
// (channels 3), pixels round(clamp(v, 0, 1) * 255); one folder per class 0 .. classes - 1, even
// an empty one, so scan_image_folder finds the same classes. Sample indices have 5 digits, more
// when the dataset has more than 100000 samples, so names sort in sample order. Creates dir;
// refuses one that exists and is not empty. Returns the number of files written. Throws
// DatasetError on an inconsistent dataset, other channel counts, labels outside [0, classes) or
// a write error.
std::int64_t write_image_folder(const Dataset& ds, const std::string& dir);

}  // namespace ts
