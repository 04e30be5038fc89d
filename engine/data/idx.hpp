// The IDX file format of MNIST (http://yann.lecun.com/exdb/mnist/): a big-endian header — magic
// 00 00 <type> <rank>, then <rank> u32 dimensions — followed by the data, row-major. Images are
// type 08 (u8) with rank 3 [n, rows, cols] (magic 0x00000803) or, as an extension, rank 4
// [n, rows, cols, channels] (0x00000804); labels are u8 with rank 1 [n] (0x00000801).
// Files may be raw or gzip-compressed; the gzip magic decides, not the file name.
#pragma once

#include <cstdint>
#include <string>

#include "engine/data/dataset.hpp"

namespace ts {

// Refuse headers promising more than this many data bytes (a corrupt or hostile header must not
// cause a huge allocation).
inline constexpr std::uint64_t kIdxMaxBytes = std::uint64_t{1} << 31;

// Reads an image file and a label file into a Dataset:
//   images [n, rows, cols, channels] f32 = u8 / 255, channels = 1 for rank-3 files;
//   labels [n] i32.
// classes <= 0: the class count is max(10, max label + 1). classes > 0: the class count is
// `classes` and every label must be below it. Throws DatasetError naming the file on anything
// wrong: missing file, wrong magic, zero or oversized dimensions, truncated or trailing data,
// image and label counts that differ, labels out of range.
Dataset read_idx(const std::string& images_path, const std::string& labels_path, int classes = 0);

// Writes ds.images [count, height, width, channels] (rounded to u8, clamped to [0,1]) and
// ds.labels [count] (each in [0, 255]) as IDX files, gzip-compressed or raw. Rank-3 image files
// when channels == 1, rank-4 otherwise. Throws DatasetError on an inconsistent dataset or a
// write error.
void write_idx(const Dataset& ds, const std::string& images_path, const std::string& labels_path,
               bool gzip);

}  // namespace ts
