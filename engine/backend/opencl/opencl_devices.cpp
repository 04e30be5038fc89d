// ts::list_opencl_devices: every device of every platform, numbered across platforms.
#include "engine/backend/opencl/cl_device.hpp"
#include "engine/backend/opencl/opencl_backend.hpp"

namespace ts {

std::vector<DeviceInfo> list_opencl_devices() {
  std::vector<DeviceInfo> list;
  const auto handles = ocl::enumerate_devices();
  for (std::size_t i = 0; i < handles.size(); ++i)
    list.push_back(ocl::describe_device(static_cast<int>(i), handles[i]));
  return list;
}

}  // namespace ts
