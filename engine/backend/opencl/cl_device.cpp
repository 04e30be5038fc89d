#include "engine/backend/opencl/cl_device.hpp"

#include <cstdio>
#include <sstream>

namespace ts::ocl {

namespace {

template <class Getter>
std::string info_string(Getter get) {
  std::size_t size = 0;
  if (get(0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string value(size, '\0');
  if (get(size, value.data(), nullptr) != CL_SUCCESS) return {};
  while (!value.empty() && (value.back() == '\0' || value.back() == ' ')) value.pop_back();
  return value;
}

std::string device_string(cl_device_id device, cl_device_info what) {
  return info_string([&](std::size_t size, void* out, std::size_t* got) {
    return clGetDeviceInfo(device, what, size, out, got);
  });
}

std::string platform_string(cl_platform_id platform, cl_platform_info what) {
  return info_string([&](std::size_t size, void* out, std::size_t* got) {
    return clGetPlatformInfo(platform, what, size, out, got);
  });
}

template <class T>
T device_value(cl_device_id device, cl_device_info what) {
  T value{};
  if (clGetDeviceInfo(device, what, sizeof(T), &value, nullptr) != CL_SUCCESS) return T{};
  return value;
}

std::string type_name(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "gpu";
  if (type & CL_DEVICE_TYPE_CPU) return "cpu";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "custom";
}

}  // namespace

std::vector<DeviceHandle> enumerate_devices() {
  std::vector<DeviceHandle> devices;
  cl_uint platform_count = 0;
  // No ICD, no platform: CL_PLATFORM_NOT_FOUND_KHR (or another error) and an empty list.
  if (clGetPlatformIDs(0, nullptr, &platform_count) != CL_SUCCESS || platform_count == 0)
    return devices;
  std::vector<cl_platform_id> platforms(platform_count);
  if (clGetPlatformIDs(platform_count, platforms.data(), nullptr) != CL_SUCCESS) return devices;
  for (cl_platform_id platform : platforms) {
    cl_uint device_count = 0;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &device_count) != CL_SUCCESS ||
        device_count == 0)
      continue;
    std::vector<cl_device_id> ids(device_count);
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, device_count, ids.data(), nullptr) !=
        CL_SUCCESS)
      continue;
    for (cl_device_id id : ids) devices.push_back({platform, id});
  }
  return devices;
}

int device_version(cl_device_id device) {
  int major = 0, minor = 0;
  const std::string version = device_string(device, CL_DEVICE_VERSION);
  if (std::sscanf(version.c_str(), "OpenCL %d.%d", &major, &minor) != 2) return 0;
  return major * 100 + minor * 10;
}

bool has_extension(cl_device_id device, const std::string& extension) {
  std::istringstream words(device_string(device, CL_DEVICE_EXTENSIONS));
  for (std::string word; words >> word;)
    if (word == extension) return true;
  return false;
}

DeviceInfo describe_device(int index, const DeviceHandle& handle) {
  DeviceInfo info;
  info.index = index;
  info.platform = platform_string(handle.platform, CL_PLATFORM_NAME);
  info.name = device_string(handle.device, CL_DEVICE_NAME);
  // CL_DEVICE_VERSION is "OpenCL <major>.<minor> <vendor-specific>": keep the first two words.
  std::istringstream version(device_string(handle.device, CL_DEVICE_VERSION));
  std::string word1, word2;
  version >> word1 >> word2;
  info.version = word2.empty() ? word1 : word1 + " " + word2;
  info.type = type_name(device_value<cl_device_type>(handle.device, CL_DEVICE_TYPE));
  info.global_memory_bytes = device_value<cl_ulong>(handle.device, CL_DEVICE_GLOBAL_MEM_SIZE);
  info.compute_units =
      static_cast<int>(device_value<cl_uint>(handle.device, CL_DEVICE_MAX_COMPUTE_UNITS));
  info.fp16 = has_extension(handle.device, "cl_khr_fp16");
  return info;
}

}  // namespace ts::ocl
