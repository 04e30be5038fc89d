#include "kernels/kernel_sources.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "kernels/kernel_sources_embedded.hpp"

namespace ts::kernels {

namespace {

const detail::EmbeddedFile* find_embedded(std::string_view file) {
  for (std::size_t i = 0; i < detail::kEmbeddedFileCount; ++i)
    if (file == detail::kEmbeddedFiles[i].name) return &detail::kEmbeddedFiles[i];
  return nullptr;
}

}  // namespace

std::vector<std::string> kernel_file_names() {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < detail::kEmbeddedFileCount; ++i)
    names.emplace_back(detail::kEmbeddedFiles[i].name);
  return names;
}

std::string embedded_kernel_source(std::string_view file) {
  const detail::EmbeddedFile* entry = find_embedded(file);
  if (!entry)
    throw KernelSourceError("no embedded OpenCL kernel file named '" + std::string(file) + "'");
  std::string text;
  text.reserve(entry->length);
  for (std::size_t i = 0; i < entry->chunk_count; ++i) text += entry->chunks[i];
  return text;
}

std::string kernel_source_override_dir() {
  const char* dir = std::getenv("TRAINSCOPE_KERNEL_DIR");
  return dir ? std::string(dir) : std::string();
}

std::string kernel_source(std::string_view file) {
  const std::string dir = kernel_source_override_dir();
  if (dir.empty()) return embedded_kernel_source(file);
  const std::string path = dir + "/" + std::string(file);
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw KernelSourceError("OpenCL kernel file '" + path +
                            "' cannot be read (TRAINSCOPE_KERNEL_DIR=" + dir +
                            "; unset it to use the built-in kernels)");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace ts::kernels
