// Programs built from kernels/*.cl once per device, cached by (file, build options), and their
// kernels created once and reused.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

#include "engine/backend/opencl/cl_api.hpp"

namespace ts::ocl {

struct KernelHandle {
  cl_kernel kernel = nullptr;
  std::size_t max_work_group = 1;  // CL_KERNEL_WORK_GROUP_SIZE on this device
};

class ProgramCache {
 public:
  ProgramCache(cl_context context, cl_device_id device) : context_(context), device_(device) {}
  ~ProgramCache();
  ProgramCache(const ProgramCache&) = delete;
  ProgramCache& operator=(const ProgramCache&) = delete;

  // Kernel `name` of kernels/<file> (compiled after common.cl) with build `options`, built on
  // first use. Throws BackendError with the build log when the program does not compile.
  const KernelHandle& kernel(std::string_view file, std::string_view name,
                             std::string_view options);

  // Builds kernels/<file> with `options` now (no-op when already built).
  void build(std::string_view file, std::string_view options) { program(file, options); }

 private:
  cl_program program(std::string_view file, std::string_view options);

  cl_context context_;
  cl_device_id device_;
  std::map<std::string, cl_program, std::less<>> programs_;   // file '|' options
  std::map<std::string, KernelHandle, std::less<>> kernels_;  // file '|' options '|' name
};

}  // namespace ts::ocl
