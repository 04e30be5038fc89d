#include "engine/backend/opencl/cl_kernel_runner.hpp"

namespace ts::ocl {

namespace {

// Work-group size for element-wise kernels: large enough to amortise per-group cost on CPU
// devices, and within what every GPU allows.
constexpr std::size_t kGroupSize1d = 256;

}  // namespace

namespace {

char type_code(DType t) {  // TS_F32, TS_F16, TS_I32 in kernels/common.cl
  return t == DType::F16 ? '1' : t == DType::I32 ? '2' : '0';
}

}  // namespace

std::string Slots::options() const {
  std::string s = "-DX_TYPE=0 -DY_TYPE=0 -DZ_TYPE=0";
  s[9] = type_code(x);
  s[20] = type_code(y);
  s[31] = type_code(z);
  return s;
}

std::size_t KernelRunner::group_size_1d(const KernelHandle& k) {
  std::size_t size = 1;
  while (size * 2 <= kGroupSize1d && size * 2 <= k.max_work_group) size *= 2;
  return size;
}

std::size_t KernelRunner::power_of_two_group(std::string_view file, std::string_view name,
                                             Slots slots, std::size_t limit) {
  const KernelHandle& k = programs_.kernel(file, name, slots.options());
  std::size_t size = 1;
  while (size * 2 <= limit && size * 2 <= k.max_work_group) size *= 2;
  return size;
}

}  // namespace ts::ocl
