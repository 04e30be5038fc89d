// The OpenCL backend: CLBlast for GEMM, kernels/*.cl for everything else.
#pragma once

#include <memory>
#include <vector>

#include "engine/backend/backend.hpp"
#include "engine/backend/factory.hpp"

namespace ts {

// Every OpenCL device on every platform, numbered across platforms in enumeration order.
std::vector<DeviceInfo> list_opencl_devices();

// Creates the backend on device `index` of list_opencl_devices(). Throws BackendError when the
// device does not exist or its context/queue/programs cannot be created.
std::unique_ptr<Backend> make_opencl_backend(int index);

}  // namespace ts
