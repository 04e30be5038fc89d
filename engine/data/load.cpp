#include "engine/data/load.hpp"

#include <charconv>
#include <cstdlib>
#include <filesystem>

#include "engine/data/idx.hpp"
#include "engine/data/mnist_fetch.hpp"
#include "engine/data/synthetic.hpp"

namespace ts {
namespace {

[[noreturn]] void bad_spec(const std::string& spec, const std::string& why) {
  throw DatasetError("dataset '" + spec + "' " + why +
                     "; accepted forms: synthetic, synthetic:N (N from 1 to " +
                     std::to_string(kSyntheticMaxCount) +
                     "), mnist, mnist:DIR, idx:IMAGES,LABELS, images:DIR (a folder of images, "
                     "one sub-folder per class)");
}

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

Dataset load_synthetic(const std::string& spec, const std::string& arg, std::uint64_t seed) {
  std::int64_t n = 0;
  const char* end = arg.data() + arg.size();
  const auto [ptr, ec] = std::from_chars(arg.data(), end, n);
  if (arg.empty() || ec != std::errc() || ptr != end || n < 1 || n > kSyntheticMaxCount)
    bad_spec(spec, "has a bad sample count '" + arg + "'");
  return make_synthetic_digits(n, seed);
}

// True when `dir` is the default MNIST folder, however it is spelled ("./data/mnist").
bool is_default_mnist_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec1, ec2;
  const fs::path a = fs::weakly_canonical(fs::absolute(dir), ec1);
  const fs::path b = fs::weakly_canonical(fs::absolute(default_mnist_dir()), ec2);
  return !ec1 && !ec2 && a == b;
}

// Only the default folder is fetched into: an explicit DIR that lacks the files is most likely
// a typo, and fetching would download 10 MB into a folder the user never meant to create.
Dataset load_mnist(const std::string& dir) {
  namespace fs = std::filesystem;
  const std::string images = (fs::path(dir) / kMnistImagesFile).string();
  const std::string labels = (fs::path(dir) / kMnistLabelsFile).string();
  std::error_code ec;
  const auto present = [&] { return fs::exists(images, ec) && fs::exists(labels, ec); };
  if (!present() && !is_default_mnist_dir(dir)) {
    const std::string what =
        fs::is_directory(dir, ec)
            ? "does not hold " + std::string(kMnistImagesFile) + " and " + kMnistLabelsFile
            : "does not exist";
    throw DatasetError(
        "MNIST folder '" + dir + "' " + what + " (only the default folder, " + default_mnist_dir() +
        ", is fetched on first use; to fetch into this one: " + mnist_fetch_command(dir) + ")");
  }
  if (!present() && !(run_mnist_fetch(dir) && present())) {
    throw DatasetError("MNIST files '" + images + "' and '" + labels +
                       "' are missing; fetch them with: " + mnist_fetch_command(dir));
  }
  Dataset ds;
  try {
    ds = read_idx(images, labels);
  } catch (const DatasetError& e) {
    throw DatasetError(
        std::string(e.what()) +
        "; delete the MNIST files and fetch them again with: " + mnist_fetch_command(dir));
  }
  ds.source = "MNIST " + ds.source;
  return ds;
}

}  // namespace

std::string default_mnist_dir() {
  const char* root = std::getenv("TRAINSCOPE_DATA_DIR");
  if (root && *root) return (std::filesystem::path(root) / "mnist").string();
  return "data/mnist";
}

Dataset load_dataset(const std::string& spec, std::uint64_t seed) {
  if (spec == "synthetic") return make_synthetic_digits(kSyntheticDefaultCount, seed);
  if (starts_with(spec, "synthetic:")) return load_synthetic(spec, spec.substr(10), seed);
  if (spec == "mnist") return load_mnist(default_mnist_dir());
  if (starts_with(spec, "mnist:")) {
    if (spec.size() == 6) bad_spec(spec, "names no directory");
    return load_mnist(spec.substr(6));
  }
  if (starts_with(spec, "idx:")) {
    const std::string paths = spec.substr(4);
    const auto comma = paths.find(',');
    if (comma == std::string::npos || comma == 0 || comma + 1 == paths.size())
      bad_spec(spec, "needs two files, IMAGES,LABELS");
    return read_idx(paths.substr(0, comma), paths.substr(comma + 1));
  }
  if (starts_with(spec, "images:"))
    bad_spec(spec, "needs image folders, which this build does not read yet");
  bad_spec(spec, "is not a known dataset");
}

}  // namespace ts
