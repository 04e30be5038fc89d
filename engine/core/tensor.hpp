// A tensor is a typed, shaped view into a backend buffer (host memory or device memory).
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>

#include "engine/core/dtype.hpp"
#include "engine/core/shape.hpp"

namespace ts {

// Memory owned by a backend. The CPU backend's buffers are host memory; the OpenCL backend's
// are cl_mem objects. Only the backend that made a buffer may read or write it.
class Buffer {
 public:
  explicit Buffer(std::size_t bytes) : bytes_(bytes) {}
  virtual ~Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  std::size_t bytes() const { return bytes_; }

 private:
  std::size_t bytes_;
};

struct Tensor {
  Shape shape;
  DType dtype = DType::F32;
  std::shared_ptr<Buffer> buffer;
  std::size_t offset = 0;  // in elements of dtype, from the start of buffer

  std::int64_t numel() const { return shape.numel(); }
  std::size_t bytes() const { return static_cast<std::size_t>(numel()) * dtype_size(dtype); }
  std::size_t byte_offset() const { return offset * dtype_size(dtype); }
  bool defined() const { return buffer != nullptr; }

  // Same memory, another shape with the same number of elements.
  Tensor reshaped(Shape s) const {
    if (s.numel() != numel())
      throw std::invalid_argument("reshape " + shape.str() + " -> " + s.str() + " changes size");
    Tensor t = *this;
    t.shape = std::move(s);
    return t;
  }
  // A contiguous sub-range of this tensor's elements, starting at element `start`.
  Tensor view(std::size_t start, Shape s) const {
    if (start + static_cast<std::size_t>(s.numel()) > static_cast<std::size_t>(numel()))
      throw std::out_of_range("view " + s.str() + " at " + std::to_string(start) +
                              " exceeds tensor " + shape.str());
    Tensor t = *this;
    t.shape = std::move(s);
    t.offset = offset + start;
    return t;
  }
};

}  // namespace ts
