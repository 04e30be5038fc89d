// The one place that includes the OpenCL C API, with the target version fixed so the headers
// neither warn about deprecations nor hide the 1.2 entry points we use on older platforms.
// Include this (never CL/cl.h directly) in every file of the OpenCL backend, before clblast.h.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS  // clCreateCommandQueue for OpenCL 1.x devices
#endif

#include <CL/cl.h>

#include <string>
#include <string_view>

namespace ts::ocl {

// "CL_OUT_OF_RESOURCES (-5)" and so on.
std::string cl_error_name(cl_int code);

// Throws BackendError("<what>: <error name>") when code != CL_SUCCESS.
void check_cl(cl_int code, std::string_view what);

}  // namespace ts::ocl
