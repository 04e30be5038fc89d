// Choosing and creating a backend from the command line's --backend/--device.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/backend/backend.hpp"

namespace ts {

// Thrown when the requested backend or device cannot be created. The message is one sentence
// meant for the user.
class BackendError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct BackendRequest {
  std::string kind = "auto";  // "auto" | "cpu" | "opencl"
  int device = 0;             // index into list_devices() for opencl
  int cpu_threads = 0;        // 0: all cores
};

struct BackendChoice {
  std::unique_ptr<Backend> backend;
  std::string notice;  // non-empty when "auto" fell back to the CPU: says why
};

// kind "cpu": the Eigen backend. "opencl": device `device` or BackendError. "auto": an OpenCL
// GPU or accelerator (device `device` when it is one, else the first), otherwise the CPU backend
// with a notice saying why (no device, or only OpenCL CPU devices such as PoCL).
BackendChoice make_backend(const BackendRequest& request);

struct DeviceInfo {
  int index = 0;  // the N of --device N (devices numbered across all platforms)
  std::string platform, name, version, type;
  std::uint64_t global_memory_bytes = 0;
  int compute_units = 0;
  bool fp16 = false;
};

// Every OpenCL device on every platform; empty when there is no OpenCL (or it is not built).
std::vector<DeviceInfo> list_devices();

}  // namespace ts
