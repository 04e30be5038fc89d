// trainscope devices: every OpenCL device with the index --device takes.
#include <iostream>

#include "cli/commands.hpp"
#include "engine/backend/factory.hpp"

namespace ts::cli {

const char* const kDevicesHelp = R"(usage: trainscope devices

Lists every OpenCL platform and device: index (for --device), OpenCL version, memory, and
whether the device has f16 arithmetic (cl_khr_fp16).
)";

int run_devices(Args& args) {
  args.finish();
  const auto devices = list_devices();
  if (devices.empty()) {
    std::cout << "No OpenCL device found; training runs on the CPU backend.\n";
    return 0;
  }
  for (const auto& d : devices) {
    std::cout << "[" << d.index << "] " << d.name << "\n"
              << "    platform:      " << d.platform << "\n"
              << "    type:          " << d.type << "\n"
              << "    version:       " << d.version << "\n"
              << "    compute units: " << d.compute_units << "\n"
              << "    memory:        " << (d.global_memory_bytes >> 20) << " MiB\n"
              << "    fp16:          " << (d.fp16 ? "yes (cl_khr_fp16)" : "no (f16 storage only)")
              << "\n";
  }
  return 0;
}

}  // namespace ts::cli
