#include "engine/backend/opencl/cl_program_cache.hpp"

#include "engine/backend/factory.hpp"
#include "kernels/kernel_sources.hpp"

namespace ts::ocl {

namespace {

std::string build_log(cl_program program, cl_device_id device) {
  std::size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) !=
          CL_SUCCESS ||
      size == 0)
    return "(no build log)";
  std::string log(size, '\0');
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

// common.cl, then the family's file; #line keeps the build log's line numbers per file.
std::string program_source(std::string_view file) {
  try {
    return "#line 1 \"common.cl\"\n" + kernels::kernel_source("common.cl") + "\n#line 1 \"" +
           std::string(file) + "\"\n" + kernels::kernel_source(file);
  } catch (const kernels::KernelSourceError& e) {
    throw BackendError(e.what());
  }
}

}  // namespace

ProgramCache::~ProgramCache() {
  for (auto& [key, handle] : kernels_) clReleaseKernel(handle.kernel);
  for (auto& [key, program] : programs_) clReleaseProgram(program);
}

cl_program ProgramCache::program(std::string_view file, std::string_view options) {
  std::string key;
  key.reserve(file.size() + options.size() + 1);
  key.append(file).append("|").append(options);
  if (auto it = programs_.find(key); it != programs_.end()) return it->second;

  const std::string source = program_source(file);
  const char* text = source.c_str();
  const std::size_t length = source.size();
  cl_int err = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(context_, 1, &text, &length, &err);
  check_cl(err, "cannot create OpenCL program " + std::string(file));
  const std::string option_string(options);
  err = clBuildProgram(program, 1, &device_, option_string.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    const std::string log = build_log(program, device_);
    clReleaseProgram(program);
    throw BackendError("OpenCL kernel file " + std::string(file) + " (options '" + option_string +
                       "') does not build: " + cl_error_name(err) + "\n" + log);
  }
  programs_.emplace(std::move(key), program);
  return program;
}

const KernelHandle& ProgramCache::kernel(std::string_view file, std::string_view name,
                                         std::string_view options) {
  std::string key;
  key.reserve(file.size() + options.size() + name.size() + 2);
  key.append(file).append("|").append(options).append("|").append(name);
  if (auto it = kernels_.find(key); it != kernels_.end()) return it->second;

  cl_program prog = program(file, options);
  cl_int err = CL_SUCCESS;
  const std::string kernel_name(name);
  KernelHandle handle;
  handle.kernel = clCreateKernel(prog, kernel_name.c_str(), &err);
  check_cl(err, "cannot create OpenCL kernel '" + kernel_name + "' from " + std::string(file));
  std::size_t max_group = 1;
  if (clGetKernelWorkGroupInfo(handle.kernel, device_, CL_KERNEL_WORK_GROUP_SIZE, sizeof(max_group),
                               &max_group, nullptr) == CL_SUCCESS &&
      max_group > 0)
    handle.max_work_group = max_group;
  return kernels_.emplace(std::move(key), handle).first->second;
}

}  // namespace ts::ocl
