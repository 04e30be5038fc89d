// OpenClBackend: creation, identity, memory and copies; make_opencl_backend.
#include "engine/backend/opencl/opencl_backend.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "engine/backend/opencl/cl_device.hpp"
#include "engine/backend/opencl/opencl_backend_impl.hpp"
#include "kernels/kernel_sources.hpp"
#include "trainscope/meta_keys.hpp"
#include "trainscope/trace.hpp"

namespace ts {

namespace ocl {

OpenClBackend::OpenClBackend(const DeviceHandle& handle, DeviceInfo info)
    : ctx_(handle, std::move(info)),
      memory_(std::make_shared<DeviceMemoryCounter>(ctx_.info().name)),
      clock_(ctx_.device(), ctx_.queue(), ctx_.info().name),
      commands_(ctx_.queue(), &clock_, ctx_.info().name + " compute", memory_.get()),
      copies_(ctx_.copy_queue(), &clock_, ctx_.info().name + " copy", memory_.get()),
      uploads_(copies_, commands_),
      programs_(ctx_.context(), ctx_.device()),
      kernels_(programs_, commands_),
      gemm_(ctx_.context(), ctx_.queue(), commands_, kernels_, ctx_.info().fp16,
            static_cast<std::size_t>(std::max(1, ctx_.info().compute_units)), memory_),
      partials_(ctx_.context(), memory_) {
  const DeviceInfo& d = ctx_.info();
  ts::trace::set_meta(meta_key::kDeviceOpenclName, d.name);
  ts::trace::set_meta(meta_key::kDeviceOpenclVersion, d.version);
  ts::trace::set_meta(meta_key::kDeviceOpenclPlatform, d.platform);
  ts::trace::set_meta(meta_key::kDeviceOpenclType, d.type);
  ts::trace::set_meta(meta_key::kDeviceOpenclComputeUnits, std::to_string(d.compute_units));
  ts::trace::set_meta(meta_key::kDeviceOpenclGlobalMemoryBytes,
                      std::to_string(d.global_memory_bytes));
  ts::trace::set_meta(meta_key::kDeviceOpenclFp16, d.fp16 ? "yes" : "no");
  // Build every kernel family's all-f32 variant now, so the first training step does not pay
  // for compilation and a broken or missing kernel file fails here (f16 variants are built on
  // first use), then warm up CLBlast.
  for (const std::string& file : kernels::kernel_file_names())
    if (file != "common.cl") programs_.build(file, Slots{}.options());
  gemm_warm_up_s_ = gemm_.warm_up();
}

OpenClBackend::~OpenClBackend() {
  // Wait before members are torn down; errors cannot be reported from a destructor.
  clFinish(ctx_.copy_queue());
  clFinish(ctx_.queue());
}

// Returns an uninitialised tensor [shape] of dtype in a new device buffer.
Tensor OpenClBackend::alloc(const Shape& shape, DType dtype) {
  Tensor t;
  t.shape = shape;
  t.dtype = dtype;
  t.buffer = std::make_shared<ClBuffer>(ctx_.context(), t.bytes(), memory_);
  return t;
}

// dst [any] <- host bytes (dst's layout); does not wait.
void OpenClBackend::upload(const Tensor& dst, const void* host) {
  commands_.write("upload", mem(dst), dst.byte_offset(), dst.bytes(), host);
}

// host bytes <- src [any]; waits for queued work.
void OpenClBackend::download(const Tensor& src, void* host) {
  commands_.read("download", mem(src), src.byte_offset(), src.bytes(), host);
  copies_.poll();
}

// dst [any] <- host bytes on the copy queue; does not wait (see Backend::upload_async).
UploadTicket OpenClBackend::upload_async(const Tensor& dst, const void* host) {
  return uploads_.start(mem(dst), dst.byte_offset(), dst.bytes(), host);
}

void OpenClBackend::wait_upload(UploadTicket ticket) {
  uploads_.wait(ticket);
}

// dst [n] = src [n]; converts between F32, F16 and I32.
void OpenClBackend::copy(const Tensor& src, const Tensor& dst) {
  if (src.dtype == dst.dtype) {
    commands_.copy("copy", mem(src), src.byte_offset(), mem(dst), dst.byte_offset(), dst.bytes());
    return;
  }
  const auto n = static_cast<cl_ulong>(dst.numel());
  kernels_.run_1d("convert.cl", "convert", Slots::of(src.dtype, dst.dtype), n, mem(src),
                  cl_ulong{src.offset}, mem(dst), cl_ulong{dst.offset}, n);
}

void OpenClBackend::fill_bits(const Tensor& t, std::uint64_t start, std::uint64_t n,
                              std::uint32_t bits) {
  if (t.dtype == DType::F16)
    kernels_.run_1d("convert.cl", "fill_u16", Slots{}, n, mem(t), cl_ulong{t.offset + start},
                    cl_ulong{n}, static_cast<cl_ushort>(bits));
  else
    kernels_.run_1d("convert.cl", "fill_u32", Slots{}, n, mem(t), cl_ulong{t.offset + start},
                    cl_ulong{n}, cl_uint{bits});
}

// t [n] = value: F32 exact, F16 rounded to nearest even, I32 truncated (NaN -> 0, saturated).
void OpenClBackend::fill(const Tensor& t, float value) {
  std::uint32_t bits = 0;
  switch (t.dtype) {
    case DType::F32:
      bits = std::bit_cast<std::uint32_t>(value);
      break;
    case DType::F16:
      bits = float_to_half(value);
      break;
    case DType::I32: {
      std::int32_t i = 0;
      if (std::isnan(value))
        i = 0;
      else if (value >= 2147483648.0f)
        i = std::numeric_limits<std::int32_t>::max();
      else if (value <= -2147483648.0f)
        i = std::numeric_limits<std::int32_t>::min();
      else
        i = static_cast<std::int32_t>(value);
      bits = static_cast<std::uint32_t>(i);
      break;
    }
  }
  fill_bits(t, 0, static_cast<std::uint64_t>(t.numel()), bits);
}

void OpenClBackend::finish() {
  copies_.finish();
  commands_.finish();
}

}  // namespace ocl

std::unique_ptr<Backend> make_opencl_backend(int index) {
  const auto handles = ocl::enumerate_devices();
  if (index < 0 || index >= static_cast<int>(handles.size()))
    throw BackendError("OpenCL device " + std::to_string(index) + " does not exist (" +
                       std::to_string(handles.size()) + " device(s) found)");
  const auto& handle = handles[static_cast<std::size_t>(index)];
  return std::make_unique<ocl::OpenClBackend>(handle, ocl::describe_device(index, handle));
}

}  // namespace ts
