// Launching our own kernels: pick the program variant for the storage types, set the
// arguments, size the NDRange, and enqueue through the CommandQueue choke point.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "engine/backend/opencl/cl_api.hpp"
#include "engine/backend/opencl/cl_enqueue.hpp"
#include "engine/backend/opencl/cl_program_cache.hpp"
#include "engine/core/dtype.hpp"

namespace ts::ocl {

// The element types of a kernel's storage slots X, Y, Z (see kernels/common.cl).
struct Slots {
  DType x = DType::F32, y = DType::F32, z = DType::F32;
  static Slots of(DType x, DType y = DType::F32, DType z = DType::F32) { return {x, y, z}; }
  // "-DX_TYPE=0 -DY_TYPE=1 -DZ_TYPE=0": every variant names all three slots, so kernels of one
  // file that use fewer slots share a program.
  std::string options() const;
};

// Local memory argument: `bytes` of __local memory, no value.
struct LocalMemory {
  std::size_t bytes;
};

class KernelRunner {
 public:
  KernelRunner(ProgramCache& programs, CommandQueue& queue) : programs_(programs), queue_(queue) {}

  // One work item per element i < n (global size rounded up to the work-group size; kernels
  // guard i >= n). Does nothing when n == 0.
  template <class... Args>
  void run_1d(std::string_view file, std::string_view name, Slots slots, std::uint64_t n,
              const Args&... args) {
    if (n == 0) return;
    const KernelHandle& k = programs_.kernel(file, name, slots.options());
    set_args(k.kernel, args...);
    const std::size_t local = group_size_1d(k);
    const std::size_t global = round_up(n, local);
    queue_.launch({CommandCategory::kernel, name, 0, global}, k.kernel, 1, &global, &local);
  }

  // An explicit NDRange: `global` must be a multiple of `local` in every dimension.
  template <class... Args>
  void run_nd(std::string_view file, std::string_view name, Slots slots, cl_uint dims,
              const std::size_t* global, const std::size_t* local, const Args&... args) {
    const KernelHandle& k = programs_.kernel(file, name, slots.options());
    set_args(k.kernel, args...);
    std::uint64_t items = 1;
    for (cl_uint d = 0; d < dims; ++d) items *= global[d];
    queue_.launch({CommandCategory::kernel, name, 0, items}, k.kernel, dims, global, local);
  }

  // The largest power of two <= limit that the kernel allows in one work-group.
  std::size_t power_of_two_group(std::string_view file, std::string_view name, Slots slots,
                                 std::size_t limit);

  static std::size_t round_up(std::uint64_t n, std::size_t multiple) {
    return static_cast<std::size_t>((n + multiple - 1) / multiple * multiple);
  }

 private:
  static std::size_t group_size_1d(const KernelHandle& k);

  template <class... Args>
  static void set_args(cl_kernel kernel, const Args&... args) {
    cl_uint index = 0;
    (set_arg(kernel, index++, args), ...);
  }
  template <class T>
  static void set_arg(cl_kernel kernel, cl_uint index, const T& value) {
    static_assert(std::is_same_v<T, cl_mem> || std::is_same_v<T, cl_ulong> ||
                      std::is_same_v<T, cl_uint> || std::is_same_v<T, cl_int> ||
                      std::is_same_v<T, cl_float> || std::is_same_v<T, cl_ushort>,
                  "kernel arguments must have the exact OpenCL type of the parameter");
    check_cl(clSetKernelArg(kernel, index, sizeof(T), &value),
             "cannot set OpenCL kernel argument " + std::to_string(index));
  }
  static void set_arg(cl_kernel kernel, cl_uint index, const LocalMemory& local) {
    check_cl(clSetKernelArg(kernel, index, local.bytes, nullptr),
             "cannot set OpenCL local memory argument " + std::to_string(index));
  }

  ProgramCache& programs_;
  CommandQueue& queue_;
};

}  // namespace ts::ocl
