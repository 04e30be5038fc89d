// Tensor shapes: a short list of dimensions, row-major (last dimension contiguous).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace ts {

class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<std::int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<std::int64_t> dims) : dims_(std::move(dims)) {}

  std::size_t rank() const { return dims_.size(); }
  std::int64_t operator[](std::size_t i) const { return dims_[i]; }
  std::int64_t& operator[](std::size_t i) { return dims_[i]; }
  const std::vector<std::int64_t>& dims() const { return dims_; }

  // Product of all dimensions (1 for a scalar shape).
  std::int64_t numel() const {
    std::int64_t n = 1;
    for (auto d : dims_) n *= d;
    return n;
  }
  // Product of dimensions after the first: the per-sample size of a batch-first shape.
  std::int64_t inner() const { return dims_.empty() ? 1 : numel() / dims_[0]; }

  bool operator==(const Shape& o) const { return dims_ == o.dims_; }
  bool operator!=(const Shape& o) const { return dims_ != o.dims_; }

  std::string str() const {
    std::string s = "[";
    for (std::size_t i = 0; i < dims_.size(); ++i) {
      if (i) s += ",";
      s += std::to_string(dims_[i]);
    }
    return s + "]";
  }

 private:
  std::vector<std::int64_t> dims_;
};

}  // namespace ts
