// Finding OpenCL devices and describing them.
#pragma once

#include <string>
#include <vector>

#include "engine/backend/factory.hpp"
#include "engine/backend/opencl/cl_api.hpp"

namespace ts::ocl {

struct DeviceHandle {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
};

// Every device (CL_DEVICE_TYPE_ALL) of every platform, in enumeration order; empty when there
// is no platform or no ICD loader configuration. Never throws for a missing OpenCL.
std::vector<DeviceHandle> enumerate_devices();

// Platform, name, version ("OpenCL 3.0"), type, memory, compute units, fp16 of one device.
DeviceInfo describe_device(int index, const DeviceHandle& handle);

// The device's OpenCL major.minor version from CL_DEVICE_VERSION ("OpenCL 3.0 ..." -> 300).
int device_version(cl_device_id device);

bool has_extension(cl_device_id device, const std::string& extension);

}  // namespace ts::ocl
