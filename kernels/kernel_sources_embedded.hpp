// The table the build generates from kernels/*.cl (see embed_kernels.cmake). Internal to
// ts_kernels: use kernel_sources.hpp.
#pragma once

#include <cstddef>

namespace ts::kernels::detail {

struct EmbeddedFile {
  const char* name;           // file name, e.g. "elementwise.cl"
  const char* const* chunks;  // the text, split into pieces to stay under literal limits
  std::size_t chunk_count;
  std::size_t length;  // total bytes
};

extern const EmbeddedFile kEmbeddedFiles[];
extern const std::size_t kEmbeddedFileCount;

}  // namespace ts::kernels::detail
