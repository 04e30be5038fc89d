#include "engine/backend/factory.hpp"

#include <algorithm>

#include "engine/backend/cpu/cpu_backend.hpp"
#ifdef TRAINSCOPE_WITH_OPENCL
#include "engine/backend/opencl/opencl_backend.hpp"
#endif

namespace ts {

std::vector<DeviceInfo> list_devices() {
#ifdef TRAINSCOPE_WITH_OPENCL
  return list_opencl_devices();
#else
  return {};
#endif
}

BackendChoice make_backend(const BackendRequest& request) {
  if (request.kind == "cpu") return {make_cpu_backend(request.cpu_threads), ""};
  if (request.kind != "opencl" && request.kind != "auto")
    throw BackendError("--backend must be auto, cpu or opencl, not '" + request.kind + "'");
#ifdef TRAINSCOPE_WITH_OPENCL
  const auto devices = list_opencl_devices();
  if (request.kind == "opencl") {
    if (devices.empty())
      throw BackendError(
          "--backend opencl: no OpenCL device found (install an OpenCL driver such as "
          "pocl-opencl-icd, or use --backend cpu)");
    if (request.device < 0 || request.device >= static_cast<int>(devices.size()))
      throw BackendError("--device " + std::to_string(request.device) + ": there are only " +
                         std::to_string(devices.size()) +
                         " OpenCL device(s); see 'trainscope devices'");
    try {
      return {make_opencl_backend(request.device), ""};
    } catch (const BackendError&) {
      throw;
    } catch (const std::exception& e) {  // a driver's own exception: still one clear sentence
      throw BackendError("--backend opencl: the OpenCL device cannot be used (" +
                         std::string(e.what()) + ")");
    }
  }
  // auto: a GPU or accelerator. An OpenCL CPU device (PoCL) runs on the same cores as the CPU
  // backend, many times slower (it has no tuned GEMM), so it is used only when asked for.
  std::vector<int> accelerators;
  for (const auto& d : devices)
    if (d.type != "cpu") accelerators.push_back(d.index);
  if (!accelerators.empty()) {
    const bool named =
        std::find(accelerators.begin(), accelerators.end(), request.device) != accelerators.end();
    const int index = named ? request.device : accelerators.front();
    try {
      return {make_opencl_backend(index), ""};
    } catch (const std::exception& e) {  // BackendError, or a driver's own exception
      return {make_cpu_backend(request.cpu_threads),
              std::string("OpenCL device unusable (") + e.what() + "); using the CPU backend"};
    }
  }
  if (!devices.empty())
    return {
        make_cpu_backend(request.cpu_threads),
        "using the CPU backend: the only OpenCL device" +
            std::string(devices.size() > 1 ? "s here are CPU devices" : " here is a CPU device") +
            " ('" + devices.front().name +
            "'), which runs on the same cores much slower (--backend opencl uses it anyway)"};
  return {make_cpu_backend(request.cpu_threads), "no OpenCL device found; using the CPU backend"};
#else
  if (request.kind == "opencl")
    throw BackendError("--backend opencl: this build of trainscope has no OpenCL support");
  return {make_cpu_backend(request.cpu_threads),
          "this build has no OpenCL support; using the CPU backend"};
#endif
}

}  // namespace ts
