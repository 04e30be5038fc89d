// OpenCL C sources of kernels/*.cl, embedded into the binary at build time.
//
// Set the environment variable TRAINSCOPE_KERNEL_DIR to a directory to read the sources from
// there instead (kernel development without rebuilding); every file is then looked up in that
// directory and a missing one is an error.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ts::kernels {

class KernelSourceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Names of the embedded files ("common.cl", "elementwise.cl", ...), sorted.
std::vector<std::string> kernel_file_names();

// The embedded text of `file`; throws KernelSourceError when there is no such file.
std::string embedded_kernel_source(std::string_view file);

// The text of `file`: from $TRAINSCOPE_KERNEL_DIR when that is set and non-empty, else the
// embedded copy. Throws KernelSourceError naming the file (and the directory) when it is missing.
std::string kernel_source(std::string_view file);

// The directory named by TRAINSCOPE_KERNEL_DIR, or "" when the embedded sources are used.
std::string kernel_source_override_dir();

}  // namespace ts::kernels
