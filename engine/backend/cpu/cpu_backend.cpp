// CPU backend: identity, memory, copies and the tensor checks every op goes through.
#include "engine/backend/cpu/cpu_backend.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <typeinfo>

#include "engine/backend/cpu/cpu_backend_impl.hpp"
#include "engine/backend/cpu/cpu_buffer.hpp"
#include "engine/backend/cpu/cpu_kernels.hpp"
#include "engine/backend/cpu/cpu_memory_counter.hpp"
#include "engine/backend/cpu/cpu_parallel.hpp"
#include "engine/backend/cpu/cpu_trace.hpp"
#include "trainscope/meta_keys.hpp"

namespace ts {

std::unique_ptr<Backend> make_cpu_backend(int threads) {
  return std::make_unique<cpu::CpuBackend>(threads);
}

namespace cpu {

void fail(const char* op, const std::string& problem) {
  throw std::invalid_argument(std::string("cpu backend: ") + op + ": " + problem);
}

// threads <= 0: every core; otherwise at most the cores there are.
CpuBackend::CpuBackend(int threads)
    : pool_(threads <= 0 ? available_threads() : std::min(threads, available_threads())),
      gemm_(pool_),
      track_(ts::trace::register_track("CPU compute", ts::trace::TrackKind::device_queue)) {
  // The memory the batch-size lever weighs the tensors' counter against.
  if (const std::int64_t bytes = host_memory_bytes(); bytes > 0)
    ts::trace::set_meta(meta_key::kHostMemoryBytes, std::to_string(bytes));
}

std::string CpuBackend::device_name() const {
  const int n = pool_.threads();
  return Gemm::library_name() + " (" + std::to_string(n) + (n == 1 ? " thread)" : " threads)");
}

View CpuBackend::view(const Tensor& t, const char* op, const char* arg) const {
  const Buffer* buffer = t.buffer.get();
  if (buffer == nullptr) fail(op, std::string(arg) + " is not allocated");
  if (typeid(*buffer) != typeid(CpuBuffer))
    fail(op, std::string(arg) + " was allocated by another kind of backend");
  const auto* cpu_buffer = static_cast<const CpuBuffer*>(buffer);
  if (cpu_buffer->owner() != this)
    fail(op, std::string(arg) + " was allocated by another CPU backend instance");
  const std::int64_t numel = t.numel();
  for (const auto d : t.shape.dims())
    if (d < 0) fail(op, std::string(arg) + " has a negative dimension " + t.shape.str());
  if (t.offset > buffer->bytes() || t.byte_offset() + t.bytes() > buffer->bytes())
    fail(op, std::string(arg) + " " + t.shape.str() + " at element " + std::to_string(t.offset) +
                 " lies outside its " + std::to_string(buffer->bytes()) + "-byte buffer");
  return {cpu_buffer->data() + t.byte_offset(), t.dtype, numel};
}

View CpuBackend::storage(const Tensor& t, const char* op, const char* arg) const {
  if (t.dtype != DType::F32 && t.dtype != DType::F16)
    fail(op, std::string(arg) + " must be f32 or f16, not " + std::string(dtype_name(t.dtype)));
  return view(t, op, arg);
}

View CpuBackend::typed(const Tensor& t, DType dtype, const char* op, const char* arg) const {
  if (t.dtype != dtype)
    fail(op, std::string(arg) + " must be " + std::string(dtype_name(dtype)) + ", not " +
                 std::string(dtype_name(t.dtype)));
  return view(t, op, arg);
}

// A fresh tensor of `shape` on a new 64-byte aligned buffer (contents unspecified).
Tensor CpuBackend::alloc(const Shape& shape, DType dtype) {
  for (const auto d : shape.dims())
    if (d < 0) fail("alloc", "negative dimension in " + shape.str());
  Tensor t;
  t.shape = shape;
  t.dtype = dtype;
  t.buffer = std::make_shared<CpuBuffer>(t.bytes(), this);
  return t;
}

// dst [any] <- dst.bytes() bytes at host.
void CpuBackend::upload(const Tensor& dst, const void* host) {
  const View d = view(dst, "upload", "dst");
  if (dst.bytes() == 0) return;
  require(host != nullptr, "upload", "host pointer is null");
  TS_CPU_OP(track_, "upload", h2d, 0, dst.bytes());
  std::memcpy(d.data, host, dst.bytes());
}

// src [any] -> src.bytes() bytes at host.
void CpuBackend::download(const Tensor& src, void* host) {
  const View s = view(src, "download", "src");
  if (src.bytes() == 0) return;
  require(host != nullptr, "download", "host pointer is null");
  { TS_ZONE("wait for device", sync); }  // ops are synchronous: nothing queued to wait for
  TS_CPU_OP(track_, "download", d2h, 0, src.bytes());
  std::memcpy(host, s.data, src.bytes());
}

void CpuBackend::finish() {
  TS_ZONE("wait for device", sync);
}

float* CpuBackend::host_data(const Tensor& t) {
  return typed(t, DType::F32, "host_data", "t").f32();
}

// dst [n] = src [n]; F32 <-> F16 conversions (and to/from I32, by value).
void CpuBackend::copy(const Tensor& src, const Tensor& dst) {
  const View s = view(src, "copy", "src");
  const View d = view(dst, "copy", "dst");
  require(s.numel == d.numel, "copy", "src and dst differ in numel");
  TS_CPU_OP(track_, "copy", kernel, d.numel, 0);
  convert(s, d);
}

// t [any] = value.
void CpuBackend::fill(const Tensor& t, float value) {
  const View v = view(t, "fill", "t");
  TS_CPU_OP(track_, "fill", kernel, v.numel, 0);
  cpu::fill(v, value);
}

}  // namespace cpu
}  // namespace ts
