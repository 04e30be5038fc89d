// Dataset specs, as `trainscope train --dataset SPEC` takes them.
#pragma once

#include <cstdint>
#include <string>

#include "engine/data/dataset.hpp"

namespace ts {

// Loads the dataset a spec names:
//   synthetic | synthetic:N   N procedurally drawn digits (default 10000), see synthetic.hpp
//   mnist | mnist:DIR         DIR/train-images-idx3-ubyte.gz and DIR/train-labels-idx1-ubyte.gz;
//                             DIR defaults to default_mnist_dir(). When the files are missing
//                             there, runs fetch-mnist.sh DIR (found as mnist_fetch.hpp says)
//                             unless TRAINSCOPE_NO_FETCH is set to a non-empty value; a DIR given
//                             explicitly (another folder) is never fetched into: missing files are
//                             an error naming the folder.
//   idx:IMAGES,LABELS         any IDX image and label files, raw or gzip
// Returns images [count, height, width, channels] f32 in [0,1], labels [count] i32. `seed` only
// affects synthetic data. Throws DatasetError on an unknown spec (listing the accepted forms) or
// data that cannot be read.
Dataset load_dataset(const std::string& spec, std::uint64_t seed);

// $TRAINSCOPE_DATA_DIR/mnist when that variable is set and non-empty, else data/mnist (relative to
// the current directory).
std::string default_mnist_dir();

// The file names of the MNIST training set inside an MNIST directory.
inline constexpr const char* kMnistImagesFile = "train-images-idx3-ubyte.gz";
inline constexpr const char* kMnistLabelsFile = "train-labels-idx1-ubyte.gz";

}  // namespace ts
